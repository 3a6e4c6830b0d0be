/**
 * How Prometheus series map onto tables, as the original adapter stores them (adapter-behaviour
 * 6.1), and Prometheus label matching for remote read. Pure functions.
 *
 * Super table `metrics(ts TIMESTAMP, v DOUBLE) TAGS (labels JSON)`; one child per series, named
 * `t_` + lower-hex MD5 of the series key: the labels sorted by name (byte order), `name=value`
 * joined with `,` (`__name__` included). The JSON tag holds the sorted labels as an object.
 */
import { createHash } from 'node:crypto'
import { MatchType, RemoteDecodeError } from './proto.js'
import type { Label, LabelMatcher } from './proto.js'
import { compileRe2Anchored } from './re2.js'
import type { AnchoredRe2, Re2SyntaxError } from './re2.js'

export const METRICS_STABLE = 'metrics'
export const LABELS_TAG = 'labels'
/** TDengine's limit for a JSON tag value, in bytes */
export const MAX_LABELS_JSON_BYTES = 4095

/** Byte-order comparison of label names (Prometheus and the original sort the same way). */
function byName(a: Label, b: Label): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}

/** A sorted copy of the labels. */
export function sortLabels(labels: readonly Label[]): Label[] {
  return [...labels].sort(byName)
}

/** The series key of sorted labels: `n1=v1,n2=v2`. */
export function seriesKey(sorted: readonly Label[]): string {
  let key = ''
  for (let i = 0; i < sorted.length; i++) {
    key += (i ? ',' : '') + sorted[i].name + '=' + sorted[i].value
  }
  return key
}

/** `t_` + MD5 of the series key. */
export function seriesTableName(key: string): string {
  return 't_' + createHash('md5').update(key, 'utf8').digest('hex')
}

/** The JSON tag value of sorted labels (an object; insertion order keeps them sorted). */
export function labelsObject(sorted: readonly Label[]): Record<string, string> {
  const o: Record<string, string> = {}
  for (const l of sorted) {
    o[l.name] = l.value
  }
  return o
}

/**
 * A predicate over a series' labels for the matchers of one query, with Prometheus semantics:
 * regexes are RE2 syntax (re2js: `(?i)`, `\z`, `[[:alpha:]]` ..., linear-time) anchored at both
 * ends, and a label the series lacks matches as the empty string (so `foo=""` selects series
 * without `foo`). An invalid regex is the client's error, naming the matcher.
 */
export function compileMatchers(matchers: readonly LabelMatcher[]): (labels: Record<string, unknown>) => boolean {
  const tests = matchers.map((m): ((v: string) => boolean) => {
    switch (m.type) {
      case MatchType.EQ:
        return (v) => v === m.value
      case MatchType.NEQ:
        return (v) => v !== m.value
      case MatchType.RE:
      case MatchType.NRE: {
        let re: AnchoredRe2
        try {
          re = compileRe2Anchored(m.value)
        } catch (err) {
          // the pattern is the client's error, not a reason to retry
          throw new RemoteDecodeError(
            `remote read: matcher ${m.name}${m.type === MatchType.RE ? '=~' : '!~'}${JSON.stringify(m.value)}: invalid regular expression (RE2 syntax): ${(err as Re2SyntaxError).message}`,
          )
        }
        return m.type === MatchType.RE ? (v) => re.test(v) : (v) => !re.test(v)
      }
    }
  })
  return (labels) => {
    for (let i = 0; i < tests.length; i++) {
      const v = labels[matchers[i].name]
      if (!tests[i](typeof v === 'string' ? v : '')) {
        return false
      }
    }
    return true
  }
}
