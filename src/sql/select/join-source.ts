/**
 * JOINs (TDengine 3 "Join Queries"): every FROM item becomes a subquery `jK` with its columns
 * under positional names; the join of those is one Source whose columns are keyed
 * `qualifier.name` (and by the bare name where unique). Inner, comma, outer and FULL joins map
 * onto SQL joins and must have a primary-timestamp equality; SEMI, ANTI, ASOF and WINDOW joins
 * read the other side through a LATERAL subquery per driving row (both backends have LATERAL).
 */
import { TD, TdError } from '../../td-error.js'
import { nowTicks } from '../time.js'
import type { Duration, Expr, FromItem, JoinItem, SelectStmt } from './ast.js'
import type { CompileCtx, Ref } from './compile-context.js'
import { compile } from './compile-expr.js'
import { conjuncts, containsAgg } from './expr-walk.js'
import type { PlanEnv, SelectPlan } from './select-plan.js'
import { resolveFrom, TBNAME_TYPE, type Source, type SourceCol } from './sources.js'
import type { SqlWriter } from './sql-writer.js'
import { durationToTicks } from './window.js'

interface Leaf {
  qualifier: string
  src: Source
  /** `(SELECT ...) AS "jK"` */
  piece: string
  alias: string
  cols: SourceCol[]
  /** scope key of the primary timestamp */
  tsKey: string
}

const notSupported = (why: string): TdError => new TdError(TD.PAR_NOT_SUPPORT_JOIN, `Not supported join since '${why}'`)

function flatten(from: FromItem, items: FromItem[], joins: JoinItem[]): void {
  if (from.kind === 'join') {
    flatten(from.left, items, joins)
    joins.push(from)
    items.push(from.right)
    return
  }
  items.push(from)
}

function leafOf(item: FromItem, k: number, env: PlanEnv, w: SqlWriter, planInner: (s: SelectStmt) => SelectPlan): Leaf {
  const src = resolveFrom(item, env, w, planInner) as Source
  if (src.ts === undefined) {
    throw new TdError(TD.PAR_NOT_SUPPORT_JOIN, 'Join requires valid time series input')
  }
  const qualifier = item.kind === 'table' ? (item.alias ?? item.name) : (item.alias ?? `j${k}`)
  const alias = w.q(`j${k}`)
  const select: string[] = []
  const cols: SourceCol[] = []
  src.cols.forEach((c, i) => {
    select.push(`${c.raw} AS ${w.q(`c${i}`)}`)
    cols.push({ name: c.name, qualifier, raw: `${alias}.${w.q(`c${i}`)}`, type: c.type, tag: false })
  })
  const visible = [...cols]
  if (src.tbname !== undefined && !src.cols.some((c) => c.name === 'tbname')) {
    select.push(`${src.tbname} AS ${w.q('tbname')}`)
    cols.push({ name: 'tbname', qualifier, raw: `${alias}.${w.q('tbname')}`, type: TBNAME_TYPE, tag: false })
  }
  const where = src.baseWhere.length > 0 ? ` WHERE ${src.baseWhere.join(' AND ')}` : ''
  const piece = `(SELECT ${select.join(', ')} FROM ${src.from(true)}${where}) AS ${alias}`
  // `*` of a super table lists its tags too, as in a single-table query
  const star = src.kind === 'child' ? visible.filter((c) => src.starCols.some((s) => s.name === c.name)) : visible
  return { qualifier, src: { ...src, starCols: star }, piece, alias, cols, tsKey: `${qualifier}.${src.ts}` }
}

/** the scope key a column reference resolves to among the leaves, if any */
function keyOf(e: Expr, leaves: Leaf[]): string | undefined {
  if (e.kind !== 'col') {
    return undefined
  }
  if (e.table !== undefined) {
    return `${e.table}.${e.name}`
  }
  const owners = leaves.filter((l) => l.cols.some((c) => c.name === e.name))
  return owners.length === 1 ? `${owners[0].qualifier}.${e.name}` : undefined
}

const OPS = new Set(['=', '<', '<=', '>', '>='])
const FLIP: Record<string, string> = { '=': '=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' }

/** a comparison of two leaves' primary timestamps as `x.ts op y.ts`, oriented x before y */
function tsComparison(e: Expr, leaves: Leaf[]): { x: number; y: number; op: string } | undefined {
  if (e.kind !== 'binary' || !OPS.has(e.op)) {
    return undefined
  }
  // the documented main condition may truncate both timestamps: timetruncate(a.ts, 1s) = ...
  const bare = (x: Expr): Expr => (x.kind === 'call' && x.name === 'timetruncate' && x.args.length > 0 ? x.args[0] : x)
  const left = bare(e.left)
  const right = bare(e.right)
  const isTs = (x: Expr, f: Leaf): boolean =>
    keyOf(x, leaves) === f.tsKey || (x.kind === 'col' && (x.name === '_rowts' || x.name === '_c0') && f.qualifier === x.table)
  const li = leaves.findIndex((f) => isTs(left, f))
  const ri = leaves.findIndex((f) => isTs(right, f))
  if (li < 0 || ri < 0 || li === ri) {
    return undefined
  }
  return li < ri ? { x: li, y: ri, op: e.op } : { x: ri, y: li, op: FLIP[e.op] }
}

/**
 * Inner and comma joins: the leaves their timestamp equalities (in any ON or in WHERE) link to
 * the first leaf, through one another; a leaf outside would be a cross join.
 */
function linkedToFirst(conds: Expr[], leaves: Leaf[]): Set<number> {
  const parent = leaves.map((_l, i) => i)
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])))
  for (const c of conds) {
    const t = tsComparison(c, leaves)
    if (t?.op === '=') {
      parent[find(t.y)] = find(t.x)
    }
  }
  return new Set(leaves.map((_l, i) => i).filter((i) => find(i) === find(0)))
}

function hasTsEquality(conds: Expr[], leaves: Leaf[]): boolean {
  return conds.some((c) => tsComparison(c, leaves)?.op === '=')
}

/** Resolves a FROM clause with joins; returns the statement, rewritten for WINDOW join aggregates. */
export function joinSource(
  stmt: SelectStmt,
  from: JoinItem,
  env: PlanEnv,
  w: SqlWriter,
  planInner: (s: SelectStmt) => SelectPlan,
): { src: Source; stmt: SelectStmt } {
  const items: FromItem[] = []
  const joins: JoinItem[] = []
  flatten(from, items, joins)
  if (joins.length > 1 && joins.some((j) => j.type !== 'inner' && j.type !== 'comma')) {
    throw notSupported('only inner joins can join more than two tables')
  }
  const leaves = items.map((it, k) => leafOf(it, k, env, w, planInner))
  const seen = new Set<string>()
  for (const l of leaves) {
    if (seen.has(l.qualifier)) {
      throw new TdError(TD.PAR_NOT_UNIQUE_TABLE_ALIAS, 'Not unique table/alias')
    }
    seen.add(l.qualifier)
  }
  const cols = leaves.flatMap((l) => l.cols)
  const scope = new Map<string, Ref>()
  const bare = new Map<string, number>()
  cols.forEach((c) => bare.set(c.name, (bare.get(c.name) ?? 0) + 1))
  for (const c of cols) {
    const ref = { sql: c.raw, type: c.type, ts: false }
    scope.set(`${c.qualifier}.${c.name}`, ref)
    if (bare.get(c.name) === 1) {
      scope.set(c.name, ref)
    } else {
      scope.set(c.name, { ...ref, ambiguous: true })
    }
  }
  const precision = leaves[0].src.precision
  const ctx: CompileCtx = {
    sql: w,
    session: env.ctx,
    scope,
    qualifiers: seen,
    precision,
    now: nowTicks(precision, env.nowMs),
    tsName: undefined,
    level: 'where',
    inAgg: false,
  }
  const whereConds = conjuncts(stmt.where)
  const innerConds = joins.filter((j) => j.type === 'inner' || j.type === 'comma').flatMap((j) => conjuncts(j.on))
  const linked = linkedToFirst([...innerConds, ...whereConds], leaves)
  let sql = leaves[0].piece
  const baseWhere: string[] = []
  let driving = 0
  joins.forEach((j, i) => {
    const right = leaves[i + 1]
    const on = conjuncts(j.on)
    const onSql = j.on === undefined ? undefined : compile(j.on, ctx).sql
    switch (j.type) {
      case 'comma':
      case 'inner':
        if (!linked.has(i + 1)) {
          throw j.on === undefined && stmt.where === undefined
            ? new TdError(TD.PLAN_NOT_SUPPORT_CROSS_JOIN, 'not support cross join')
            : new TdError(TD.PLAN_EXPECTED_TS_EQUAL, 'primary timestamp equal condition is expected in join conditions')
        }
        sql += onSql === undefined ? ` CROSS JOIN ${right.piece}` : ` JOIN ${right.piece} ON ${onSql}`
        return
      case 'left':
      case 'right':
      case 'full':
        if (!hasTsEquality(on, leaves)) {
          throw new TdError(TD.PLAN_EXPECTED_TS_EQUAL, 'primary timestamp equal condition is expected in join conditions')
        }
        sql += ` ${j.type.toUpperCase()} JOIN ${right.piece} ON ${onSql as string}`
        driving = j.type === 'right' ? 1 : 0
        return
      default: {
        const out = lateralJoin(j, leaves, on, onSql, ctx, w)
        sql = out.sql
        driving = out.driving
        baseWhere.push(...out.where)
      }
    }
  })
  const lead = leaves[driving]
  const src: Source = {
    kind: 'subquery',
    cols,
    starCols: leaves.flatMap((l) => l.src.starCols),
    qualifiers: seen,
    precision,
    from: () => sql,
    baseWhere,
    ts: lead.tsKey,
  }
  return { src, stmt: windowJoinGroups(stmt, from, lead, cols) }
}

/** SEMI, ANTI, ASOF and WINDOW joins of two tables: the other side per driving row, LATERAL */
function lateralJoin(
  j: JoinItem,
  leaves: Leaf[],
  on: Expr[],
  onSql: string | undefined,
  ctx: CompileCtx,
  w: SqlWriter,
): { sql: string; driving: number; where: string[] } {
  const [side, kind] = j.type.split(' ') as ['left' | 'right', string]
  const driving = side === 'left' ? 0 : 1
  const d = leaves[driving]
  const o = leaves[1 - driving]
  const tsD = d.cols.find((c) => `${c.qualifier}.${c.name}` === d.tsKey)?.raw as string
  const tsO = o.cols.find((c) => `${c.qualifier}.${c.name}` === o.tsKey)?.raw as string
  const inner = (conds: string[], order: string, limit: number | undefined, marker: boolean): string =>
    `(SELECT *${marker ? `, 1 AS ${w.q('__m')}` : ''} FROM ${o.piece}` +
    (conds.length > 0 ? ` WHERE ${conds.map((c) => `(${c})`).join(' AND ')}` : '') +
    order +
    (limit === undefined ? '' : ` LIMIT ${limit}`) +
    `) AS ${o.alias}`
  const jlimit = (dflt: number | undefined): number | undefined => {
    if (j.jlimit !== undefined && (j.jlimit < 0 || j.jlimit > 1024)) {
      throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "jlimit" (JLIMIT must be in [0, 1024])')
    }
    return j.jlimit ?? dflt
  }
  if (kind === 'semi' || kind === 'anti') {
    if (!hasTsEquality(on, leaves)) {
      throw new TdError(TD.PLAN_EXPECTED_TS_EQUAL, 'primary timestamp equal condition is expected in join conditions')
    }
    const lateral = inner([onSql as string], '', 1, true)
    if (kind === 'semi') {
      return { sql: `${d.piece} JOIN LATERAL ${lateral} ON TRUE`, driving, where: [] }
    }
    return { sql: `${d.piece} LEFT JOIN LATERAL ${lateral} ON TRUE`, driving, where: [`${o.alias}.${w.q('__m')} IS NULL`] }
  }
  // ASOF / WINDOW: one optional timestamp rule (ASOF), the rest equalities that group the rows
  const groups: string[] = []
  let rule: { rel: string } | undefined
  for (const c of on) {
    const t = tsComparison(c, leaves)
    if (t !== undefined && kind === 'asof' && rule === undefined) {
      // as `other.ts REL driving.ts`
      rule = { rel: t.x === driving ? FLIP[t.op] : t.op }
      continue
    }
    if (c.kind !== 'binary' || c.op !== '=' || c.left.kind !== 'col' || c.right.kind !== 'col') {
      throw new TdError(TD.PLAN_NOT_SUPPORT_JOIN_COND, 'Not supported join conditions')
    }
    groups.push(compile(c, ctx).sql)
  }
  if (kind === 'asof') {
    const rel = rule?.rel ?? '<='
    const dir = rel === '<' || rel === '<=' ? 'DESC' : 'ASC'
    const lateral = inner([`${tsO} ${rel} ${tsD}`, ...groups], ` ORDER BY ${tsO} ${dir}`, jlimit(1), false)
    return { sql: `${d.piece} LEFT JOIN LATERAL ${lateral} ON TRUE`, driving, where: [] }
  }
  if (j.windowOffset === undefined) {
    throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "window join" (WINDOW_OFFSET is required)')
  }
  const [s, e] = j.windowOffset.map((x: Duration) => durationToTicks(x, ctx.precision))
  if (s > e) {
    throw new TdError(TD.PAR_SYNTAX_ERROR, 'syntax error near "window_offset" (the start offset is after the end offset)')
  }
  const lateral = inner([`${tsO} BETWEEN ${tsD} + (${s}) AND ${tsD} + (${e})`, ...groups], ` ORDER BY ${tsO} ASC`, jlimit(undefined), false)
  return { sql: `${d.piece} LEFT JOIN LATERAL ${lateral} ON TRUE`, driving, where: [] }
}

/**
 * A WINDOW join with aggregates aggregates each driving row's window: group by the driving
 * row (its timestamp, table name and columns, qualified and bare), so those stay selectable.
 */
function windowJoinGroups(stmt: SelectStmt, from: JoinItem, lead: Leaf, all: SourceCol[]): SelectStmt {
  if (from.type !== 'left window' && from.type !== 'right window') {
    return stmt
  }
  if (stmt.groupBy.length > 0 || stmt.partitionBy.length > 0 || stmt.window !== undefined) {
    throw notSupported('GROUP BY, PARTITION BY and windows are not allowed with a window join')
  }
  if (!stmt.items.some((i) => containsAgg(i.expr))) {
    return stmt
  }
  const tsName = lead.tsKey.slice(lead.qualifier.length + 1)
  const groupBy: Expr[] = [{ kind: 'col', table: lead.qualifier, name: tsName }]
  for (const c of lead.cols) {
    if (c.name !== tsName) {
      groupBy.push({ kind: 'col', table: lead.qualifier, name: c.name })
    }
  }
  for (const c of lead.cols) {
    groupBy.push({ kind: 'col', name: c.name })
  }
  return { ...stmt, groupBy: groupBy.filter((g) => g.kind !== 'col' || g.table !== undefined || all.filter((c) => c.name === g.name).length === 1) }
}
