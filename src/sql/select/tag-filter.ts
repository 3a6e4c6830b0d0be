import { indexableTag, INTEGER_RANGES } from '../catalog/tag-index.js'
import type { Dialect } from '../../storage/dialect.js'
import type { TdType } from '../../storage/td-types.js'
import type { Expr, SelectStmt } from './ast.js'
import { children, collectRefs, conjuncts } from './expr-walk.js'
import type { Source } from './sources.js'

/**
 * Super-table WHERE conjuncts `tag = literal`, `tag IN (literals)` and the same of `tbname`,
 * resolved at plan time to the children's `_tid`s (the catalog's tag index), so that a query
 * reading no tag otherwise scans only those children's rows without joining the tag table.
 * Types whose equality the index cannot decide exactly as the backend would (floats, BOOL,
 * TIMESTAMP, JSON, a string against a number...) keep the join.
 */

/**
 * Measured in raw DuckDB (bench/README.md, "Tag equalities as child ids"): up to IN_LIST_MAX ids
 * an IN list; past it DuckDB plans the IN list as a mark join and a filter, slower than an inner
 * join on the list unnested (1.3x at 64 ids, 1.6x at 1,000 of 10,000 children), which is used up
 * to MAX_TID_LIST. PostgreSQL (not measured) keeps the IN list up to MAX_TID_LIST_PG.
 */
export const IN_LIST_MAX = 8
export const MAX_TID_LIST = 10_000
export const MAX_TID_LIST_PG = 1000

const INT64: [bigint, bigint] = [-9223372036854775808n, 9223372036854775807n]

/** what the conjuncts resolve to: the statement without them and the `_tid` condition or join */
export interface TagFilter {
  stmt: SelectStmt
  /** a condition on the scan, or a join appended to its FROM */
  tidWhere?: string
  tidJoin?: string
}

interface Candidate {
  /** a tag's name, or tbname */
  name: string
  tbname: boolean
  /** index keys (tagKey form); undefined = NULL, which matches nothing */
  keys: (string | undefined)[]
}

export function tagFilter(stmt: SelectStmt, src: Source | undefined, dialect: Dialect): TagFilter | undefined {
  if (src?.kind !== 'stable' || src.tidRaw === undefined || src.tagIndex === undefined || stmt.where === undefined) {
    return undefined
  }
  const rest: Expr[] = []
  const found: Candidate[] = []
  for (const c of conjuncts(stmt.where)) {
    const cand = candidate(c, src)
    if (cand === undefined) {
      rest.push(c)
    } else {
      found.push(cand)
    }
  }
  if (found.length === 0) {
    return undefined
  }
  const where = rest.length === 0 ? undefined : rest.reduce((l, r): Expr => ({ kind: 'binary', op: 'AND', left: l, right: r }))
  const without: SelectStmt = { ...stmt, where }
  // only worth it (and only correct) when nothing else reads a tag or tbname
  const refs = collectRefs(without)
  otherExprs(stmt).forEach((e) => namesIn(e, refs.names))
  if (refs.star || refs.names.has('tbname') || src.cols.some((c) => c.tag && refs.names.has(c.name))) {
    return undefined
  }
  const index = src.tagIndex()
  if (index === undefined) {
    return undefined
  }
  let tids: number[] | undefined
  for (const cand of found) {
    const keys = cand.keys.filter((k): k is string => k !== undefined)
    const these = cand.tbname ? tbnameTids(keys, src) : index.tids(cand.name, keys)
    tids = tids === undefined ? these : intersect(tids, these)
  }
  const list = tids as number[]
  const duck = dialect.name === 'duckdb'
  if (list.length > (duck ? MAX_TID_LIST : MAX_TID_LIST_PG)) {
    return undefined
  }
  if (duck && list.length > IN_LIST_MAX) {
    const tk = dialect.quoteIdent('_tid')
    return { stmt: without, tidJoin: ` JOIN (SELECT unnest([${list.join(', ')}]) AS ${tk}) AS tk ON ${src.tidRaw} = tk.${tk}` }
  }
  const tidWhere = list.length === 0 ? 'FALSE' : list.length === 1 ? `${src.tidRaw} = ${list[0]}` : `${src.tidRaw} IN (${list.join(', ')})`
  return { stmt: without, tidWhere }
}

/** expressions outside collectRefs' clauses: row windows, INTERP's range and fill values, FILL values */
function otherExprs(stmt: SelectStmt): Expr[] {
  const rw = stmt.rowWindow
  const out: Expr[] = [...(stmt.window?.fill?.values ?? []), ...(stmt.interp?.range ?? []), ...(stmt.interp?.fill?.values ?? [])]
  if (rw?.kind === 'session') {
    out.push(rw.col)
  } else if (rw?.kind === 'state') {
    out.push(rw.expr)
  } else if (rw?.kind === 'event') {
    out.push(rw.start, rw.end)
  }
  return out
}

function namesIn(e: Expr, names: Set<string>): void {
  if (e.kind === 'col') {
    names.add(e.name)
  }
  children(e).forEach((c) => namesIn(c, names))
}

/** `col = literal`, `literal = col` or `col IN (literals)` over an indexable tag or tbname */
function candidate(e: Expr, src: Source): Candidate | undefined {
  let col: Expr
  let list: Expr[]
  if (e.kind === 'binary' && e.op === '=') {
    ;[col, list] = e.left.kind === 'col' ? [e.left, [e.right]] : [e.right, [e.left]]
  } else if (e.kind === 'in' && !e.not) {
    ;[col, list] = [e.expr, e.list]
  } else {
    return undefined
  }
  if (col.kind !== 'col' || (col.table !== undefined && !src.qualifiers.has(col.table))) {
    return undefined
  }
  const name = col.name
  const keys: (string | undefined)[] = []
  if (name === 'tbname' && !src.cols.some((c) => c.name === 'tbname')) {
    for (const v of list) {
      if (v.kind === 'null') {
        keys.push(undefined)
      } else if (v.kind === 'str') {
        keys.push(v.value)
      } else {
        return undefined
      }
    }
    return { name, tbname: true, keys }
  }
  const type = src.cols.find((c) => c.tag && c.name === name)?.type.type
  if (type === undefined || type === 'NULL' || !indexableTag(type)) {
    return undefined
  }
  for (const v of list) {
    const k = literalKey(type, v)
    if (k === false) {
      return undefined
    }
    keys.push(k)
  }
  return { name, tbname: false, keys }
}

/**
 * The index key a literal compares equal to, as the compiled `tag = literal` would: text tags
 * against strings; integer tags against integers (compiled as BIGINT) and against strings of an
 * integer within the tag's range (the backend casts such a string to the tag's type, and fails
 * outside it: kept as the join so the error stays). false: keep the join.
 */
function literalKey(type: TdType, v: Expr): string | undefined | false {
  if (v.kind === 'null') {
    return undefined
  }
  if (type === 'VARCHAR' || type === 'NCHAR') {
    return v.kind === 'str' ? v.value : false
  }
  let n: bigint
  let range: [bigint, bigint]
  if (v.kind === 'num' && !v.isFloat) {
    range = INT64
    try {
      n = BigInt(v.text)
    } catch {
      return false
    }
  } else if (v.kind === 'str' && /^-?\d+$/.test(v.value)) {
    range = INTEGER_RANGES[type] as [bigint, bigint]
    n = BigInt(v.value)
  } else {
    return false
  }
  return n >= range[0] && n <= range[1] ? n.toString() : false
}

function tbnameTids(names: string[], src: Source): number[] {
  const out = new Set<number>()
  for (const n of names) {
    const tid = src.tidOf?.(n)
    if (tid !== undefined) {
      out.add(tid)
    }
  }
  return [...out].sort((a, b) => a - b)
}

function intersect(a: number[], b: number[]): number[] {
  const set = new Set(b)
  return a.filter((x) => set.has(x))
}
