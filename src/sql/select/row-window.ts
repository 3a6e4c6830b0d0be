import { TD, TdError } from '../../td-error.js'
import type { Expr } from './ast.js'
import type { CompileCtx } from './compile-context.js'
import { compile } from './compile-expr.js'
import { exprKey } from './expr-walk.js'
import type { Scan } from './plan-scan.js'
import type { QueryShape } from './query-shape.js'
import type { SqlWriter } from './sql-writer.js'
import { durationToTicks } from './window.js'

/**
 * SESSION, STATE_WINDOW, EVENT_WINDOW and COUNT_WINDOW: windows cut from the rows in time order
 * (per partition; a super table without PARTITION BY is one timeline). Each is a window number
 * `__w` computed with window functions in levels wrapped around the scan `b`; the query then
 * groups by it like an INTERVAL window, with `_wstart`/`_wend` the window's first and last ts.
 */

const STATE_TYPES = new Set([
  'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'TINYINT UNSIGNED', 'SMALLINT UNSIGNED', 'INT UNSIGNED', 'BIGINT UNSIGNED',
  'BOOL', 'VARCHAR', 'BINARY', 'NCHAR',
])

function mainCtx(scan: Scan): CompileCtx {
  const ctx: CompileCtx = { ...scan.whereCtx, scope: scan.mainScope, level: 'main' }
  delete ctx.tid
  return ctx
}

function tsRef(shape: QueryShape, scan: Scan): string {
  const ts = shape.src?.ts === undefined ? undefined : scan.mainScope.get(shape.src.ts)?.sql
  if (ts === undefined) {
    throw new TdError(TD.PAR_NOT_ALLOWED_WIN_QUERY, 'Window query not supported, since no valid timestamp column included in the result of subquery')
  }
  return ts
}

/** The scan wrapped in the levels that number each row's window (`__w`); rows outside any window are dropped. */
export function rowWindowScan(shape: QueryShape, scan: Scan, w: SqlWriter): string {
  const rw = shape.stmt.rowWindow
  if (rw === undefined || scan.sql === undefined) {
    throw new TdError(TD.PAR_INTERNAL_ERROR, 'Parser internal error')
  }
  const ctx = mainCtx(scan)
  const ts = tsRef(shape, scan)
  const src = shape.src
  const part = shape.stmt.partitionBy.map((g) => compile(g, ctx).sql)
  // a super table read as one timeline: equal timestamps of two children in a stable order
  const tie = (dir: string): string => (src?.tidRaw !== undefined && part.length === 0 ? `, b.${w.q('__tid')} ${dir}` : '')
  const by = (extra: string[] = []): string => {
    const keys = [...part, ...extra]
    return keys.length > 0 ? `PARTITION BY ${keys.join(', ')} ` : ''
  }
  const asc = `OVER (${by()}ORDER BY ${ts} ASC${tie('ASC')})`
  const running = `OVER (${by()}ORDER BY ${ts} ASC${tie('ASC')} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`
  const level = (inner: string, cols: string[], tail = ''): string => `SELECT b.*, ${cols.join(', ')} FROM (${inner}) AS b${tail}`
  const col = (name: string): string => `b.${w.q(name)}`
  const q = (name: string): string => w.q(name)
  switch (rw.kind) {
    case 'session': {
      if (rw.col.kind !== 'col' || (rw.col.name !== src?.ts && rw.col.name !== '_rowts' && rw.col.name !== '_c0')) {
        throw new TdError(TD.PAR_INTER_SESSION_COL, 'Only support SESSION on primary timestamp column')
      }
      if (rw.tol.unit === 'n' || rw.tol.unit === 'y' || rw.tol.value <= 0) {
        throw new TdError(TD.PAR_INTER_SESSION_GAP, 'SESSION gap should be fixed time window, and greater than 0')
      }
      const tol = durationToTicks(rw.tol, shape.precision)
      // a new session where the gap to the previous row exceeds tol (the first row's gap is NULL)
      const l1 = level(scan.sql, [`CASE WHEN ${ts} - lag(${ts}) ${asc} <= ${tol} THEN 0 ELSE 1 END AS ${q('__f')}`])
      return level(l1, [`sum(${col('__f')}) ${running} AS ${q('__w')}`])
    }
    case 'state': {
      if (src?.kind === 'stable' && part.length === 0) {
        throw new TdError(TD.PAR_INVALID_STATE_WIN_TABLE, 'STATE_WINDOW not support for super table query')
      }
      const e = rw.expr
      if (e.kind === 'col' && (e.name === 'tbname' || src?.cols.some((c) => c.tag && c.name === e.name))) {
        throw new TdError(TD.PAR_INVALID_STATE_WIN_COL, 'Not support STATE_WINDOW on tag column')
      }
      const s = compile(e, ctx)
      if (!STATE_TYPES.has(s.type.type)) {
        throw new TdError(TD.PAR_INVALID_STATE_WIN_TYPE, 'Only support STATE_WINDOW on integer/bool/varchar column')
      }
      // booleans as 0/1: PostgreSQL has no max(boolean)
      const sv = s.type.type === 'BOOL' ? `CASE WHEN ${s.sql} THEN 1 WHEN NOT ${s.sql} THEN 0 END` : s.sql
      if (neverNull(e)) {
        // a CASE of constants is never NULL: a window starts wherever the state changes
        const f1 = level(scan.sql, [`${sv} AS ${q('__s')}`])
        const f2 = level(f1, [`CASE WHEN lag(${col('__s')}) ${asc} = ${col('__s')} THEN 0 ELSE 1 END AS ${q('__f')}`])
        return level(f2, [`sum(${col('__f')}) ${running} AS ${q('__w')}`])
      }
      const desc = `OVER (${by()}ORDER BY ${ts} DESC${tie('DESC')} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`
      // a NULL state belongs to the window around it when the states on both sides are equal, and
      // leading (trailing) NULLs to the first (last) window: the previous and next non-NULL states
      // are found by counting non-NULL states from either end
      const l1 = level(scan.sql, [`${sv} AS ${q('__s')}`])
      const l2 = level(l1, [`count(${col('__s')}) ${running} AS ${q('__c1')}`, `count(${col('__s')}) ${desc} AS ${q('__c2')}`])
      const l3 = level(l2, [
        `max(${col('__s')}) OVER (${by([col('__c1')])}) AS ${q('__ps')}`,
        `max(${col('__s')}) OVER (${by([col('__c2')])}) AS ${q('__ns')}`,
      ])
      const lagPs = `lag(${col('__ps')}) ${asc}`
      const l4 = level(l3, [
        `CASE WHEN ${col('__ps')} IS NOT NULL AND (${lagPs} IS NULL OR ${lagPs} <> ${col('__ps')}) THEN 1 ELSE 0 END AS ${q('__f')}`,
      ])
      const keep =
        `(${col('__ps')} IS NOT NULL OR ${col('__ns')} IS NOT NULL) AND ` +
        `(${col('__s')} IS NOT NULL OR ${col('__ps')} IS NULL OR ${col('__ns')} IS NULL OR ${col('__ps')} = ${col('__ns')})`
      // leading NULLs count 0 windows so far: they join window 1
      const l5 = level(l4, [`sum(${col('__f')}) ${running} AS ${q('__n')}`])
      return `SELECT b.*, CASE WHEN ${col('__n')} < 1 THEN 1 ELSE ${col('__n')} END AS ${q('__w')} FROM (${l5}) AS b WHERE ${keep}`
    }
    case 'event': {
      const start = compile(rw.start, ctx).sql
      const end = compile(rw.end, ctx).sql
      // segments end at each row meeting the end condition; a window opens at the segment's
      // first row meeting the start condition and closes at the segment's end row (none: unclosed)
      const l1 = level(scan.sql, [
        `CASE WHEN ${start} THEN 1 ELSE 0 END AS ${q('__st')}`,
        `CASE WHEN ${end} THEN 1 ELSE 0 END AS ${q('__en')}`,
        `row_number() ${asc} AS ${q('__rn')}`,
      ])
      const l2 = level(l1, [`sum(${col('__en')}) ${running} - ${col('__en')} AS ${q('__w')}`])
      const l3 = level(l2, [
        `min(CASE WHEN ${col('__st')} = 1 THEN ${col('__rn')} END) OVER (${by([col('__w')])}) AS ${q('__fs')}`,
        `max(${col('__en')}) OVER (${by([col('__w')])}) AS ${q('__he')}`,
      ])
      return `SELECT b.* FROM (${l3}) AS b WHERE ${col('__rn')} >= ${col('__fs')} AND ${col('__he')} = 1`
    }
    case 'count': {
      const n = rw.count
      const m = rw.sliding ?? n
      if (n < 2 || n > 2147483647 || m < 1 || m > n) {
        throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "count_window" (count_val must be in [2, 2147483647] and sliding_val in [1, count_val])')
      }
      const l1 = level(scan.sql, [`row_number() ${asc} - 1 AS ${q('__rn')}`])
      const quot = (a: string, b: number): string => w.dialect.quotient(a, String(b))
      if (m === n) {
        return level(l1, [`${quot(col('__rn'), n)} AS ${q('__w')}`])
      }
      // overlapping windows: a row is in window k (starting at row k*m) while rn < k*m + n
      const extra = Math.ceil(n / m) - 1
      const js = Array.from({ length: extra + 1 }, (_v, j) => `(${j})`).join(', ')
      const k = `(${quot(col('__rn'), m)} - cw.j)`
      return level(l1, [`${k} AS ${q('__w')}`], ` CROSS JOIN (VALUES ${js}) AS cw(j) WHERE ${k} >= 0 AND ${col('__rn')} < ${k} * ${m} + ${n}`)
    }
  }
}

/** a constant that is not NULL, or a CASE with an ELSE whose every branch is one */
function neverNull(e: Expr): boolean {
  if (e.kind === 'num' || e.kind === 'str' || e.kind === 'bool') {
    return true
  }
  if (e.kind === 'case') {
    return e.else !== undefined && neverNull(e.else) && e.whens.every((w) => neverNull(w.then))
  }
  return false
}

/** `_wstart` and `_wend` of a row window: its first and last row's timestamp. */
export function rowWindowBounds(shape: QueryShape, scan: Scan): { start: string; end: string } {
  const ts = tsRef(shape, scan)
  return { start: `min(${ts})`, end: `max(${ts})` }
}

/** STATE_WINDOW's expression selected beside it is the window's state. */
export function rowWindowKeys(shape: QueryShape, ctx: CompileCtx, keys: Map<string, string>): void {
  const rw = shape.stmt.rowWindow
  if (rw?.kind !== 'state') {
    return
  }
  const e: Expr = rw.expr
  const plain: CompileCtx = { ...ctx, inAgg: true }
  delete plain.agg
  const s = compile(e, plain)
  const v = `min(b.${ctx.sql.q('__s')})`
  keys.set(exprKey(e), s.type.type === 'BOOL' ? `(${v} = 1)` : v)
}
