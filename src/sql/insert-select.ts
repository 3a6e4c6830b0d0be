import type { ColumnDef, Precision } from '../storage/td-types.js'
import type { InsertTarget } from './ast.js'
import { TD, TdError, tableNotExist } from '../td-error.js'
import type { ExecEnv } from './exec-env.js'
import type { SqlContext } from './result.js'
import { runSelect } from './select/run-select.js'
import type { Span, ValueExpr } from './value-expr.js'
import { requireWritable, resolveDb } from './ddl.js'

/**
 * INSERT INTO tb [(cols)] subquery (TDengine 3): into a child or normal table, or into a super
 * table whose column list names `tbname` (missing children are created with the tag values of
 * their first row, as the VALUES form does). The query's rows stream in chunks; each chunk goes
 * through the ordinary INSERT path as literal values, so types convert exactly as INSERT ...
 * VALUES converts them. Affected rows: rows written.
 */

/** rows per write: bounded memory however large the query */
const ROWS_PER_WRITE = 4096

const TICKS_PER_SECOND: Record<Precision, bigint> = { ms: 1000n, us: 1000000n, ns: 1000000000n }
const NO_SPAN: Span = { start: 0, end: 0 }

type InsertFn = (targets: InsertTarget[], sql: string, ctx: SqlContext, env: ExecEnv) => Promise<number>

/** the target's columns in the order the query's columns fill them */
function targetColumns(target: InsertTarget, ctx: SqlContext, env: ExecEnv): { cols: ColumnDef[]; precision: Precision } {
  const db = resolveDb(target.table.db, ctx)
  const info = requireWritable(env.catalog, db, ctx)
  const table = env.catalog.getTable(db, target.table.name)
  const st = table === undefined ? env.catalog.getStable(db, target.table.name) : table.stable !== undefined ? env.catalog.getStable(db, table.stable) : undefined
  if (table === undefined && st === undefined) {
    throw tableNotExist(target.table.name)
  }
  const all = table?.kind === 'normal' ? (table.columns ?? []) : (st?.columns ?? [])
  if (target.columns === undefined) {
    return { cols: all, precision: info.precision }
  }
  const named = [...all, ...(table === undefined ? (st?.tags ?? []) : []), { name: 'tbname', type: 'VARCHAR', length: 192 } as ColumnDef]
  const cols = target.columns.map(({ name }) => {
    const c = named.find((x) => x.name === name)
    if (c === undefined) {
      throw new TdError(TD.PAR_INVALID_COLUMN, `Invalid column name: ${name}`)
    }
    return c
  })
  return { cols, precision: info.precision }
}

/** one result value as the literal INSERT would have read */
function literal(v: unknown, col: ColumnDef, timestamp: boolean, from: Precision, to: Precision): ValueExpr {
  if (v === null || v === undefined) {
    return { kind: 'null', span: NO_SPAN }
  }
  if (typeof v === 'boolean') {
    return { kind: 'bool', value: v, span: NO_SPAN }
  }
  if (typeof v === 'bigint' && timestamp && col.type === 'TIMESTAMP' && from !== to) {
    // ticks of the query's precision into the target database's
    const f = TICKS_PER_SECOND[from]
    const t = TICKS_PER_SECOND[to]
    return { kind: 'number', text: String(t > f ? v * (t / f) : v / (f / t)), span: NO_SPAN }
  }
  if (typeof v === 'number' || typeof v === 'bigint') {
    return { kind: 'number', text: String(v), span: NO_SPAN }
  }
  if (typeof v === 'string') {
    return { kind: 'string', value: v, span: NO_SPAN }
  }
  return { kind: 'string', value: JSON.stringify(v), span: NO_SPAN }
}

export async function executeInsertSelect(target: InsertTarget, sql: string, ctx: SqlContext, env: ExecEnv, insert: InsertFn): Promise<number> {
  const select = target.select
  if (select === undefined) {
    return 0
  }
  const { cols, precision } = targetColumns(target, ctx, env)
  const res = await runSelect(select, { storage: env.storage, ctx, now: env.now })
  if (res.kind !== 'rows') {
    return 0
  }
  if (res.columns.length !== cols.length) {
    throw new TdError(TD.PAR_INVALID_COLUMNS_NUM, 'Illegal number of columns')
  }
  const isTs = res.columns.map((c) => c.type === 'TIMESTAMP')
  let pending: ValueExpr[][] = []
  let written = 0
  const flush = async (): Promise<void> => {
    if (pending.length > 0) {
      const rows = pending
      pending = []
      written += await insert([{ table: target.table, ...(target.columns ? { columns: target.columns } : {}), rows }], sql, ctx, env)
    }
  }
  for await (const chunk of res.rows) {
    for (const row of chunk) {
      pending.push(row.map((v, i) => literal(v, cols[i], isTs[i], res.precision, precision)))
      if (pending.length >= ROWS_PER_WRITE) {
        await flush()
      }
    }
  }
  await flush()
  return written
}
