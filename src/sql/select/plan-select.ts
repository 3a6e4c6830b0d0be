import type { Catalog } from '../catalog-types.js'
import { dbNotExist, TD, TdError, tableNotExist } from '../../td-error.js'
import type { ColumnMeta, SqlContext } from '../result.js'
import { nowTicks, parseTimestampString, todayTicks } from '../time.js'
import type { Dialect } from '../../storage/dialect.js'
import type { ColumnDef, Precision, TagValue, TdType } from '../../storage/td-types.js'
import type { Expr, OrderItem, SelectItem, SelectStmt } from './ast.js'
import {
  fixed,
  FUNCTIONS,
  isAggregateName,
  isNumeric,
  isSignedInt,
  isUnsignedInt,
  SERVER_VERSION,
  type FuncSpec,
  type TypeInfo,
} from './functions.js'
import {
  alignSql,
  alignStart,
  windowIndex,
  type WindowIndex,
  durationToTicks,
  extraWindows,
  MAX_FILL_ROWS,
  resolveWindow,
  type FillOptions,
  type WindowSpec,
} from './window.js'

/** What the planner needs besides the statement. */
export interface PlanEnv {
  catalog: Catalog
  dialect: Dialect
  ctx: SqlContext
  /** epoch ms of this statement's NOW */
  nowMs: number
  /**
   * false: never aggregate per child before the tag join (see preAggregable); only the
   * differential test turns it off, to compare both plans
   */
  preAggregate?: boolean
  /**
   * false: INTERVAL windows are always grouped by their aligned start, never numbered from a
   * lower time bound (see windowIndex); only the differential test turns it off
   */
  windowNumbers?: boolean
  /** information_schema tables; undefined when not wired */
  systemTable?: (name: string, catalog: Catalog) => { columns: ColumnMeta[]; rows: unknown[][] } | undefined
}

/** A planned SELECT: one backend statement plus how to turn its rows into the result. */
export interface SelectPlan {
  sql: string
  columns: ColumnMeta[]
  precision: Precision
  /** converts a backend value of each visible column into its result.ts form */
  convert: ((v: unknown) => unknown)[]
  /** FILL post-processing over rows ordered by (partition keys, window start) */
  fill?: Omit<FillOptions, 'convert' | 'width'>
}

// ---------------------------------------------------------------------------------------------
// sources

interface SourceCol {
  name: string
  /** SQL text valid inside the base query (over `d`/`t`/`s`) */
  raw: string
  type: TypeInfo
  tag: boolean
}

interface Source {
  kind: 'stable' | 'child' | 'normal' | 'system' | 'subquery'
  cols: SourceCol[]
  /** columns `*` expands to */
  starCols: SourceCol[]
  tbname?: string
  /** name of the primary timestamp column */
  ts?: string
  qualifiers: Set<string>
  precision: Precision
  /** FROM text; `join` = tags or tbname are referenced */
  from(join: boolean): string
  baseWhere: string[]
  /** raw SQL of the per-table order key of super tables */
  tidRaw?: string
  /** super tables: the tag table, joined as `t` */
  tagsTable?: string
  tidOf?: (name: string) => number | undefined
}

const TBNAME_TYPE: TypeInfo = { type: 'VARCHAR', length: 192 }
const INFO_SCHEMA = new Set(['information_schema', 'performance_schema'])

function colType(c: ColumnDef): TypeInfo {
  return { type: c.type, length: c.length }
}

function invalidColumn(name: string): TdError {
  return new TdError(TD.PAR_INVALID_COLUMN, `Invalid column name: ${name}`)
}

class Planner {
  private readonly d: Dialect

  constructor(private readonly env: PlanEnv) {
    this.d = env.dialect
  }

  dialectOf(): Dialect {
    return this.d
  }

  envOf(): PlanEnv {
    return this.env
  }

  private q(name: string): string {
    return this.d.quoteIdent(name)
  }

  physType(type: TdType | 'NULL', length = 0): string {
    return this.d.columnType({ name: '', type: type === 'NULL' ? 'VARCHAR' : type, length })
  }

  /** SQL literal of a JS value of the given type */
  literal(v: unknown, type: TypeInfo): string {
    if (v === null || v === undefined) {
      return type.type === 'NULL' ? 'NULL' : `CAST(NULL AS ${this.physType(type.type, type.length)})`
    }
    if (typeof v === 'boolean') {
      return v ? 'TRUE' : 'FALSE'
    }
    if (typeof v === 'bigint') {
      return `CAST(${v.toString()} AS ${this.physType('BIGINT')})`
    }
    if (typeof v === 'number') {
      if (type.type === 'FLOAT' || type.type === 'DOUBLE' || !Number.isInteger(v)) {
        return `CAST(${String(v)} AS ${this.physType(type.type === 'FLOAT' ? 'FLOAT' : 'DOUBLE')})`
      }
      return `CAST(${String(v)} AS ${this.physType(type.type === 'NULL' ? 'BIGINT' : type.type, type.length)})`
    }
    if (typeof v === 'object') {
      return this.d.quoteString(JSON.stringify(v))
    }
    return this.d.quoteString(String(v))
  }

  resolveSource(stmt: SelectStmt): Source | undefined {
    const from = stmt.from
    if (from === undefined) {
      return undefined
    }
    if (from.kind === 'subquery') {
      const inner = new Planner(this.env).plan(from.select)
      if (inner.fill !== undefined) {
        throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "fill" (FILL is not supported inside a FROM subquery)')
      }
      const cols: SourceCol[] = inner.columns.map((c, i) => ({
        name: c.name,
        raw: `s.${this.q(`o${i}`)}`,
        type: { type: c.type, length: c.length },
        tag: false,
      }))
      const ts = cols.find((c) => c.type.type === 'TIMESTAMP')?.name
      const src: Source = {
        kind: 'subquery',
        cols,
        starCols: cols,
        qualifiers: new Set(from.alias === undefined ? [] : [from.alias]),
        precision: inner.precision,
        from: () => `(${inner.sql}) AS s`,
        baseWhere: [],
      }
      if (ts !== undefined) {
        src.ts = ts
      }
      return src
    }
    const dbName = from.db ?? this.env.ctx.defaultDb
    if (dbName === undefined) {
      throw new TdError(TD.PAR_DB_NOT_SPECIFIED, 'Database not specified')
    }
    const qualifiers = new Set([from.name, ...(from.alias === undefined ? [] : [from.alias])])
    if (INFO_SCHEMA.has(dbName)) {
      const sys = this.env.systemTable?.(from.name, this.env.catalog)
      if (sys === undefined) {
        throw tableNotExist(from.name)
      }
      return this.systemSource(sys, qualifiers)
    }
    const db = this.env.catalog.getDatabase(dbName)
    if (db === undefined) {
      throw dbNotExist(dbName)
    }
    const schema = this.q(this.d.schemaName(db.name))
    const st = this.env.catalog.getStable(db.name, from.name)
    if (st !== undefined) {
      const data = st.columns.map((c) => ({ name: c.name, raw: `d.${this.q(c.name)}`, type: colType(c), tag: false }))
      const tags = st.tags.map((c) => ({ name: c.name, raw: `t.${this.q(c.name)}`, type: colType(c), tag: true }))
      return {
        kind: 'stable',
        cols: [...data, ...tags],
        starCols: [...data, ...tags],
        tbname: `t.${this.q('tbname')}`,
        ts: st.columns[0].name,
        qualifiers,
        precision: db.precision,
        from: (join) =>
          `${schema}.${this.q(st.name)} AS d` +
          (join ? ` JOIN ${schema}.${this.q(`${st.name}$tags`)} AS t ON d.${this.q('_tid')} = t.${this.q('_tid')}` : ''),
        baseWhere: [],
        tidRaw: `d.${this.q('_tid')}`,
        tagsTable: `${schema}.${this.q(`${st.name}$tags`)}`,
        tidOf: (name) => {
          const child = this.env.catalog.getTable(db.name, name)
          return child?.kind === 'child' && child.stable === st.name ? child.tid : undefined
        },
      }
    }
    const tb = this.env.catalog.getTable(db.name, from.name)
    if (tb === undefined) {
      throw tableNotExist(from.name)
    }
    if (tb.kind === 'child') {
      const parent = tb.stable === undefined ? undefined : this.env.catalog.getStable(db.name, tb.stable)
      if (parent === undefined) {
        throw tableNotExist(from.name)
      }
      const data = parent.columns.map((c) => ({ name: c.name, raw: `d.${this.q(c.name)}`, type: colType(c), tag: false }))
      // a child's tags are constants of the statement: no join needed
      const tags = parent.tags.map((c) => ({
        name: c.name,
        raw: this.tagLiteral(tb.tags?.[c.name] ?? null, c),
        type: colType(c),
        tag: true,
      }))
      return {
        kind: 'child',
        cols: [...data, ...tags],
        starCols: data,
        tbname: this.d.quoteString(tb.name),
        ts: parent.columns[0].name,
        qualifiers,
        precision: db.precision,
        from: () => `${schema}.${this.q(parent.name)} AS d`,
        baseWhere: [`d.${this.q('_tid')} = ${tb.tid}`],
      }
    }
    const columns = tb.columns ?? []
    const data = columns.map((c) => ({ name: c.name, raw: `d.${this.q(c.name)}`, type: colType(c), tag: false }))
    const src: Source = {
      kind: 'normal',
      cols: data,
      starCols: data,
      tbname: this.d.quoteString(tb.name),
      qualifiers,
      precision: db.precision,
      from: () => `${schema}.${this.q(tb.name)} AS d`,
      baseWhere: [],
    }
    if (columns.length > 0) {
      src.ts = columns[0].name
    }
    return src
  }

  private tagLiteral(v: TagValue, c: ColumnDef): string {
    if (c.type === 'JSON') {
      return v === null ? this.literal(null, colType(c)) : this.d.quoteString(typeof v === 'string' ? v : JSON.stringify(v))
    }
    return this.literal(v, colType(c))
  }

  private systemSource(sys: { columns: ColumnMeta[]; rows: unknown[][] }, qualifiers: Set<string>): Source {
    const names = sys.columns.map((_c, i) => this.q(`c${i}`)).join(', ')
    const types = sys.columns.map((c) => ({ type: c.type, length: c.length }))
    const rowSql = (row: unknown[]): string =>
      `(${row.map((v, i) => this.literal(typeof v === 'object' && v !== null ? JSON.stringify(v) : v, types[i])).join(', ')})`
    // the first row carries explicit casts so every column gets its declared type
    const typedNulls = `(${types.map((t) => this.literal(null, t.type === 'NULL' ? fixed('VARCHAR') : t)).join(', ')})`
    const values = [typedNulls, ...sys.rows.map(rowSql)].join(', ')
    const cols = sys.columns.map((c, i) => ({ name: c.name, raw: `s.${this.q(`c${i}`)}`, type: types[i], tag: false }))
    return {
      kind: 'system',
      cols,
      starCols: cols,
      qualifiers,
      precision: 'ms',
      // the typed-NULL row only fixes the column types; it is filtered out again
      from: () => `(SELECT * FROM (VALUES ${values}) AS v(${names}) OFFSET 1) AS s`,
      baseWhere: [],
    }
  }

  // -------------------------------------------------------------------------------------------
  // planning

  plan(stmt: SelectStmt): SelectPlan {
    const src = this.resolveSource(stmt)
    const precision: Precision = src?.precision ?? 'ms'
    const now = nowTicks(precision, this.env.nowMs)
    const items = this.expandItems(stmt.items, src)
    const refs = collectRefs(stmt)
    const window = stmt.window === undefined ? undefined : resolveWindow(stmt.window, precision)
    if (window !== undefined && src?.ts === undefined) {
      throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "interval" (window query needs a timestamp column)')
    }

    // base query: source columns under positional aliases, window start, tid
    const baseCols: string[] = []
    const mainScope = new Map<string, Ref>()
    const whereScope = new Map<string, Ref>()
    const needJoin = src !== undefined && src.kind === 'stable' && (refs.star || refs.names.has('tbname') || src.cols.some((c) => c.tag && refs.names.has(c.name)))
    const hasAgg = items.some((i) => containsAgg(i.expr)) || (stmt.having !== undefined && containsAgg(stmt.having))
    const aggregated = hasAgg || window !== undefined || stmt.groupBy.length > 0
    const groupExprs = [...stmt.partitionBy, ...stmt.groupBy.map((g) => resolvePositional(g, items))]
    // tags and tbname are joined after the per-child aggregation, in `joined` below
    const pre =
      needJoin && aggregated && this.env.preAggregate !== false && src !== undefined && preAggregable(stmt, items, src, window, groupExprs, refs.star)
    /** the tag join's columns under their `b` aliases (pre-aggregation only) */
    const tagCols: string[] = []
    if (src !== undefined) {
      src.cols.forEach((c, i) => {
        if (c.tag && src.kind === 'stable' && !needJoin) {
          return
        }
        ;(pre && c.tag ? tagCols : baseCols).push(`${c.raw} AS ${this.q(`c${i}`)}`)
        mainScope.set(c.name, { sql: `b.${this.q(`c${i}`)}`, type: c.type, ts: c.name === src.ts })
        whereScope.set(c.name, { sql: c.raw, type: c.type, ts: c.name === src.ts })
      })
      if (src.tbname !== undefined && !mainScope.has('tbname') && (src.kind !== 'stable' || needJoin)) {
        ;(pre ? tagCols : baseCols).push(`${src.tbname} AS ${this.q('tbname')}`)
        mainScope.set('tbname', { sql: `b.${this.q('tbname')}`, type: TBNAME_TYPE, ts: false })
        whereScope.set('tbname', { sql: src.tbname, type: TBNAME_TYPE, ts: false })
      }
      if (src.tidRaw !== undefined) {
        baseCols.push(`${src.tidRaw} AS ${this.q('__tid')}`)
      }
    }
    const ctxBase: CompileCtx = {
      p: this,
      scope: whereScope,
      qualifiers: src?.qualifiers ?? new Set(),
      precision,
      now,
      tsName: src?.ts,
      level: 'where',
      inAgg: false,
    }
    if (src?.tidRaw !== undefined && src.tidOf !== undefined) {
      ctxBase.tid = { raw: src.tidRaw, of: src.tidOf }
    }
    const whereParts = [...(src?.baseWhere ?? [])]
    if (stmt.where !== undefined) {
      const w = compile(stmt.where, ctxBase)
      whereParts.push(w.sql)
    }
    // DIFF/DERIVATIVE take the previous non-NULL value: with one input column, drop NULL rows first
    const seriesArgs = new Set<string>()
    const walkSeries = (e: Expr): void => {
      if (e.kind === 'call' && FUNCTIONS.get(e.name)?.kind === 'timeseries' && e.args.length > 0) {
        seriesArgs.add(exprKey(e.args[0]))
      }
      children(e).forEach(walkSeries)
    }
    items.forEach((i) => walkSeries(i.expr))
    if (seriesArgs.size === 1) {
      const arg = JSON.parse([...seriesArgs][0]) as Expr
      if (arg.kind === 'col') {
        whereParts.push(`${lookup(arg, ctxBase).sql} IS NOT NULL`)
      }
    }
    let crossJoin = ''
    // set when __w is a window number rather than the window's start (see windowIndex)
    let windowNumber: WindowIndex | undefined
    if (window !== undefined && src?.ts !== undefined) {
      const tsRaw = whereScope.get(src.ts)?.sql as string
      const extra = extraWindows(window)
      // Grafana-style queries bound the time from below; from the offset on, one `%` aligns
      const lo = stmt.where === undefined ? undefined : timeRange(stmt.where, ctxBase, src.ts).lo
      const align = alignSql(tsRaw, window, lo !== undefined && lo >= window.offset)
      if (extra === 0 && lo !== undefined && this.env.windowNumbers !== false) {
        windowNumber = windowIndex(tsRaw, window, lo, (a, b) => this.d.quotient(a, b))
        baseCols.push(`${windowNumber.indexSql} AS ${this.q('__w')}`)
      } else if (extra === 0) {
        baseCols.push(`${align} AS ${this.q('__w')}`)
      } else {
        // a row belongs to every sliding window that still covers it
        const js = Array.from({ length: extra + 1 }, (_v, j) => `(${j})`).join(', ')
        crossJoin = ` CROSS JOIN (VALUES ${js}) AS sw(j)`
        const start = `(${align} - sw.j * ${window.sliding})`
        baseCols.push(`${start} AS ${this.q('__w')}`)
        whereParts.push(`${tsRaw} < ${start} + ${window.interval}`)
      }
    }
    const baseSql =
      src === undefined
        ? undefined
        : `SELECT ${baseCols.join(', ')} FROM ${src.from(needJoin && !pre)}${crossJoin}` +
          (whereParts.length > 0 ? ` WHERE ${whereParts.map((p) => `(${p})`).join(' AND ')}` : '')

    // aggregation shape
    if (stmt.slimit !== undefined && stmt.partitionBy.length === 0 && stmt.groupBy.length === 0) {
      throw new TdError(TD.PAR_SLIMIT_LEAK_PARTITION_GROUP_BY, 'slimit/soffset can only be used with PARTITION BY or GROUP BY')
    }
    if (stmt.groupBy.length > 0 && window !== undefined) {
      throw new TdError(TD.PAR_GROUPBY_WINDOW_COEXIST, "GROUP BY and WINDOW-clause can't be used together")
    }
    const ctx: CompileCtx = { ...ctxBase, scope: mainScope, level: 'main' }
    delete ctx.tid
    // the window start as the outer queries see it (grouping and ordering may use __w itself)
    const wStart = windowNumber === undefined ? `b.${this.q('__w')}` : windowNumber.startSql(`b.${this.q('__w')}`)
    if (window !== undefined) {
      ctx.window = { spec: window, w: wStart }
    }
    const series = items.some((i) => containsSeries(i.expr))
    if (series) {
      if (aggregated) {
        throw new TdError(TD.PAR_WINDOW_NOT_ALLOWED_FUNC, 'diff/derivative function is not supported in time window or aggregate query')
      }
      const tsSql = src?.ts === undefined ? undefined : mainScope.get(src.ts)?.sql
      if (tsSql === undefined) {
        throw new TdError(TD.PAR_INVALID_FIRST_COLUMN, 'First column must be timestamp')
      }
      const part = stmt.partitionBy.map((g) => compile(g, ctx).sql)
      ctx.series = { over: `(${part.length > 0 ? `PARTITION BY ${part.join(', ')} ` : ''}ORDER BY ${tsSql})`, valid: [] }
    }
    const keySqls = groupExprs.map((g) => compile(g, ctx).sql)
    if (aggregated) {
      const keys = new Map<string, string>()
      groupExprs.forEach((g, i) => keys.set(exprKey(g), keySqls[i]))
      ctx.agg = { keys, companion: findCompanion(items, stmt) }
    }
    /** pre-aggregation: aggregate SQL -> its column alias in the per-child query */
    const hoisted = new Map<string, string>()
    if (pre) {
      ctx.hoist = (aggregateSql) => {
        let alias = hoisted.get(aggregateSql)
        if (alias === undefined) {
          alias = `__a${hoisted.size}`
          hoisted.set(aggregateSql, alias)
        }
        return `b.${this.q(alias)}`
      }
    }

    const columns: ColumnMeta[] = []
    const convert: ((v: unknown) => unknown)[] = []
    const selectSql: string[] = []
    const roles: ('wstart' | 'wend' | 'wduration' | 'agg' | 'other')[] = []
    const names = new Set<string>()
    // backend expression -> column index, so hidden columns reuse an identical selected one
    const sqlIndex = new Map<string, number>()
    const aliases: string[] = []
    items.forEach((it, i) => {
      const c = compile(it.expr, ctx)
      const name = it.alias ?? it.text
      names.add(name)
      columns.push({ name, type: c.type.type, length: c.type.length })
      convert.push(converter(c.type))
      selectSql.push(`${c.sql} AS ${this.q(`o${i}`)}`)
      aliases.push(`o${i}`)
      if (!sqlIndex.has(c.sql)) {
        sqlIndex.set(c.sql, i)
      }
      roles.push(pseudoRole(it.expr) ?? (containsAgg(it.expr) ? 'agg' : 'other'))
    })
    const width = items.length

    // hidden columns: window start, partition keys, sort keys
    const hidden: string[] = []
    const hiddenCol = (sql: string, alias: string): number => {
      const existing = sqlIndex.get(sql)
      if (existing !== undefined) {
        return existing
      }
      const idx = width + hidden.length
      hidden.push(`${sql} AS ${this.q(alias)}`)
      aliases.push(alias)
      sqlIndex.set(sql, idx)
      return idx
    }
    let wIndex = -1
    if (window !== undefined) {
      wIndex = hiddenCol(wStart, '__w')
    }
    const keyIndexes: number[] = []
    if (!stmt.distinct) {
      stmt.partitionBy.forEach((_g, i) => {
        keyIndexes.push(hiddenCol(keySqls[i], `__k${i}`))
      })
    }
    const order = this.orderTerms(stmt, items, ctx, names, src, aggregated, keySqls, window !== undefined)
    const orderRefs: string[] = []
    order.forEach((o, i) => {
      const idx = o.output ?? hiddenCol(o.sql, `__s${i}`)
      orderRefs.push(`${this.q(aliases[idx])} ${o.dir}`)
    })

    // FILL
    let fill: SelectPlan['fill']
    const fillMode = stmt.window?.fill?.mode
    if (window !== undefined && fillMode !== undefined && fillMode !== 'none') {
      const fillCols = roles.flatMap((r, i) => (r === 'agg' ? [i] : []))
      const values = (stmt.window?.fill?.values ?? []).map((v, n) => {
        const col = fillCols[n]
        const lit = constValue(v)
        return col === undefined ? lit : convert[col](lit)
      })
      fill = {
        mode: fillMode,
        wIndex,
        keyIndexes,
        fillCols,
        wstartCols: roles.flatMap((r, i) => (r === 'wstart' ? [i] : [])),
        wendCols: roles.flatMap((r, i) => (r === 'wend' ? [i] : [])),
        wdurationCols: roles.flatMap((r, i) => (r === 'wduration' ? [i] : [])),
        values,
        spec: window,
      }
      const range = src?.ts === undefined || stmt.where === undefined ? undefined : timeRange(stmt.where, ctxBase, src.ts)
      if (range?.lo !== undefined && range.hi !== undefined) {
        const first = alignStart(range.lo, window)
        const last = alignStart(range.hi, window)
        if (last >= first && (last - first) / window.sliding + 1n > MAX_FILL_ROWS) {
          throw new TdError(TD.PAR_INVALID_FILL_TIME_RANGE, 'Start(end) time of query range required or time range too large')
        }
        fill.range = { first, last }
      }
      if (stmt.limit !== undefined) {
        fill.limit = stmt.limit
      }
    }

    // assemble
    // window functions for per-partition LIMIT and SLIMIT go after every other column
    const windowCols: string[] = []
    let sql = ''
    const selectHead = (): string => `SELECT ${stmt.distinct ? 'DISTINCT ' : ''}${[...selectSql, ...hidden, ...windowCols].join(', ')}`
    const having = aggregated && stmt.having !== undefined ? compile(stmt.having, ctx).sql : undefined
    if (pre && baseSql !== undefined && src?.tagsTable !== undefined) {
      // one row per (child, window) is aggregated first; the join then adds tbname and tags to it
      const q = (n: string): string => this.q(n)
      const perChild = [`b.${q('__tid')} AS ${q('__tid')}`]
      const perChildKeys = [`b.${q('__tid')}`]
      if (window !== undefined) {
        perChild.push(`b.${q('__w')} AS ${q('__w')}`)
        perChildKeys.push(`b.${q('__w')}`)
      }
      hoisted.forEach((alias, aggregateSql) => perChild.push(`${aggregateSql} AS ${q(alias)}`))
      const inner = `SELECT ${perChild.join(', ')} FROM (${baseSql}) AS b GROUP BY ${perChildKeys.join(', ')}`
      const joined = `SELECT i.*, ${tagCols.join(', ')} FROM (${inner}) AS i JOIN ${src.tagsTable} AS t ON i.${q('__tid')} = t.${q('_tid')}`
      sql += ` FROM (${joined}) AS b`
      if (having !== undefined) {
        sql += ` WHERE ${having}`
      }
    } else if (baseSql !== undefined) {
      sql += ` FROM (${baseSql}) AS b`
    }
    if (aggregated && !pre) {
      const groupBy = [...keySqls]
      if (window !== undefined) {
        groupBy.push(`b.${this.q('__w')}`)
      }
      if (groupBy.length > 0) {
        sql += ` GROUP BY ${groupBy.join(', ')}`
      }
      if (having !== undefined) {
        sql += ` HAVING ${having}`
      }
    } else if (!aggregated && stmt.having !== undefined) {
      throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "having" (HAVING needs GROUP BY or an aggregate)')
    }

    const visible = (): string => aliases.slice(0, width).map((a) => `z.${this.q(a)}`).join(', ')
    const perPartitionLimit = stmt.limit !== undefined && stmt.partitionBy.length > 0 && fill === undefined
    const valid = ctx.series?.valid ?? []
    const wrap = perPartitionLimit || stmt.slimit !== undefined || valid.length > 0
    if (wrap) {
      const extra: string[] = []
      const filters: string[] = []
      if (valid.length > 0) {
        if (perPartitionLimit) {
          throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "limit" (LIMIT per partition with diff/derivative is not supported)')
        }
        extra.push(`(${valid.join(' AND ')}) AS ${this.q('__valid')}`)
        filters.push(this.q('__valid'))
      }
      const part = stmt.partitionBy.length > 0 ? keySqls.slice(0, stmt.partitionBy.length) : keySqls
      if (perPartitionLimit && stmt.limit !== undefined) {
        const within = order.map((o) => `${o.sql} ${o.dir}`).join(', ')
        extra.push(`row_number() OVER (PARTITION BY ${part.join(', ')}${within === '' ? '' : ` ORDER BY ${within}`}) AS ${this.q('__rn')}`)
        filters.push(`${this.q('__rn')} > ${stmt.limit.offset}`, `${this.q('__rn')} <= ${stmt.limit.offset + stmt.limit.limit}`)
      }
      if (stmt.slimit !== undefined) {
        extra.push(`dense_rank() OVER (ORDER BY ${part.map((k) => `${k} ASC NULLS LAST`).join(', ')}) AS ${this.q('__pr')}`)
        filters.push(`${this.q('__pr')} > ${stmt.slimit.offset}`, `${this.q('__pr')} <= ${stmt.slimit.offset + stmt.slimit.limit}`)
      }
      if (stmt.distinct) {
        throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "distinct" (DISTINCT with PARTITION BY limits is not supported)')
      }
      windowCols.push(...extra)
      sql = `SELECT ${fill === undefined ? visible() : '*'} FROM (${selectHead()}${sql}) AS z WHERE ${filters.join(' AND ')}`
    } else if (fill === undefined && hidden.length > 0) {
      // hidden sort/partition keys only order the rows: keep them out of the result so they are
      // neither sent nor converted (a tbname key meant one string decode per row)
      sql = `SELECT ${visible()} FROM (${selectHead()}${sql}) AS z`
    } else {
      sql = selectHead() + sql
    }
    if (orderRefs.length > 0) {
      sql += ` ORDER BY ${orderRefs.join(', ')}`
    }
    if (stmt.limit !== undefined && !perPartitionLimit && fill === undefined) {
      sql += ` LIMIT ${stmt.limit.limit} OFFSET ${stmt.limit.offset}`
    }
    const plan: SelectPlan = { sql, columns, precision, convert }
    if (fill !== undefined) {
      plan.fill = fill
    }
    return plan
  }

  /** `*`, `t.*`, `first(*)`/`last(*)`/`last_row(*)` expand to one item per column */
  private expandItems(items: SelectItem[], src: Source | undefined): SelectItem[] {
    const out: SelectItem[] = []
    for (const it of items) {
      const e = it.expr
      if (e.kind === 'star') {
        if (src === undefined) {
          throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "*"')
        }
        if (e.table !== undefined && !src.qualifiers.has(e.table)) {
          throw tableNotExist(e.table)
        }
        for (const c of src.starCols) {
          out.push({ expr: { kind: 'col', name: c.name }, text: c.name })
        }
        continue
      }
      if (e.kind === 'call' && ['first', 'last', 'last_row'].includes(e.name) && e.args.length === 1 && e.args[0].kind === 'star') {
        if (src === undefined) {
          throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "*"')
        }
        for (const c of src.cols.filter((x) => !x.tag)) {
          out.push({ expr: { kind: 'call', name: e.name, args: [{ kind: 'col', name: c.name }] }, text: `${e.name}(${c.name})` })
        }
        continue
      }
      out.push(it)
    }
    return out
  }

  private orderTerms(
    stmt: SelectStmt,
    items: SelectItem[],
    ctx: CompileCtx,
    names: Set<string>,
    src: Source | undefined,
    aggregated: boolean,
    keySqls: string[],
    windowed: boolean,
  ): { sql: string; dir: string; output?: number }[] {
    const dir = (o: OrderItem): string => {
      const nullsFirst = o.nullsFirst ?? o.desc
      return `${o.desc ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`
    }
    if (stmt.window?.fill !== undefined && stmt.window.fill.mode !== 'none' && stmt.orderBy.length > 0) {
      // FILL walks windows in ascending order per partition; other orders would need the whole result
      const only = stmt.orderBy[0]
      const idx = outputIndex(only.expr, items, names)
      const target = idx === undefined ? only.expr : items[idx].expr
      if (stmt.orderBy.length > 1 || only.desc || pseudoRole(target) !== 'wstart') {
        throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "order by" (with FILL only ORDER BY _wstart ASC is supported)')
      }
    }
    if (stmt.orderBy.length > 0 && !(stmt.window?.fill !== undefined && stmt.window.fill.mode !== 'none')) {
      return stmt.orderBy.map((o) => {
        const idx = outputIndex(o.expr, items, names)
        if (idx !== undefined) {
          return { sql: compile(items[idx].expr, ctx).sql, dir: dir(o), output: idx }
        }
        if (stmt.distinct) {
          throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "order" (ORDER BY with DISTINCT must name selected columns)')
        }
        return { sql: compile(o.expr, ctx).sql, dir: dir(o) }
      })
    }
    if (stmt.distinct || src === undefined) {
      return []
    }
    const asc = 'ASC NULLS LAST'
    const terms = keySqls.map((k) => ({ sql: k, dir: asc }))
    if (windowed) {
      terms.push({ sql: ctx.window?.w ?? `b.${this.q('__w')}`, dir: asc })
    } else if (!aggregated && src.ts !== undefined) {
      if (src.kind === 'stable' && stmt.partitionBy.length === 0 && stmt.limit !== undefined) {
        // TDengine promises no order across child tables without ORDER BY. Sorting by (_tid, ts)
        // under a LIMIT makes the backend keep a top-N heap of the whole LIMIT (a 1M-row LIMIT
        // held ~650 MiB and took seconds before the first row); storage order streams instead.
        return terms
      }
      if (src.tidRaw !== undefined && stmt.partitionBy.length === 0) {
        terms.push({ sql: `b.${this.q('__tid')}`, dir: asc })
      }
      const tsRef = ctx.scope.get(src.ts)
      if (tsRef !== undefined) {
        terms.push({ sql: tsRef.sql, dir: asc })
      }
    }
    return terms
  }
}

// ---------------------------------------------------------------------------------------------
// expressions

interface Ref {
  sql: string
  type: TypeInfo
  ts: boolean
}

interface CompileCtx {
  p: Planner
  scope: Map<string, Ref>
  qualifiers: Set<string>
  precision: Precision
  now: bigint
  tsName: string | undefined
  level: 'where' | 'main'
  inAgg: boolean
  window?: { spec: WindowSpec; w: string }
  agg?: { keys: Map<string, string>; companion?: Companion }
  /** row-aligned functions: their window spec and the conditions a row must meet to be output */
  series?: { over: string; valid: string[] }
  /** super-table WHERE: child name -> `_tid`, so `tbname = 'x'` filters on the key column */
  tid?: { raw: string; of: (name: string) => number | undefined }
  /** pre-aggregation: an aggregate's SQL becomes a column of the per-child query; returns its reference */
  hoist?: (aggregateSql: string) => string
}

interface Compiled {
  sql: string
  type: TypeInfo
}

/** the single selection function whose row plain columns are taken from */
interface Companion {
  fn: 'first' | 'last' | 'last_row' | 'min' | 'max'
  arg: Expr
}

function exprKey(e: Expr): string {
  return JSON.stringify(e)
}

function resolvePositional(g: Expr, items: SelectItem[]): Expr {
  if (g.kind === 'num' && !g.isFloat) {
    const n = Number(g.text)
    if (n >= 1 && n <= items.length) {
      return items[n - 1].expr
    }
    throw new TdError(TD.PAR_WRONG_VALUE_TYPE, `Invalid value type: ${g.text}`)
  }
  if (g.kind === 'col' && g.table === undefined) {
    const aliased = items.find((i) => i.alias === g.name)
    if (aliased !== undefined) {
      return aliased.expr
    }
  }
  return g
}

function outputIndex(e: Expr, items: SelectItem[], names: Set<string>): number | undefined {
  if (e.kind === 'num' && !e.isFloat) {
    const n = Number(e.text)
    if (n >= 1 && n <= items.length) {
      return n - 1
    }
    throw new TdError(TD.PAR_WRONG_VALUE_TYPE, `Invalid value type: ${e.text}`)
  }
  if (e.kind === 'col' && e.table === undefined && names.has(e.name)) {
    const byAlias = items.findIndex((i) => i.alias === e.name)
    if (byAlias >= 0) {
      return byAlias
    }
  }
  const k = exprKey(e)
  const same = items.findIndex((i) => exprKey(i.expr) === k)
  return same >= 0 ? same : undefined
}

function pseudoRole(e: Expr): 'wstart' | 'wend' | 'wduration' | undefined {
  if (e.kind === 'col' && e.table === undefined) {
    if (e.name === '_wstart') {
      return 'wstart'
    }
    if (e.name === '_wend') {
      return 'wend'
    }
    if (e.name === '_wduration') {
      return 'wduration'
    }
  }
  return undefined
}

function children(e: Expr): Expr[] {
  switch (e.kind) {
    case 'call':
      return e.args
    case 'unary':
    case 'cast':
      return [e.expr]
    case 'binary':
      return [e.left, e.right]
    case 'between':
      return [e.expr, e.low, e.high]
    case 'in':
      return [e.expr, ...e.list]
    case 'like':
      return [e.expr, e.pattern]
    case 'isNull':
      return [e.expr]
    case 'case':
      return [...(e.operand ? [e.operand] : []), ...e.whens.flatMap((w) => [w.when, w.then]), ...(e.else ? [e.else] : [])]
    default:
      return []
  }
}

function containsSeries(e: Expr): boolean {
  if (e.kind === 'call' && FUNCTIONS.get(e.name)?.kind === 'timeseries') {
    return true
  }
  return children(e).some(containsSeries)
}

function containsAgg(e: Expr): boolean {
  if (e.kind === 'call' && isAggregateName(e.name)) {
    return true
  }
  return children(e).some(containsAgg)
}

function collectRefs(stmt: SelectStmt): { names: Set<string>; star: boolean } {
  const names = new Set<string>()
  let star = false
  const walk = (e: Expr): void => {
    if (e.kind === 'col') {
      names.add(e.name)
    } else if (e.kind === 'star') {
      star = true
    }
    children(e).forEach(walk)
  }
  stmt.items.forEach((i) => walk(i.expr))
  const rest = [stmt.where, stmt.having, ...stmt.partitionBy, ...stmt.groupBy, ...stmt.orderBy.map((o) => o.expr)]
  rest.forEach((e) => {
    if (e !== undefined) {
      walk(e)
    }
  })
  // `count(*)` does not need the tag table
  if (star && !stmt.items.some((i) => i.expr.kind === 'star' || (i.expr.kind === 'call' && i.expr.name !== 'count' && i.expr.args.some((a) => a.kind === 'star')))) {
    star = false
  }
  return { names, star }
}

function findCompanion(items: SelectItem[], stmt: SelectStmt): Companion | undefined {
  const sel: Companion[] = []
  const walk = (e: Expr): void => {
    if (e.kind === 'call' && ['first', 'last', 'last_row', 'min', 'max'].includes(e.name) && e.args.length === 1) {
      sel.push({ fn: e.name as Companion['fn'], arg: e.args[0] })
      return
    }
    if (e.kind === 'call' && isAggregateName(e.name)) {
      // an ordinary aggregate (avg, sum...) has no single row to borrow columns from
      plainAggregate = true
      return
    }
    children(e).forEach(walk)
  }
  let plainAggregate = false
  items.forEach((i) => walk(i.expr))
  if (stmt.window !== undefined || plainAggregate || sel.length !== 1) {
    return undefined
  }
  return sel[0]
}

function constValue(e: Expr): unknown {
  switch (e.kind) {
    case 'num':
      return e.isFloat ? Number(e.text) : BigInt(e.text)
    case 'str':
      return e.value
    case 'bool':
      return e.value
    case 'null':
      return null
    default:
      throw new TdError(TD.PAR_WRONG_VALUE_TYPE, 'Invalid value type: fill value must be a constant')
  }
}

/** converts a backend value into the result.ts form of the column type */
export function converter(t: TypeInfo): (v: unknown) => unknown {
  switch (t.type) {
    case 'BIGINT':
    case 'BIGINT UNSIGNED':
    case 'TIMESTAMP':
      return (v) => (v === null || v === undefined ? null : typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v))))
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'TINYINT UNSIGNED':
    case 'SMALLINT UNSIGNED':
    case 'INT UNSIGNED':
      return (v) => (v === null || v === undefined ? null : Math.trunc(Number(v)))
    case 'FLOAT':
    case 'DOUBLE':
      return (v) => (v === null || v === undefined ? null : Number(v))
    case 'BOOL':
      return (v) => (v === null || v === undefined ? null : Boolean(v))
    case 'JSON':
      return (v) => {
        if (typeof v !== 'string') {
          return v ?? null
        }
        try {
          return JSON.parse(v) as unknown
        } catch {
          return v
        }
      }
    case 'VARCHAR':
    case 'NCHAR':
      return (v) => (v === null || v === undefined ? null : String(v))
    default:
      return (v) => (typeof v === 'bigint' && v >= -(2n ** 53n) && v <= 2n ** 53n ? Number(v) : v ?? null)
  }
}

/**
 * Evaluates a constant timestamp expression at plan time: NOW/TODAY, integers (ticks), datetime
 * strings, durations and +/- of those. Undefined when the expression is not such a constant.
 */
function timeConst(e: Expr, ctx: CompileCtx): bigint | undefined {
  switch (e.kind) {
    case 'num':
      return e.isFloat ? undefined : BigInt(e.text)
    case 'str':
      return parseTimestampOrFail(e.value, ctx.precision)
    case 'duration':
      return durationToTicks(e.duration, ctx.precision)
    case 'call':
      if (e.args.length === 0 && e.name === 'now') {
        return ctx.now
      }
      if (e.args.length === 0 && e.name === 'today') {
        return todayTicks(ctx.precision, Number(ctx.now / ticksPerMs(ctx.precision)))
      }
      return undefined
    case 'binary': {
      if (e.op !== '+' && e.op !== '-') {
        return undefined
      }
      const a = timeConst(e.left, ctx)
      const b = e.right.kind === 'str' ? undefined : timeConst(e.right, ctx)
      if (a === undefined || b === undefined) {
        return undefined
      }
      return e.op === '+' ? a + b : a - b
    }
    default:
      return undefined
  }
}

function ticksPerMs(p: Precision): bigint {
  return p === 'ms' ? 1n : p === 'us' ? 1000n : 1_000_000n
}

function parseTimestampOrFail(s: string, precision: Precision): bigint {
  try {
    return parseTimestampString(s, precision)
  } catch {
    throw new TdError(TD.PAR_INCORRECT_TIMESTAMP_VAL, `Incorrect TIMESTAMP value: ${s}`)
  }
}

/** [lo, hi] (inclusive ticks) of the primary timestamp from top-level AND conditions */
function timeRange(where: Expr, ctx: CompileCtx, ts: string): { lo?: bigint; hi?: bigint } {
  const r: { lo?: bigint; hi?: bigint } = {}
  const isTs = (e: Expr): boolean => e.kind === 'col' && (e.name === ts || e.name === '_rowts' || e.name === '_c0')
  const lower = (v: bigint): void => {
    r.lo = r.lo === undefined || v > r.lo ? v : r.lo
  }
  const upper = (v: bigint): void => {
    r.hi = r.hi === undefined || v < r.hi ? v : r.hi
  }
  const walk = (e: Expr): void => {
    if (e.kind === 'binary' && e.op === 'AND') {
      walk(e.left)
      walk(e.right)
      return
    }
    if (e.kind === 'between' && !e.not && isTs(e.expr)) {
      const lo = timeConst(e.low, ctx)
      const hi = timeConst(e.high, ctx)
      if (lo !== undefined) {
        lower(lo)
      }
      if (hi !== undefined) {
        upper(hi)
      }
      return
    }
    if (e.kind === 'binary' && ['<', '<=', '>', '>=', '='].includes(e.op)) {
      let op = e.op
      let other: Expr
      if (isTs(e.left)) {
        other = e.right
      } else if (isTs(e.right)) {
        other = e.left
        op = op === '<' ? '>' : op === '>' ? '<' : op === '<=' ? '>=' : op === '>=' ? '<=' : op
      } else {
        return
      }
      const v = timeConst(other, ctx)
      if (v === undefined) {
        return
      }
      if (op === '>=' || op === '=') {
        lower(v)
      }
      if (op === '>') {
        lower(v + 1n)
      }
      if (op === '<=' || op === '=') {
        upper(v)
      }
      if (op === '<') {
        upper(v - 1n)
      }
    }
  }
  walk(where)
  return r
}

function lookup(e: Expr & { kind: 'col' }, ctx: CompileCtx): Ref {
  if (e.table !== undefined && !ctx.qualifiers.has(e.table)) {
    throw invalidColumn(`${e.table}.${e.name}`)
  }
  const direct = ctx.scope.get(e.name)
  if (direct !== undefined) {
    return direct
  }
  if ((e.name === '_rowts' || e.name === '_c0') && ctx.tsName !== undefined) {
    const ts = ctx.scope.get(ctx.tsName)
    if (ts !== undefined) {
      return ts
    }
  }
  throw invalidColumn(e.name)
}

const DOUBLE = fixed('DOUBLE')
const BOOL = fixed('BOOL')

function compile(e: Expr, ctx: CompileCtx): Compiled {
  const p = ctx.p
  // grouped query: a whole grouping expression is a key
  if (ctx.agg !== undefined && !ctx.inAgg) {
    const key = ctx.agg.keys.get(exprKey(e))
    if (key !== undefined) {
      return { sql: key, type: typeOfKey(e, ctx) }
    }
  }
  switch (e.kind) {
    case 'num':
      if (e.isFloat) {
        return { sql: `CAST(${e.text} AS ${p.physType('DOUBLE')})`, type: DOUBLE }
      }
      return { sql: `CAST(${BigInt(e.text).toString()} AS ${p.physType('BIGINT')})`, type: fixed('BIGINT') }
    case 'str':
      return { sql: p.literal(e.value, fixed('VARCHAR')), type: { type: 'VARCHAR', length: Buffer.byteLength(e.value) } }
    case 'bool':
      return { sql: e.value ? 'TRUE' : 'FALSE', type: BOOL }
    case 'null':
      return { sql: 'NULL', type: fixed('NULL') }
    case 'duration':
      return { sql: durationToTicks(e.duration, ctx.precision).toString(), type: fixed('BIGINT') }
    case 'star':
      throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "*"')
    case 'col':
      return compileCol(e, ctx)
    case 'call':
      return compileCall(e, ctx)
    case 'unary': {
      const inner = compile(e.expr, ctx)
      if (e.op === 'NOT') {
        return { sql: `(NOT ${inner.sql})`, type: BOOL }
      }
      if (e.op === '~') {
        return { sql: `(~ CAST(${inner.sql} AS ${p.physType('BIGINT')}))`, type: fixed('BIGINT') }
      }
      if (e.op === '+') {
        return inner
      }
      return { sql: `(- CAST(${inner.sql} AS ${p.physType('DOUBLE')}))`, type: DOUBLE }
    }
    case 'binary':
      return compileBinary(e, ctx)
    case 'between': {
      const x = compile(e.expr, ctx)
      const lo = compileAgainst(e.low, x.type, ctx)
      const hi = compileAgainst(e.high, x.type, ctx)
      return { sql: `(${x.sql} ${e.not ? 'NOT ' : ''}BETWEEN ${lo.sql} AND ${hi.sql})`, type: BOOL }
    }
    case 'in': {
      const byTid = tbnameToTid(e.expr, e.list, ctx)
      if (byTid !== undefined) {
        return { sql: byTid.length === 0 ? (e.not ? 'TRUE' : 'FALSE') : `(${ctx.tid?.raw} ${e.not ? 'NOT ' : ''}IN (${byTid.join(', ')}))`, type: BOOL }
      }
      const x = compile(e.expr, ctx)
      const list = e.list.map((v) => compileAgainst(v, x.type, ctx).sql)
      return { sql: `(${x.sql} ${e.not ? 'NOT ' : ''}IN (${list.join(', ')}))`, type: BOOL }
    }
    case 'like': {
      const x = compile(e.expr, ctx)
      const pat = compile(e.pattern, ctx)
      const d = ctx.p.dialectOf()
      let sql: string
      if (e.op === 'LIKE') {
        sql = `(${x.sql} ${e.not ? 'NOT ' : ''}LIKE ${pat.sql} ESCAPE ${d.quoteString('\\')})`
      } else {
        const m = d.regexMatch(x.sql, pat.sql)
        sql = (e.op === 'NMATCH') !== e.not ? `(NOT ${m})` : `(${m})`
      }
      return { sql, type: BOOL }
    }
    case 'isNull': {
      const x = compile(e.expr, ctx)
      return { sql: `(${x.sql} IS ${e.not ? 'NOT ' : ''}NULL)`, type: BOOL }
    }
    case 'case': {
      const operand = e.operand === undefined ? undefined : compile(e.operand, ctx)
      const whens = e.whens.map((w) => ({
        when: operand === undefined ? compile(w.when, ctx) : compileAgainst(w.when, operand.type, ctx),
        then: compile(w.then, ctx),
      }))
      const elseC = e.else === undefined ? undefined : compile(e.else, ctx)
      const type = whens.map((w) => w.then.type).find((t) => t.type !== 'NULL') ?? elseC?.type ?? fixed('NULL')
      const sql =
        `(CASE${operand === undefined ? '' : ` ${operand.sql}`} ` +
        whens.map((w) => `WHEN ${w.when.sql} THEN ${w.then.sql}`).join(' ') +
        (elseC === undefined ? '' : ` ELSE ${elseC.sql}`) +
        ' END)'
      return { sql, type }
    }
    case 'cast': {
      const x = compile(e.expr, ctx)
      const type = castType(e.type.name, e.type.length)
      return { sql: `CAST(${x.sql} AS ${p.physType(type.type, type.length)})`, type }
    }
  }
}

function typeOfKey(e: Expr, ctx: CompileCtx): TypeInfo {
  // compile without the key shortcut to learn the type
  return compile(e, { ...ctx, agg: undefined }).type
}

function castType(name: string, length?: number): TypeInfo {
  const n = name.toLowerCase()
  const map: Record<string, TdType> = {
    bool: 'BOOL',
    tinyint: 'TINYINT',
    smallint: 'SMALLINT',
    int: 'INT',
    integer: 'INT',
    bigint: 'BIGINT',
    'tinyint unsigned': 'TINYINT UNSIGNED',
    'smallint unsigned': 'SMALLINT UNSIGNED',
    'int unsigned': 'INT UNSIGNED',
    'bigint unsigned': 'BIGINT UNSIGNED',
    float: 'FLOAT',
    double: 'DOUBLE',
    binary: 'VARCHAR',
    varchar: 'VARCHAR',
    nchar: 'NCHAR',
    timestamp: 'TIMESTAMP',
  }
  const t = map[n]
  if (t === undefined) {
    throw new TdError(TD.PAR_SYNTAX_ERROR, `syntax error near "${name}"`)
  }
  if (t === 'VARCHAR' || t === 'NCHAR') {
    return { type: t, length: length ?? 64 }
  }
  return fixed(t)
}

/** compiles `e` where it is compared with a value of type `t` (datetime strings become ticks) */
function compileAgainst(e: Expr, t: TypeInfo, ctx: CompileCtx): Compiled {
  if (t.type === 'TIMESTAMP') {
    const v = timeConst(e, ctx)
    if (v !== undefined) {
      return { sql: v.toString(), type: fixed('TIMESTAMP') }
    }
  }
  return compile(e, ctx)
}

function compileCol(e: Expr & { kind: 'col' }, ctx: CompileCtx): Compiled {
  const role = pseudoRole(e)
  if (role !== undefined) {
    if (ctx.window === undefined || ctx.inAgg) {
      throw new TdError(TD.PAR_INVALID_WINDOW_PC, '_WSTART, _WEND and _WDURATION can only be used in window query')
    }
    const { w, spec } = ctx.window
    if (role === 'wstart') {
      return { sql: w, type: fixed('TIMESTAMP') }
    }
    if (role === 'wend') {
      return { sql: `(${w} + ${spec.interval})`, type: fixed('TIMESTAMP') }
    }
    return { sql: `CAST(${spec.interval} AS ${ctx.p.physType('BIGINT')})`, type: fixed('BIGINT') }
  }
  const ref = lookup(e, ctx)
  if (ctx.agg !== undefined && !ctx.inAgg) {
    // a plain column in a grouped query: only through a single selection function's row
    const comp = ctx.agg.companion
    if (comp === undefined || ctx.tsName === undefined) {
      throw new TdError(TD.PAR_GROUPBY_LACK_EXPRESSION, 'Not a GROUP BY expression')
    }
    return { sql: companionSql(ref.sql, comp, ctx), type: ref.type }
  }
  return { sql: ref.sql, type: ref.type }
}

function companionSql(value: string, comp: Companion, ctx: CompileCtx): string {
  const d = ctx.p.dialectOf()
  const ts = ctx.scope.get(ctx.tsName as string)?.sql as string
  const arg = compile(comp.arg, { ...ctx, inAgg: true }).sql
  switch (comp.fn) {
    // the companion value may itself be NULL on the picked row, hence the NULL-keeping forms
    case 'first':
      return argMinNull(d, value, `(CASE WHEN ${arg} IS NOT NULL THEN ${ts} END)`)
    case 'last':
      return argMaxNull(d, value, `(CASE WHEN ${arg} IS NOT NULL THEN ${ts} END)`)
    case 'last_row':
      return argMaxNull(d, value, ts)
    case 'min':
      return argMinNull(d, value, arg)
    case 'max':
      return argMaxNull(d, value, arg)
  }
}

/**
 * The value at the max key even when it is NULL (argMax skips NULL values). Without a dialect
 * spelling: when the last non-NULL value is not at the overall max key, the value there is NULL.
 */
function argMaxNull(d: Dialect, value: string, key: string): string {
  if (d.argMaxNull !== undefined) {
    return d.argMaxNull(value, key)
  }
  return `(CASE WHEN max(${key}) = max(CASE WHEN ${value} IS NOT NULL THEN ${key} END) THEN ${d.argMax(value, key)} END)`
}

/** argMinNull, the mirror image of argMaxNull */
function argMinNull(d: Dialect, value: string, key: string): string {
  return `(CASE WHEN min(${key}) = min(CASE WHEN ${value} IS NOT NULL THEN ${key} END) THEN ${d.argMin(value, key)} END)`
}

function compileCall(e: Expr & { kind: 'call' }, ctx: CompileCtx): Compiled {
  const spec = FUNCTIONS.get(e.name)
  const p = ctx.p
  if (spec === undefined) {
    throw new TdError(TD.PAR_INVALID_FUNCTION_NAME, `Invalid function name: ${e.name}`)
  }
  const starArg = e.args.length === 1 && e.args[0].kind === 'star'
  if (e.args.length < spec.minArgs || e.args.length > spec.maxArgs || (starArg && e.name !== 'count')) {
    throw new TdError(TD.FUNC_FUNTION_PARA_NUM, 'Invalid function para number')
  }
  if (spec.kind === 'system') {
    return systemCall(e.name, ctx)
  }
  if (spec.kind === 'timeseries') {
    return seriesCall(e, ctx)
  }
  if (spec.kind === 'scalar') {
    const args = e.args.map((a) => compile(a, ctx))
    const type = spec.result(args.map((a) => a.type))
    const fn = e.name === 'ifnull' ? 'coalesce' : e.name === 'char_length' ? 'length' : e.name === 'length' ? 'octet_length' : e.name
    if (e.name === 'log' && args.length === 2) {
      // TDengine log(x, base); SQL spells it as ln ratio so both backends agree
      return { sql: `(ln(${args[0].sql}) / ln(${args[1].sql}))`, type }
    }
    if (e.name === 'log') {
      return { sql: `ln(${args[0].sql})`, type }
    }
    if (e.name === 'length') {
      return { sql: `CAST(octet_length(CAST(${args[0].sql} AS ${p.physType('VARCHAR')})) AS ${p.physType('BIGINT')})`, type }
    }
    if (e.name === 'char_length') {
      return { sql: `CAST(length(${args[0].sql}) AS ${p.physType('BIGINT')})`, type }
    }
    if (e.name === 'sqrt' || e.name === 'pow') {
      return { sql: `${fn}(${args.map((a) => `CAST(${a.sql} AS ${p.physType('DOUBLE')})`).join(', ')})`, type }
    }
    return { sql: `${fn}(${args.map((a) => a.sql).join(', ')})`, type }
  }
  // aggregate / selection
  if (ctx.level === 'where' || ctx.agg === undefined) {
    throw new TdError(TD.PAR_ILLEGAL_USE_AGG_FUNCTION, "There mustn't be aggregation")
  }
  if (ctx.inAgg) {
    throw new TdError(TD.PAR_AGG_FUNC_NESTING, 'Aggregate functions do not support nesting')
  }
  const c = aggregateCall(e, spec, starArg, ctx)
  return ctx.hoist === undefined ? c : { sql: ctx.hoist(c.sql), type: c.type }
}

function aggregateCall(e: Expr & { kind: 'call' }, spec: FuncSpec, starArg: boolean, ctx: CompileCtx): Compiled {
  const p = ctx.p
  const d = p.dialectOf()
  const inner: CompileCtx = { ...ctx, inAgg: true }
  delete inner.hoist
  if (e.name === 'count') {
    if (starArg) {
      return { sql: 'count(*)', type: fixed('BIGINT') }
    }
    return { sql: `count(${compile(e.args[0], inner).sql})`, type: fixed('BIGINT') }
  }
  const arg = compile(e.args[0], inner)
  const type = spec.result([arg.type])
  const t = arg.type.type
  const needNumeric = ['avg', 'sum', 'spread', 'stddev', 'stddev_pop'].includes(e.name)
  if (needNumeric && !isNumeric(t) && t !== 'NULL') {
    throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
  }
  const ts = ctx.tsName === undefined ? undefined : ctx.scope.get(ctx.tsName)?.sql
  const dbl = p.physType('DOUBLE')
  switch (e.name) {
    case 'avg':
      return { sql: t === 'FLOAT' || t === 'DOUBLE' ? `avg(${arg.sql})` : `CAST(avg(${arg.sql}) AS ${dbl})`, type }
    case 'sum':
      return { sql: `CAST(sum(${arg.sql}) AS ${p.physType(type.type)})`, type }
    case 'spread':
      return { sql: `(CAST(max(${arg.sql}) AS ${dbl}) - CAST(min(${arg.sql}) AS ${dbl}))`, type }
    case 'stddev':
    case 'stddev_pop':
      return { sql: d.stddevPop(`CAST(${arg.sql} AS ${dbl})`), type }
    case 'min':
    case 'max':
      return { sql: `${e.name}(${arg.sql})`, type }
    case 'first':
    case 'last':
    case 'last_row': {
      if (ts === undefined) {
        throw new TdError(TD.PAR_INVALID_FIRST_COLUMN, 'First column must be timestamp')
      }
      if (e.name === 'first') {
        return { sql: d.argMin(arg.sql, ts), type }
      }
      if (e.name === 'last') {
        return { sql: d.argMax(arg.sql, ts), type }
      }
      return { sql: argMaxNull(d, arg.sql, ts), type }
    }
  }
  throw new TdError(TD.PAR_INVALID_FUNCTION_NAME, `Invalid function name: ${e.name}`)
}

/**
 * DIFF(x[, 0|1]) and DERIVATIVE(x, unit, 0|1) as window functions over the previous row of the
 * slice (ordered by ts). The first row of a slice has no previous row and is not output, as in
 * TDengine 3.0-3.2; `ignore_negative` drops (DERIVATIVE) or NULLs (DIFF 1) negative results.
 */
function seriesCall(e: Expr & { kind: 'call' }, ctx: CompileCtx): Compiled {
  const p = ctx.p
  const series = ctx.series
  if (series === undefined || ctx.inAgg || ctx.level !== 'main') {
    throw new TdError(TD.PAR_WINDOW_NOT_ALLOWED_FUNC, `${e.name} function is not supported here`)
  }
  const x = compile(e.args[0], { ...ctx, series: undefined })
  if (!isNumeric(x.type.type) && x.type.type !== 'BOOL') {
    throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
  }
  const spec = FUNCTIONS.get(e.name)
  const type = spec === undefined ? DOUBLE : spec.result([x.type])
  const lagX = `lag(${x.sql}) OVER ${series.over}`
  const flag = (arg: Expr | undefined): number => {
    if (arg === undefined) {
      return 0
    }
    if (arg.kind !== 'num' || arg.isFloat || !['0', '1'].includes(arg.text)) {
      throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
    }
    return Number(arg.text)
  }
  series.valid.push(`${lagX} IS NOT NULL`, `${x.sql} IS NOT NULL`)
  if (e.name === 'diff') {
    const t = type.type === 'BIGINT' ? p.physType('BIGINT') : p.physType('DOUBLE')
    const d = `(CAST(${x.sql} AS ${t}) - CAST(${lagX} AS ${t}))`
    return { sql: flag(e.args[1]) === 1 ? `(CASE WHEN ${d} < 0 THEN NULL ELSE ${d} END)` : d, type }
  }
  const unitArg = e.args[1]
  if (unitArg.kind !== 'duration') {
    throw new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
  }
  const unit = durationToTicks(unitArg.duration, ctx.precision)
  const ts = ctx.scope.get(ctx.tsName as string)?.sql as string
  const dbl = p.physType('DOUBLE')
  const d = `((CAST(${x.sql} AS ${dbl}) - CAST(${lagX} AS ${dbl})) / (CAST(${ts} - lag(${ts}) OVER ${series.over} AS ${dbl}) / ${unit}))`
  if (flag(e.args[2]) === 1) {
    series.valid.push(`${d} >= 0`)
  }
  return { sql: d, type }
}

function systemCall(name: string, ctx: CompileCtx): Compiled {
  const p = ctx.p
  const env = p.envOf()
  switch (name) {
    case 'server_version':
    case 'client_version':
      return { sql: p.literal(SERVER_VERSION, fixed('VARCHAR')), type: { type: 'VARCHAR', length: 30 } }
    case 'server_status':
      return { sql: `CAST(1 AS ${p.physType('INT')})`, type: fixed('INT') }
    case 'database':
      return { sql: p.literal(env.ctx.defaultDb ?? null, { type: 'VARCHAR', length: 63 }), type: { type: 'VARCHAR', length: 63 } }
    case 'current_user':
    case 'user':
      return { sql: p.literal(env.ctx.user, fixed('VARCHAR')), type: { type: 'VARCHAR', length: 22 } }
    case 'timezone':
      return { sql: p.literal('UTC (UTC, +0000)', fixed('VARCHAR')), type: { type: 'VARCHAR', length: 64 } }
    case 'now':
      return { sql: `CAST(${ctx.now} AS ${p.physType('BIGINT')})`, type: fixed('TIMESTAMP') }
    case 'today': {
      const t = todayTicks(ctx.precision, Number(ctx.now / ticksPerMs(ctx.precision)))
      return { sql: `CAST(${t} AS ${p.physType('BIGINT')})`, type: fixed('TIMESTAMP') }
    }
  }
  throw new TdError(TD.PAR_INVALID_FUNCTION_NAME, `Invalid function name: ${name}`)
}

const COMPARISON = new Set(['=', '!=', '<', '<=', '>', '>='])

function compileBinary(e: Expr & { kind: 'binary' }, ctx: CompileCtx): Compiled {
  const p = ctx.p
  if (e.op === 'AND' || e.op === 'OR') {
    const l = compile(e.left, ctx)
    const r = compile(e.right, ctx)
    return { sql: `(${l.sql} ${e.op} ${r.sql})`, type: BOOL }
  }
  if (e.op === '=' || e.op === '!=') {
    const [name, lit] = e.left.kind === 'col' ? [e.left, e.right] : [e.right, e.left]
    const byTid = tbnameToTid(name, [lit], ctx)
    if (byTid !== undefined) {
      if (byTid.length === 0) {
        return { sql: e.op === '=' ? 'FALSE' : 'TRUE', type: BOOL }
      }
      return { sql: `(${ctx.tid?.raw} ${e.op === '=' ? '=' : '<>'} ${byTid[0]})`, type: BOOL }
    }
  }
  if (COMPARISON.has(e.op)) {
    // a datetime string or NOW expression compared with a timestamp is folded to ticks
    let l: Compiled
    let r: Compiled
    if (e.left.kind === 'str' || e.left.kind === 'duration' || isTimeCall(e.left)) {
      r = compile(e.right, ctx)
      l = compileAgainst(e.left, r.type, ctx)
    } else {
      l = compile(e.left, ctx)
      r = compileAgainst(e.right, l.type, ctx)
    }
    const op = e.op === '!=' ? '<>' : e.op
    return { sql: `(${l.sql} ${op} ${r.sql})`, type: BOOL }
  }
  // timestamp arithmetic stays in integer ticks; constant parts are folded
  if (e.op === '+' || e.op === '-') {
    const folded = timeConstIfTimestamp(e, ctx)
    if (folded !== undefined) {
      return { sql: `CAST(${folded} AS ${p.physType('BIGINT')})`, type: fixed('TIMESTAMP') }
    }
  }
  const l = compile(e.left, ctx)
  const r = compile(e.right, ctx)
  if ((e.op === '+' || e.op === '-') && l.type.type === 'TIMESTAMP' && (isIntegral(r.type.type) || e.right.kind === 'duration')) {
    return { sql: `(${l.sql} ${e.op} ${r.sql})`, type: fixed('TIMESTAMP') }
  }
  if (e.op === '||') {
    const vc = p.physType('VARCHAR')
    return { sql: `(CAST(${l.sql} AS ${vc}) || CAST(${r.sql} AS ${vc}))`, type: { type: 'VARCHAR', length: l.type.length + r.type.length } }
  }
  if (e.op === '&' || e.op === '|' || e.op === '<<' || e.op === '>>') {
    const bi = p.physType('BIGINT')
    return { sql: `(CAST(${l.sql} AS ${bi}) ${e.op} CAST(${r.sql} AS ${bi}))`, type: fixed('BIGINT') }
  }
  // TDengine arithmetic yields DOUBLE
  const dbl = p.physType('DOUBLE')
  const a = `CAST(${l.sql} AS ${dbl})`
  const b = `CAST(${r.sql} AS ${dbl})`
  if (e.op === '/' || e.op === '%') {
    // a zero divisor gives NULL on every backend (PostgreSQL would fail the query); `%` is C's
    // fmod (the sign of the dividend), spelt with trunc because PostgreSQL has no double `%`
    const divisor = `NULLIF(${b}, 0)`
    const sql = e.op === '/' ? `(${a} / ${divisor})` : `(${a} - ${b} * trunc(${a} / ${divisor}))`
    return { sql, type: DOUBLE }
  }
  return { sql: `(${a} ${e.op} ${b})`, type: DOUBLE }
}

/**
 * `tbname = 'd1'` / `tbname IN (...)` in a super-table WHERE become `_tid` tests, resolved in the
 * catalog at plan time, so the backend filters on the key column. Undefined when not applicable;
 * names that are no child of this super table drop out of the list.
 */
function tbnameToTid(x: Expr, list: Expr[], ctx: CompileCtx): number[] | undefined {
  if (ctx.tid === undefined || x.kind !== 'col' || x.name !== 'tbname' || ctx.scope.get('tbname')?.type !== TBNAME_TYPE) {
    return undefined
  }
  if (x.table !== undefined && !ctx.qualifiers.has(x.table)) {
    return undefined
  }
  if (!list.every((v) => v.kind === 'str')) {
    return undefined
  }
  const tids: number[] = []
  for (const v of list) {
    const tid = ctx.tid.of((v as { value: string }).value)
    if (tid !== undefined) {
      tids.push(tid)
    }
  }
  return tids
}

function isTimeCall(e: Expr): boolean {
  return e.kind === 'call' && (e.name === 'now' || e.name === 'today')
}

function isIntegral(t: TypeInfo['type']): boolean {
  return isSignedInt(t) || isUnsignedInt(t) || t === 'TIMESTAMP'
}

/** `now - 1h`, `'2022-01-01' + 1d`: a timestamp constant, folded at plan time */
function timeConstIfTimestamp(e: Expr & { kind: 'binary' }, ctx: CompileCtx): bigint | undefined {
  const leftIsTime = isTimeCall(e.left) || e.left.kind === 'str' || (e.left.kind === 'binary' && timeConstIfTimestamp(e.left, ctx) !== undefined)
  if (!leftIsTime || e.right.kind !== 'duration') {
    return undefined
  }
  return timeConst(e, ctx)
}

/** Plans a SELECT against the catalog; throws TdError for unknown names and illegal shapes. */
/**
 * A grouped super-table query can aggregate each child's rows before the tag table is joined
 * when tbname is one of its keys: tbname names exactly one `_tid`, so grouping by `_tid` makes
 * the same groups, and the join then touches one row per group instead of one per data row
 * (the bench's 10M rows in 100 children: about a third less backend time). Everything the
 * aggregates read must be a data column, and the WHERE clause must not need tags; other shapes
 * keep the join-first plan.
 */
function preAggregable(
  stmt: SelectStmt,
  items: SelectItem[],
  src: Source,
  window: WindowSpec | undefined,
  groupExprs: Expr[],
  star: boolean,
): boolean {
  if (src.kind !== 'stable' || src.tagsTable === undefined || stmt.distinct || star) {
    return false
  }
  if (window !== undefined && extraWindows(window) !== 0) {
    return false
  }
  const tagNames = new Set(['tbname', ...src.cols.filter((c) => c.tag).map((c) => c.name)])
  if (groupExprs.length === 0 || !groupExprs.every((g) => g.kind === 'col' && tagNames.has(g.name))) {
    return false
  }
  if (!groupExprs.some((g) => g.kind === 'col' && g.name === 'tbname')) {
    return false
  }
  const readsTags = (e: Expr): boolean => (e.kind === 'col' && tagNames.has(e.name)) || children(e).some(readsTags)
  if (stmt.where !== undefined && readsTags(stmt.where)) {
    return false
  }
  let ok = true
  const walk = (e: Expr): void => {
    if (e.kind === 'call' && isAggregateName(e.name)) {
      ok &&= !e.args.some(readsTags)
      return
    }
    if (containsSeries(e)) {
      ok = false
    }
    children(e).forEach(walk)
  }
  items.forEach((i) => walk(i.expr))
  stmt.orderBy.forEach((o) => walk(o.expr))
  if (stmt.having !== undefined) {
    walk(stmt.having)
  }
  return ok && findCompanion(items, stmt) === undefined
}

export function planSelect(stmt: SelectStmt, env: PlanEnv): SelectPlan {
  return new Planner(env).plan(stmt)
}
