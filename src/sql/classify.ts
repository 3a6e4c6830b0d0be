/**
 * Cheap statement classification for the memory gate, without tokenizing the whole statement:
 * skips whitespace, comments and opening parentheses and looks at the first word. SELECT, SHOW,
 * DESCRIBE, DESC and EXPLAIN produce result sets ('query'); everything else is a 'write'.
 */
const QUERY_WORDS = new Set(['SELECT', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'WITH'])

export function classifySql(sql: string): 'query' | 'write' {
  let i = 0
  const n = sql.length
  while (i < n) {
    const ch = sql[i]
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '(' || ch === '\f' || ch === '\v') {
      i++
    } else if (ch === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i)
      i = nl < 0 ? n : nl + 1
    } else if (ch === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2)
      i = close < 0 ? n : close + 2
    } else {
      break
    }
  }
  let j = i
  while (j < n && /[A-Za-z_]/.test(sql[j])) {
    j++
  }
  return QUERY_WORDS.has(sql.slice(i, j).toUpperCase()) ? 'query' : 'write'
}
