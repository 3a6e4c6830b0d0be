import { describe, expect, it } from 'vitest'
import { identifierProblem, MAX_COLUMN_NAME_BYTES } from './identifier.js'

describe('identifierProblem', () => {
  it('accepts names storage holds as given, Unicode included', () => {
    for (const name of ['cpu', 'a"b\'c', 'back`tick', 'µs', '\ud83d\ude00', 'x'.repeat(64), 'é'.repeat(32)]) {
      expect(identifierProblem(name, MAX_COLUMN_NAME_BYTES), name).toBeUndefined()
    }
  })

  it('names what is wrong with the others', () => {
    expect(identifierProblem('', 64)).toBe('is empty')
    expect(identifierProblem('a\u0000b', 64)).toMatch(/control character/)
    expect(identifierProblem('a\nb', 64)).toMatch(/control character/)
    expect(identifierProblem('\ud800', 64)).toMatch(/surrogate/)
    expect(identifierProblem('x\udc00', 64)).toMatch(/surrogate/)
    expect(identifierProblem('\ude00\ud83d', 64)).toMatch(/surrogate/)
    expect(identifierProblem('a\ufffd', 64)).toMatch(/UTF-8/)
    expect(identifierProblem('x'.repeat(65), 64)).toBe('is longer than 64 bytes')
    // 33 two-byte characters are 66 bytes
    expect(identifierProblem('é'.repeat(33), 64)).toBe('is longer than 64 bytes')
  })
})
