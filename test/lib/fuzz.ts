import fc from 'fast-check'

/**
 * Bodies for HTTP fuzz tests: a seed with 1-8 edits (insert, delete or replace one of `special`,
 * or duplicate a run of up to 10 characters) at random places, so most stay close to valid input
 * and reach the parser's deeper states.
 */
export function mutatedText(seeds: string[], special: string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(...seeds),
      fc.array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace', 'dup'), fc.constantFrom(...special)), { minLength: 1, maxLength: 8 }),
    )
    .map(([seed, edits]) => {
      let s = seed
      for (const [pos, op, ch] of edits) {
        const i = s.length === 0 ? 0 : pos % s.length
        if (op === 'insert') {
          s = s.slice(0, i) + ch + s.slice(i)
        } else if (op === 'delete') {
          s = s.slice(0, i) + s.slice(i + 1)
        } else if (op === 'replace') {
          s = s.slice(0, i) + ch + s.slice(i + 1)
        } else {
          s = s.slice(0, i) + s.slice(i, i + 10) + s.slice(i)
        }
      }
      return s
    })
}
