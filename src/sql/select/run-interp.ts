import { TD, TdError } from '../../td-error.js'
import type { ColumnMeta, SqlResult } from '../result.js'
import { nowTicks } from '../time.js'
import type { Expr, InterpClause, InterpFillMode, SelectItem, SelectStmt } from './ast.js'
import { children, constValue, exprKey } from './expr-walk.js'
import { MAX_FILL_ROWS } from './fill-windows.js'
import type { SelectPlan } from './select-plan.js'
import { timeConst } from './time-range.js'
import { durationToTicks } from './window.js'

/**
 * INTERP(expr) with RANGE(start[, end]) EVERY(dur) FILL(mode): the rows are read in time order
 * per partition (one backend query planned as an ordinary SELECT of the partition keys, the
 * timestamp and INTERP's arguments), and each time point between start and end is answered from
 * the row at it or the rows on either side, walking both in step: memory stays one row.
 */

/** What each output column is. */
type Slot = { kind: 'irowts' } | { kind: 'isfilled' } | { kind: 'interp'; arg: number } | { kind: 'key'; key: number } | { kind: 'const'; value: unknown }

const invalid = (): TdError => new TdError(TD.PAR_INVALID_INTERP_CLAUSE, 'Invalid interp clause')

export function isInterp(stmt: SelectStmt): boolean {
  const has = (e: Expr): boolean => (e.kind === 'call' && e.name === 'interp') || children(e).some(has)
  return stmt.interp !== undefined || stmt.items.some((i) => has(i.expr))
}

function slotOf(item: SelectItem, stmt: SelectStmt, args: Expr[]): Slot {
  const e = item.expr
  if (e.kind === 'col' && e.name === '_irowts') {
    return { kind: 'irowts' }
  }
  if (e.kind === 'col' && e.name === '_isfilled') {
    return { kind: 'isfilled' }
  }
  if (e.kind === 'call' && e.name === 'interp') {
    if (e.args.length < 1 || e.args.length > 2) {
      throw new TdError(TD.FUNC_FUNTION_PARA_NUM, 'Invalid number of parameters : interp')
    }
    if (e.args.length === 2 && !(e.args[1].kind === 'num' && e.args[1].text === '0')) {
      throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "interp" (ignore_null_values = 1 is not supported)')
    }
    args.push(e.args[0])
    return { kind: 'interp', arg: args.length - 1 }
  }
  const key = stmt.partitionBy.findIndex((p) => exprKey(p) === exprKey(e))
  if (key >= 0) {
    return { kind: 'key', key }
  }
  if (['num', 'str', 'bool', 'null'].includes(e.kind)) {
    return { kind: 'const', value: constValue(e) }
  }
  throw new TdError(TD.PAR_NOT_ALLOWED_FUNC, 'Function(s) only allowed in SELECT list, cannot mixed with non scalar functions or columns')
}

/** Checks the clause TDengine requires: RANGE, EVERY with a two-point range, FILL. */
function checkClause(stmt: SelectStmt): InterpClause & { fill: NonNullable<InterpClause['fill']> } {
  const cl = stmt.interp
  if (cl === undefined || cl.range.length === 0 || cl.fill === undefined) {
    throw invalid()
  }
  if (cl.range.length === 2 && cl.every === undefined) {
    throw invalid()
  }
  if (stmt.window !== undefined || stmt.rowWindow !== undefined || stmt.groupBy.length > 0 || stmt.having !== undefined || stmt.distinct) {
    throw invalid()
  }
  const ordered = stmt.orderBy.every((o) => o.expr.kind === 'col' && o.expr.name === '_irowts' && !o.desc)
  if (!ordered) {
    throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "order by" (INTERP results come in _irowts order)')
  }
  return { ...cl, fill: cl.fill }
}

export async function runInterp(
  stmt: SelectStmt,
  plan: (inner: SelectStmt) => SelectPlan,
  stream: (sql: string) => AsyncIterable<unknown[][]>,
  nowMs: number,
): Promise<SqlResult> {
  const cl = checkClause(stmt)
  if (!stmt.items.some((i) => i.expr.kind === 'call' && i.expr.name === 'interp')) {
    throw invalid()
  }
  const args: Expr[] = []
  const slots = stmt.items.map((i) => slotOf(i, stmt, args))
  if (args.length === 0) {
    throw invalid()
  }
  const nKeys = stmt.partitionBy.length
  // the rows: partition keys, the primary timestamp, INTERP's arguments, in (keys, ts) order
  const inner: SelectStmt = {
    kind: 'select',
    distinct: false,
    items: [...stmt.partitionBy, { kind: 'col', name: '_rowts' } as Expr, ...args].map((expr, i) => ({ expr, text: `x${i}` })),
    partitionBy: [],
    groupBy: [],
    orderBy: [...stmt.partitionBy, { kind: 'col', name: '_rowts' } as Expr].map((expr) => ({ expr, desc: false })),
  }
  if (stmt.from !== undefined) {
    inner.from = stmt.from
  }
  if (stmt.where !== undefined) {
    inner.where = stmt.where
  }
  const p = plan(inner)
  const clock = { precision: p.precision, now: nowTicks(p.precision, nowMs) }
  const start = timeConst(cl.range[0], clock)
  const end = cl.range.length === 2 ? timeConst(cl.range[1], clock) : start
  if (start === undefined || end === undefined || end < start) {
    throw invalid()
  }
  let every = 1n
  if (cl.every !== undefined) {
    if (cl.every.unit === 'n' || cl.every.unit === 'y') {
      throw invalid()
    }
    every = durationToTicks(cl.every, p.precision)
    if (every <= 0n) {
      throw invalid()
    }
  }
  if ((end - start) / every + 1n > MAX_FILL_ROWS) {
    throw new TdError(TD.PAR_INVALID_FILL_TIME_RANGE, 'Start(end) time of query range required or time range too large')
  }
  const argCols = args.map((_a, i) => nKeys + 1 + i)
  const fillValues = argCols.map((col, i) => {
    const v = cl.fill.values[i]
    return v === undefined ? null : p.convert[col](constValue(v))
  })
  const columns = stmt.items.map((item, i): ColumnMeta => {
    const name = item.alias ?? item.text
    const s = slots[i]
    switch (s.kind) {
      case 'irowts':
        return { name, type: 'TIMESTAMP', length: 8 }
      case 'isfilled':
        return { name, type: 'BOOL', length: 1 }
      case 'interp':
        return { ...p.columns[argCols[s.arg]], name }
      case 'key':
        return { ...p.columns[s.key], name }
      case 'const':
        return { name, type: typeof s.value === 'string' ? 'VARCHAR' : typeof s.value === 'boolean' ? 'BOOL' : typeof s.value === 'number' ? 'DOUBLE' : 'BIGINT', length: typeof s.value === 'string' ? Buffer.byteLength(s.value) : 8 }
    }
  })
  const walk: Walk = { slots, argCols, nKeys, fill: cl.fill.mode, fillValues, start, end, every, convert: p.convert }
  const rows = interpRows(converted(stream(p.sql), p), walk, stmt.limit)
  return { kind: 'rows', columns, precision: p.precision, rows }
}

async function* converted(src: AsyncIterable<unknown[][]>, p: SelectPlan): AsyncIterable<unknown[][]> {
  for await (const chunk of src) {
    for (const row of chunk) {
      for (let i = 0; i < p.convert.length; i++) {
        row[i] = p.convert[i](row[i])
      }
    }
    yield chunk
  }
}

interface Walk {
  slots: Slot[]
  argCols: number[]
  nKeys: number
  fill: InterpFillMode
  fillValues: unknown[]
  start: bigint
  end: bigint
  every: bigint
  convert: ((v: unknown) => unknown)[]
}

function toNum(v: unknown): number | undefined {
  return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined
}

/** the value of argument column `col` at point t, from the rows around it; undefined: no output at t */
function valueAt(w: Walk, col: number, t: bigint, prev: unknown[] | undefined, next: unknown[] | undefined, ts: number): unknown {
  switch (w.fill) {
    case 'null':
      return null
    case 'value':
      return w.fillValues[w.argCols.indexOf(col)]
    case 'prev':
      return prev === undefined ? undefined : prev[col]
    case 'next':
      return next === undefined ? undefined : next[col]
    case 'near': {
      if (prev === undefined || next === undefined) {
        return (prev ?? next)?.[col]
      }
      // equal distances take the previous row
      return t - (prev[ts] as bigint) <= (next[ts] as bigint) - t ? prev[col] : next[col]
    }
    case 'linear': {
      if (prev === undefined || next === undefined) {
        return undefined
      }
      const a = toNum(prev[col])
      const b = toNum(next[col])
      if (a === undefined || b === undefined) {
        return null
      }
      const ta = prev[ts] as bigint
      const tb = next[ts] as bigint
      return w.convert[col](a + ((b - a) * Number(t - ta)) / Number(tb - ta))
    }
  }
}

async function* interpRows(src: AsyncIterable<unknown[][]>, w: Walk, limit: SelectStmt['limit']): AsyncIterable<unknown[][]> {
  const ts = w.nKeys
  let out: unknown[][] = []
  let key: string | undefined
  let point = w.start
  let prev: unknown[] | undefined
  let seen = 0
  const emit = (t: bigint, row: unknown[], filled: boolean, values: unknown[]): void => {
    seen++
    if (limit !== undefined && (seen <= limit.offset || seen > limit.offset + limit.limit)) {
      return
    }
    out.push(
      w.slots.map((s) => {
        switch (s.kind) {
          case 'irowts':
            return t
          case 'isfilled':
            return filled
          case 'interp':
            return values[s.arg]
          case 'key':
            return row[s.key]
          case 'const':
            return s.value
        }
      }),
    )
  }
  // the points before `next` (or all that remain when next is undefined), from the rows around them
  const fillUntil = (next: unknown[] | undefined, row: unknown[]): void => {
    const stop = next === undefined ? w.end + 1n : (next[ts] as bigint)
    while (point <= w.end && point < stop) {
      const values = w.argCols.map((col) => valueAt(w, col, point, prev, next, ts))
      if (!values.includes(undefined)) {
        emit(point, row, true, values)
      }
      point += w.every
    }
  }
  for await (const chunk of src) {
    for (const row of chunk) {
      const k = JSON.stringify(row.slice(0, w.nKeys), (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))
      if (k !== key) {
        if (prev !== undefined) {
          fillUntil(undefined, prev)
        }
        key = k
        point = w.start
        prev = undefined
      }
      const t = row[ts] as bigint
      fillUntil(row, row)
      if (point === t && point <= w.end) {
        emit(point, row, false, w.argCols.map((col) => row[col]))
        point += w.every
      }
      prev = row
    }
    if (out.length > 0) {
      yield out
      out = []
    }
  }
  if (prev !== undefined) {
    fillUntil(undefined, prev)
  }
  if (out.length > 0) {
    yield out
  }
}
