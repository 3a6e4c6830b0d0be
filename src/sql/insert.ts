import type { ColumnDef, DatabaseInfo, StableInfo, TagValue } from '../storage/td-types.js'
import type { RowBatch } from '../storage/types.js'
import type { InsertTarget } from './ast.js'
import { TD, TdError, tableNotExist } from '../td-error.js'
import type { ExecEnv } from './exec-env.js'
import { insertRows } from './parse-insert.js'
import { insertError } from './parse-values.js'
import { plainValueExpr, type PlainTuples } from './plain-tuples.js'
import type { SqlContext } from './result.js'
import type { Span, ValueExpr } from './value-expr.js'
import { checkIdentifier } from './check-identifier.js'
import { convertOrThrow, requireWritable, resolveDb, usingTags } from './ddl.js'
import { convertTag, NOT_PLAIN, plainNumberReader, timestampRange, ValueError, valueConverter, type ValueContext } from './types.js'

/**
 * INSERT (sql-dialect.md section 3). Every value is converted first (a bad value aborts the whole
 * statement before anything is written), then missing children named by `USING ... TAGS` or the
 * supertable syntax are auto-created, then all rows go to storage in ONE `engine.writeRows` call
 * (the bulk path: DuckDB appender / PostgreSQL COPY, overwrite on the same timestamp).
 * Affected rows = rows sent.
 */

const CODE_TBNAME_NOT_SET = 9853

interface PendingChild {
  db: string
  name: string
  stable: string
  tags: Record<string, TagValue>
  batches: RowBatch[]
}

interface Plan {
  batches: RowBatch[]
  /** children to create before writing, keyed by `db.name` */
  pending: Map<string, PendingChild>
}

/** the target columns of a row: the explicit list (checked) or every data column */
function targetColumns(sql: string, all: ColumnDef[], list: { name: string; span: Span }[] | undefined): ColumnDef[] {
  if (list === undefined) {
    return all
  }
  const seen = new Set<string>()
  const cols = list.map(({ name, span }) => {
    const c = all.find((x) => x.name === name)
    if (c === undefined) {
      throw new TdError(TD.PAR_INVALID_COLUMN, `Invalid column name: ${name}`)
    }
    if (seen.has(name)) {
      throw insertError(sql, span.start, 'duplicated column name')
    }
    seen.add(name)
    return c
  })
  if (cols.length === 0 || cols[0] !== all[0]) {
    // the primary timestamp must be given, and first, so rows stay keyed by it
    if (!cols.includes(all[0])) {
      throw insertError(sql, list[0]?.span.start ?? 0, 'primary timestamp column can not be null')
    }
  }
  return cols
}

/**
 * Converts the rows of one target: the lexer's plain tuples (read from the text, see
 * convertPlain), then the parsed ones. Every value is converted before anything is written.
 */
export function convertRows(
  sql: string,
  plain: PlainTuples | undefined,
  rows: ValueExpr[][],
  cols: ColumnDef[],
  cx: ValueContext,
  range: [bigint, bigint],
  firstName: string,
): unknown[][] {
  const tsIndex = cols.findIndex((c) => c.name === firstName)
  const converters = cols.map((c) => valueConverter(c, cx))
  if (plain === undefined) {
    return convertExprs(sql, rows, converters, tsIndex, range, [])
  }
  const out = convertPlain(plain, cols, converters, tsIndex, range)
  if (out === undefined) {
    // a row to refuse: the ordinary path finds the same row and reports it with its position
    return convertExprs(sql, plain.toValueExprs().concat(rows), converters, tsIndex, range, [])
  }
  return convertExprs(sql, rows, converters, tsIndex, range, out)
}

function convertExprs(
  sql: string,
  rows: ValueExpr[][],
  converters: ((v: ValueExpr) => unknown)[],
  tsIndex: number,
  range: [bigint, bigint],
  out: unknown[][],
): unknown[][] {
  const width = converters.length
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]
    if (row.length !== width) {
      throw insertError(sql, row[0]?.span.start ?? 0, 'illegal number of columns')
    }
    const conv = new Array<unknown>(width)
    for (let i = 0; i < width; i++) {
      conv[i] = converters[i](row[i])
    }
    if (tsIndex >= 0) {
      const ts = conv[tsIndex]
      if (ts === null) {
        throw insertError(sql, row[tsIndex].span.start, 'primary timestamp should not be null')
      }
      if ((ts as bigint) < range[0] || (ts as bigint) > range[1]) {
        throw new TdError(TD.TDB_TIMESTAMP_OUT_OF_RANGE, 'Timestamp data out of range')
      }
    }
    out.push(conv)
  }
  return out
}

/**
 * The plain tuples of 10,000-row INSERTs without a ValueExpr per value: number literals go
 * straight from the text to their value (plainNumberReader), other literals through the usual
 * converter. The same rows as convertExprs over toValueExprs(), or undefined at the first row
 * convertExprs would refuse for its shape or timestamp (so that it reports it); a value error is
 * thrown here as it would be there, rows being taken in the same order.
 */
function convertPlain(
  plain: PlainTuples,
  cols: ColumnDef[],
  converters: ((v: ValueExpr) => unknown)[],
  tsIndex: number,
  range: [bigint, bigint],
): unknown[][] | undefined {
  const { sql, starts, ends, tupleStarts } = plain
  const width = cols.length
  const readers = cols.map((c) => plainNumberReader(c))
  const out = new Array<unknown[]>(plain.count)
  for (let r = 0; r < out.length; r++) {
    const first = tupleStarts[r]
    if (tupleStarts[r + 1] - first !== width) {
      return undefined
    }
    const conv = new Array<unknown>(width)
    for (let i = 0; i < width; i++) {
      const k = first + i
      const read = readers[i]
      let v = read === undefined ? NOT_PLAIN : read(sql, starts[k], ends[k])
      if (v === NOT_PLAIN) {
        v = converters[i](plainValueExpr(sql, starts[k], ends[k]))
      }
      conv[i] = v
    }
    if (tsIndex >= 0) {
      const ts = conv[tsIndex]
      if (ts === null || (ts as bigint) < range[0] || (ts as bigint) > range[1]) {
        return undefined
      }
    }
    out[r] = conv
  }
  return out
}

/** Executes an INSERT; returns the number of rows written. */
export async function executeInsert(targets: InsertTarget[], sql: string, ctx: SqlContext, env: ExecEnv): Promise<number> {
  const { catalog } = env
  const nowMs = env.now()
  const plan: Plan = { batches: [], pending: new Map() }
  try {
    for (const target of targets) {
      const db = resolveDb(target.table.db, ctx)
      const dbInfo = requireWritable(catalog, db, ctx)
      const cx: ValueContext = { sql, precision: dbInfo.precision, nowMs }
      const range = timestampRange(dbInfo, nowMs)
      const name = target.table.name
      const table = catalog.getTable(db, name)
      if (table === undefined && target.using === undefined && catalog.getStable(db, name) !== undefined) {
        planSupertableInsert(sql, target, dbInfo, catalog.getStable(db, name) as StableInfo, cx, range, plan, env)
        continue
      }
      let st: StableInfo | undefined
      let tid: number | undefined
      let pending: PendingChild | undefined
      if (table !== undefined) {
        // an existing table: USING ... TAGS is ignored (no tag change), as in TDengine
        if (table.kind === 'child') {
          st = table.stable !== undefined ? catalog.getStable(db, table.stable) : undefined
          tid = table.tid
        }
      } else if (target.using !== undefined) {
        // the spec: every unprefixed name resolves against the URL database only
        const stDb = resolveDb(target.using.stable.db, ctx)
        if (stDb !== db) {
          throw new TdError(TD.PAR_CORRESPONDING_STABLE_ERR, 'Corresponding super table not in this db')
        }
        st = catalog.getStable(db, target.using.stable.name)
        if (st === undefined) {
          throw tableNotExist(target.using.stable.name)
        }
        const key = `${db}.${name}`
        pending = plan.pending.get(key)
        if (pending === undefined) {
          checkIdentifier(name, 192)
          pending = { db, name, stable: st.name, tags: usingTags(sql, st, target.using, cx), batches: [] }
          plan.pending.set(key, pending)
        }
      } else {
        throw tableNotExist(name)
      }
      const all = st ? st.columns : (table?.columns ?? [])
      const cols = targetColumns(sql, all, target.columns)
      const rows = convertRows(sql, target.plain, target.rows, cols, cx, range, all[0].name)
      const batch: RowBatch = { db, table: st ? st.name : name, columns: cols.map((c) => c.name), rows }
      if (tid !== undefined) {
        batch.tid = tid
      }
      pending?.batches.push(batch)
      plan.batches.push(batch)
    }
  } catch (e) {
    if (e instanceof ValueError) {
      throw e.toTdError(sql)
    }
    throw e
  }
  for (const p of plan.pending.values()) {
    const info = await catalog.createChildTable(p.db, p.name, p.stable, p.tags, true)
    for (const b of p.batches) {
      b.tid = info.tid
    }
  }
  const batches = plan.batches.filter((b) => b.rows.length > 0)
  if (batches.length === 0) {
    return 0
  }
  await env.engine.writeRows(batches)
  return batches.reduce((n, b) => n + b.rows.length, 0)
}

/**
 * `INSERT INTO st (tbname, [tags...], cols...) VALUES ('d1', ...)`: rows are grouped by child;
 * a missing child is created with the tag values of its first row.
 */
function planSupertableInsert(
  sql: string,
  target: InsertTarget,
  db: DatabaseInfo,
  st: StableInfo,
  cx: ValueContext,
  range: [bigint, bigint],
  plan: Plan,
  env: ExecEnv,
): void {
  const list = target.columns
  const tbIndex = list?.findIndex((c) => c.name === 'tbname') ?? -1
  if (list === undefined || tbIndex < 0) {
    throw new TdError(CODE_TBNAME_NOT_SET, 'Pseudo tag tbname not set')
  }
  const dataIdx: number[] = []
  const dataCols: ColumnDef[] = []
  const tagIdx: number[] = []
  const tagCols: ColumnDef[] = []
  const seen = new Set<string>()
  list.forEach((c, i) => {
    if (i === tbIndex) {
      return
    }
    if (seen.has(c.name)) {
      throw insertError(sql, c.span.start, 'duplicated column name')
    }
    seen.add(c.name)
    const col = st.columns.find((x) => x.name === c.name)
    if (col !== undefined) {
      dataIdx.push(i)
      dataCols.push(col)
      return
    }
    const tag = st.tags.find((x) => x.name === c.name)
    if (tag !== undefined) {
      tagIdx.push(i)
      tagCols.push(tag)
      return
    }
    throw new TdError(TD.PAR_INVALID_COLUMN, `Invalid column name: ${c.name}`)
  })
  if (!dataCols.includes(st.columns[0])) {
    throw insertError(sql, list[0].span.start, 'primary timestamp column can not be null')
  }
  const byChild = new Map<string, { rows: ValueExpr[][]; first: ValueExpr[] }>()
  for (const row of insertRows(target)) {
    if (row.length !== list.length) {
      throw insertError(sql, row[0]?.span.start ?? 0, 'illegal number of columns')
    }
    const tb = row[tbIndex]
    if (tb.kind !== 'string' || tb.value === '' || tb.value.includes('.') || Buffer.byteLength(tb.value) > 192) {
      throw insertError(sql, tb.span.start, 'invalid table name')
    }
    let g = byChild.get(tb.value)
    if (g === undefined) {
      g = { rows: [], first: row }
      byChild.set(tb.value, g)
    }
    g.rows.push(dataIdx.map((i) => row[i]))
  }
  for (const [child, g] of byChild) {
    const existing = env.catalog.getTable(db.name, child)
    const batch: RowBatch = {
      db: db.name,
      table: st.name,
      columns: dataCols.map((c) => c.name),
      rows: convertRows(sql, undefined, g.rows, dataCols, cx, range, st.columns[0].name),
    }
    if (existing !== undefined) {
      if (existing.kind !== 'child' || existing.stable !== st.name) {
        throw new TdError(TD.PAR_CORRESPONDING_STABLE_ERR, `Table ${child} is not a child table of ${st.name}`)
      }
      batch.tid = existing.tid
    } else {
      const key = `${db.name}.${child}`
      let pending = plan.pending.get(key)
      if (pending === undefined) {
        const tags: Record<string, TagValue> = {}
        tagCols.forEach((t, k) => {
          tags[t.name] = convertOrThrow(sql, () => convertTag(g.first[tagIdx[k]], t, cx))
        })
        pending = { db: db.name, name: child, stable: st.name, tags, batches: [] }
        plan.pending.set(key, pending)
      }
      pending.batches.push(batch)
    }
    plan.batches.push(batch)
  }
}
