/**
 * RE2 matchers for remote read (re2js). The expectations of CASES were checked against
 * Go 1.19's regexp (the one Prometheus 2.42 is built with), compiled the way Prometheus compiles a
 * matcher: regexp.MustCompile("^(?:" + re + ")$").MatchString(input).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Re2SyntaxError, compileRe2Anchored } from './re2.js'

/** [pattern, inputs it matches, inputs it does not match] */
const CASES: [string, string[], string[]][] = [
  // (?i): whole pattern, scoped groups, turned off again
  ['(?i)foo', ['foo', 'FOO', 'fOo'], ['fo', 'foox', 'xfoo']],
  ['(?i)node_.*', ['node_cpu', 'NODE_X', 'Node_'], ['nodes_cpu', 'xnode_']],
  ['(?i)(get|post)', ['GET', 'post', 'Post'], ['put', 'GETPOST']],
  ['api-(?i:v1|V2)', ['api-v1', 'api-V1', 'api-v2'], ['API-v1', 'api-v3']],
  ['(?i)a(?-i)b', ['ab', 'Ab'], ['aB', 'AB']],
  ['a(?i)b|c', ['ab', 'aB', 'c', 'C'], ['Ab', 'b']],
  ['(?i)k', ['k', 'K', '\u212a'], ['x']],
  ['x(?i:k)', ['xk', 'xK', 'x\u212a'], ['Xk']],
  ['(?i)straße', ['STRAẞE', 'Straße'], ['STRASSE']],
  ['(?i)[a-c]+', ['abc', 'ABC', 'aBc'], ['abd', '']],
  ['x(?i:[a-c])', ['xa', 'xB'], ['xd', 'XA']],
  ['(?i)[^a]', ['b', 'B', '1'], ['a', 'A']],
  ['(?i)\\w+', ['abc_AZ09', '\u017f'], ['a-b']],
  ['(?i)\\W', ['-', ' '], ['a', 'Z', '\u017f', '\u212a']],
  ['(?i)[[:^alpha:]]', ['1', '-'], ['a', 'Z', '\u017f']],
  ['(?i)\\p{Lu}', ['A', 'a', 'Ω', 'ω'], ['1']],
  ['(?i)\\P{Lu}', ['1', '-'], ['A', 'a']],
  ['(?i)ı', ['ı'], ['i', 'I']],
  ['(?i)\\bx\\b', ['x', 'X'], ['y']],
  // \z, \A, ^, $ and (?m)
  ['abc\\z', ['abc'], ['abc\n', 'ab']],
  ['\\Aabc', ['abc'], ['xabc']],
  ['a$', ['a'], ['a\n']],
  ['(?m)a$\\n^b', ['a\nb'], ['ab', 'a\n\nb']],
  ['(?s)a.b', ['a\nb', 'axb'], ['ab']],
  ['a.b', ['axb', 'a\rb', 'a\u2028b'], ['a\nb']],
  // POSIX classes, inside brackets only
  ['[[:alpha:]]+', ['abcXYZ'], ['abc1', '', 'é']],
  ['[[:digit:]]{3}', ['123'], ['12a', '١٢٣']],
  ['[[:alnum:]_-]+', ['host-01_a'], ['host.01']],
  ['[[:upper:]][[:lower:]]+', ['Node'], ['node', 'NODE']],
  ['[[:space:]]', [' ', '\t', '\n', '\v', '\f', '\r'], ['\u00a0', 'x']],
  ['[[:xdigit:]]+', ['deadBEEF09'], ['xyz']],
  ['[[:punct:]]+', ['!-/:@[`{~'], ['a', ' ']],
  ['[[:word:]]+', ['a_1'], ['a-1']],
  ['[[:^digit:]]+', ['abc'], ['a1']],
  ['[^[:digit:]]', ['a'], ['1']],
  ['[[:alpha:][:digit:]]+', ['a1B2'], ['a-1']],
  ['[:alpha:]+', ['::ahlp'], ['b']],
  // Perl classes and escapes RE2 reads differently from JS
  ['\\s', [' ', '\t', '\n', '\f', '\r'], ['\v', '\u00a0', '\u2028']],
  ['\\S+', ['\v\u00a0'], [' ']],
  ['\\d+', ['0129'], ['١']],
  ['a\\-b\\:c\\#\\@\\%', ['a-b:c#@%'], ['ab:c#@%']],
  ['\\Qa.b*c\\E+', ['a.b*c', 'a.b*cc'], ['axbc', 'a.b*']],
  ['\\x41\\x{1F600}\\101\\0', ['A😀A\u0000'], ['A😀A']],
  ['\\a\\f\\t\\n\\r\\v', ['\x07\f\t\n\r\v'], ['']],
  ['\\pL+', ['abcΩЖ中'], ['a1']],
  ['\\p{Greek}+', ['αβΩ'], ['a']],
  ['\\p{^Greek}', ['a'], ['α']],
  ['\\PN', ['a'], ['1']],
  ['[\\p{Cyrillic}\\d]+', ['Ж1'], ['a']],
  // RE2 literals JS u-mode rejects
  ['a{', ['a{'], ['a']],
  ['a{,2}', ['a{,2}'], ['aa']],
  ['x}', ['x}'], ['x']],
  [']', [']'], ['']],
  ['[]a]+', [']a]'], ['b']],
  ['[^]a]', ['b'], [']', 'a']],
  ['[a-]+', ['a-'], ['b']],
  ['[\\d-z]+', ['1-z'], ['y']],
  // groups, repetition, ungreedy
  ['(?P<code>2..)|(?P<alt>5..)', ['200', '503'], ['404']],
  ['(?U)a+', ['aaa'], ['']],
  ['a{2,3}', ['aa', 'aaa'], ['a', 'aaaa']],
  ['(a{10}){10}', ['a'.repeat(100)], ['a'.repeat(99)]],
  ['^*a', ['a'], ['']],
]

/** [pattern, part of the error message] (Go's wording; Go rejects each too, `a)|(b` only unwrapped) */
const ERRORS: [string, string][] = [
  ['(', 'missing closing ): `(`'],
  ['a)|(b', 'unexpected ): `a)|(b`'],
  ['[a', 'missing closing ]'],
  ['(?=x)', 'invalid or unsupported Perl syntax: `(?=`'],
  ['(?!x)', 'invalid or unsupported Perl syntax: `(?!`'],
  ['(?<=x)', 'invalid named capture'],
  ['(?>x)', 'invalid or unsupported Perl syntax: `(?>`'],
  ['(?#comment)', 'invalid or unsupported Perl syntax'],
  ['(a)\\1', 'invalid escape sequence: `\\1`'],
  ['\\Z', 'invalid escape sequence: `\\Z`'],
  ['\\C', 'invalid escape sequence: `\\C`'],
  ['\\e', 'invalid escape sequence: `\\e`'],
  ['\\x{110000}', 'invalid escape sequence'],
  ['\\p{Klingon}', 'invalid character class range: `\\p{Klingon}`'],
  ['[[:alfa:]]', 'invalid character class range: `[:alfa:]`'],
  ['[z-a]', 'invalid character class range: `z-a`'],
  ['a**', 'invalid nested repetition operator'],
  ['*a', 'missing argument to repetition operator: `*`'],
  ['a{1001}', 'invalid repeat count: `{1001}`'],
  ['a{3,2}', 'invalid repeat count'],
  ['(a{100}){11}', 'invalid repeat count: `{11}`'],
  ['(?P<a-b>x)', 'invalid named capture'],
  ['(?i-)x', 'invalid or unsupported Perl syntax'],
  ['a\\', 'trailing backslash'],
  ['('.repeat(1001) + ')'.repeat(1001), 'nests too deeply'],
]

describe('compileRe2Anchored', () => {
  it.each(CASES)('%j matches as RE2 does', (pattern, yes, no) => {
    const re = compileRe2Anchored(pattern)
    for (const s of yes) {
      expect(re.test(s), `${JSON.stringify(pattern)} should match ${JSON.stringify(s)}`).toBe(true)
    }
    for (const s of no) {
      expect(re.test(s), `${JSON.stringify(pattern)} should not match ${JSON.stringify(s)}`).toBe(false)
    }
  })

  it.each(ERRORS)('%j is rejected, saying why', (pattern, message) => {
    expect(() => compileRe2Anchored(pattern)).toThrow(Re2SyntaxError)
    expect(() => compileRe2Anchored(pattern)).toThrow(message)
  })

  it('case-insensitive parts stay where they are written', () => {
    expect(compileRe2Anchored('foo(?i)bar').test('fooBAR')).toBe(true)
    expect(compileRe2Anchored('foo(?i)bar').test('FOObar')).toBe(false)
  })

  it('matches in linear time where a backtracking engine would not return', () => {
    const re = compileRe2Anchored('(a+)+b')
    const started = performance.now()
    expect(re.test('a'.repeat(50_000))).toBe(false)
    // a backtracking RegExp needs about 2^50000 steps here; a bound of seconds cannot be met by luck
    expect(performance.now() - started).toBeLessThan(5_000)
  })

  it('anchors at both ends, also around alternatives', () => {
    const re = compileRe2Anchored('a|b')
    expect(['a', 'b'].map((s) => re.test(s))).toEqual([true, true])
    expect(['ab', 'xa', 'bx', ''].map((s) => re.test(s))).toEqual([false, false, false, false])
  })

  it('any string either compiles to a working matcher or fails with Re2SyntaxError', () => {
    const unit = fc.constantFrom(...'()[]{}|*+?.^$\\-:,0123456789aAkKiIzZbBdDsSwWpPQEx?<>=!#PiLmsU_ſı '.split(''), '(?i)', '(?i:', '[[:', ':]]', '[:^', '\\p{', '\\x{')
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 24 }).map((a) => a.join('')), fc.string({ maxLength: 6 }), (pattern, input) => {
        let re: ReturnType<typeof compileRe2Anchored>
        try {
          re = compileRe2Anchored(pattern)
        } catch (err) {
          expect(err).toBeInstanceOf(Re2SyntaxError)
          return
        }
        expect(typeof re.test(input)).toBe('boolean')
      }),
      { numRuns: 3000 },
    )
  })
})
