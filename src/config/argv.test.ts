import { describe, expect, it } from 'vitest'
import { parseArgv } from './argv.js'
import { ConfigError } from './errors.js'

function flags(argv: string[]): Record<string, string[]> {
  const r = parseArgv(argv)
  if (r.kind !== 'flags') {
    throw new Error(`expected flags, got ${r.kind}`)
  }
  return Object.fromEntries(r.values)
}

describe('parseArgv', () => {
  it.each([
    [['--port=6050'], '6050'],
    [['--port', '6050'], '6050'],
    [['-P', '6050'], '6050'],
    [['-P=6050'], '6050'],
    [['-p', '6050'], '6050'],
    [['-p=6050'], '6050'],
  ])('%j sets port', (argv, value) => {
    expect(flags(argv)).toEqual({ port: [value] })
  })

  it('reads -c and --config as the config file', () => {
    expect(flags(['-c', '/x.toml'])).toEqual({ config: ['/x.toml'] })
    expect(flags(['--config=/y.toml'])).toEqual({ config: ['/y.toml'] })
  })

  it('bool flags: bare means true, =value is kept, the next argument is not consumed', () => {
    expect(flags(['--debug'])).toEqual({ debug: ['true'] })
    expect(flags(['--debug=false'])).toEqual({ debug: ['false'] })
    expect(flags(['--debug', '--port', '1'])).toEqual({ debug: ['true'], port: ['1'] })
  })

  it('a bool followed by a bare word is an error that shows the attached form', () => {
    expect(() => parseArgv(['--debug', 'false'])).toThrow(
      'unexpected argument "false" (a bool flag takes its value attached: --debug=false)',
    )
  })

  it('a value flag takes the next argument even when it starts with a dash', () => {
    expect(flags(['--restfulRowLimit', '-1'])).toEqual({ restfulRowLimit: ['-1'] })
  })

  it('keeps every occurrence in order, and keeps an empty =value', () => {
    expect(flags(['--hostexporter.urls=a', '--hostexporter.urls', 'b,c', '--cors.allowOrigins='])).toEqual({
      'hostexporter.urls': ['a', 'b,c'],
      'cors.allowOrigins': [''],
    })
  })

  it('ignores a bare -- separator', () => {
    expect(flags(['--', '--port=1'])).toEqual({ port: ['1'] })
  })

  it('help and version', () => {
    expect(parseArgv(['--help']).kind).toBe('help')
    expect(parseArgv(['-h']).kind).toBe('help')
    expect(parseArgv(['--port=1', '--version']).kind).toBe('version')
  })

  it('unknown flags are errors, with a hint for a wrong case', () => {
    expect(() => parseArgv(['--nope'])).toThrow(ConfigError)
    expect(() => parseArgv(['--nope'])).toThrow('unknown flag --nope; see --help')
    expect(() => parseArgv(['--loglevel=debug'])).toThrow('unknown flag --loglevel (did you mean --logLevel?)')
    expect(() => parseArgv(['-x'])).toThrow('unknown flag -x')
    expect(() => parseArgv(['-port'])).toThrow('unknown flag -port (did you mean --port?)')
  })

  it('a value flag at the end without a value is an error', () => {
    expect(() => parseArgv(['--port'])).toThrow('flag --port needs a value (int)')
    expect(() => parseArgv(['-c'])).toThrow('flag -c needs a value (string)')
  })

  it('stray positional arguments are errors', () => {
    expect(() => parseArgv(['serve'])).toThrow('unexpected argument "serve"')
  })
})
