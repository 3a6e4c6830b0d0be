import { describe, expect, it } from 'vitest'
import {
  formatDuration,
  formatSize,
  parseBool,
  parseDuration,
  parseFloatStrict,
  parseInteger,
  parseSize,
  splitCommaList,
  splitEnvList,
} from './values.js'

describe('parseBool', () => {
  it.each(['1', 't', 'T', 'TRUE', 'true', 'True'])('%s is true', (t) => expect(parseBool(t)).toBe(true))
  it.each(['0', 'f', 'F', 'FALSE', 'false', 'False'])('%s is false', (t) => expect(parseBool(t)).toBe(false))
  it.each(['yes', 'no', '', 'tRuE', '2'])('%j is not a bool', (t) => expect(parseBool(t)).toBeUndefined())
})

describe('parseInteger / parseFloatStrict', () => {
  it('reads signed decimal integers only', () => {
    expect(parseInteger('6041')).toBe(6041)
    expect(parseInteger('-1')).toBe(-1)
    expect(parseInteger('+7')).toBe(7)
    for (const bad of ['', '1.5', '0x10', '1e3', ' ', 'abc', '99999999999999999999']) {
      expect(parseInteger(bad)).toBeUndefined()
    }
  })
  it('reads decimal floats, not hex or empty', () => {
    expect(parseFloatStrict('80')).toBe(80)
    expect(parseFloatStrict('-1')).toBe(-1)
    expect(parseFloatStrict('72.5')).toBe(72.5)
    expect(parseFloatStrict('.5')).toBe(0.5)
    expect(parseFloatStrict('1e2')).toBe(100)
    for (const bad of ['', '0x10', 'NaN', 'Infinity', '1,5', '80%']) {
      expect(parseFloatStrict(bad)).toBeUndefined()
    }
  })
})

describe('parseDuration', () => {
  it.each([
    ['3s', 3000],
    ['24h0m0s', 86_400_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['250us', 0.25],
    ['2000000ns', 2],
    ['0s', 0],
    ['0', 0],
    ['+5s', 5000],
  ])('%s = %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms))

  it.each(['30', '', '3', 's', '3 s', '3sec', '-3s', '1d', '3s5', 'h1'])('%j is rejected', (text) => {
    expect(parseDuration(text)).toBeUndefined()
  })

  it('formats like Go', () => {
    expect(formatDuration(86_400_000)).toBe('24h0m0s')
    expect(formatDuration(3000)).toBe('3s')
    expect(formatDuration(90_000)).toBe('1m30s')
    expect(formatDuration(500)).toBe('500ms')
    expect(formatDuration(0)).toBe('0s')
    expect(formatDuration(1500)).toBe('1.5s')
  })
})

describe('parseSize', () => {
  it.each([
    ['1GB', 1024 ** 3],
    ['500MB', 500 * 1024 * 1024],
    ['64KB', 65_536],
    ['64kb', 65_536],
    ['64K', 65_536],
    ['2g', 2 * 1024 ** 3],
    ['4096', 4096],
    ['4096B', 4096],
    ['0', 0],
  ])('%s = %d bytes', (text, bytes) => expect(parseSize(text)).toBe(bytes))

  it.each(['', 'GB', '1TB', '-1GB', '1.5GB', 'lots', '1 G B'])('%j is rejected', (text) => {
    expect(parseSize(text)).toBeUndefined()
  })

  it('formats with the largest exact unit', () => {
    expect(formatSize(1024 ** 3)).toBe('1GB')
    expect(formatSize(64 * 1024 * 1024)).toBe('64MB')
    expect(formatSize(1536)).toBe('1536B')
    expect(formatSize(0)).toBe('0B')
  })
})

describe('list splitting', () => {
  it('env lists accept commas, spaces or both', () => {
    expect(splitEnvList('a,b c\td,, e')).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(splitEnvList('')).toEqual([])
  })
  it('command-line lists split on commas and trim', () => {
    expect(splitCommaList('a, b,,c')).toEqual(['a', 'b', 'c'])
    expect(splitCommaList('')).toEqual([])
  })
})
