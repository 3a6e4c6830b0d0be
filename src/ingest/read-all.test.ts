import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { InputTooLarge, readAll } from './read-all.js'

describe('readAll', () => {
  it('joins the chunks of a stream until it ends', async () => {
    expect((await readAll(Readable.from([Buffer.from('ab'), Buffer.from('c'), 'd']), 10)).toString()).toBe('abcd')
    expect((await readAll(Readable.from([]), 10)).length).toBe(0)
  })

  it('fails past the cap, and has none with 0', async () => {
    await expect(readAll(Readable.from([Buffer.from('abc'), Buffer.from('de')]), 4)).rejects.toBeInstanceOf(InputTooLarge)
    expect((await readAll(Readable.from([Buffer.from('abc'), Buffer.from('de')]), 0)).toString()).toBe('abcde')
  })
})
