import type { Engine } from '../storage/types.js'
import type { Storage } from '../storage/index.js'
import type { Statement } from './ast.js'
import type { Catalog } from './catalog-types.js'
import { classifySql } from './classify.js'
import { executeDdl } from './ddl.js'
import { executeInsert } from './insert.js'
import { parseStatement } from './parser.js'
import type { SqlContext, SqlExecutor, SqlResult } from './result.js'
import type { SelectStmt } from './select/ast.js'
import { describe, executeShow } from './show.js'
import { executeUser } from './users.js'

/** What statement executors need: the catalog, the engine and the statement clock. */
export interface ExecEnv {
  catalog: Catalog
  engine: Engine
  storage: Storage
  /** epoch ms; NOW/TODAY are evaluated once per statement from this */
  now: () => number
}

type RunSelect = (stmt: SelectStmt, deps: { storage: Storage; ctx: SqlContext }) => Promise<SqlResult>

let runSelectLoader: Promise<RunSelect> | undefined

// The SELECT engine lives in src/sql/select/run-select.ts (another engineer's module), loaded on
// first use so statements work while it is being built.
async function loadRunSelect(): Promise<RunSelect> {
  runSelectLoader ??= (async () => {
    const path = './select/run-select.js'
    const mod = (await import(path)) as { runSelect?: RunSelect }
    if (typeof mod.runSelect !== 'function') {
      throw new Error('BUG: src/sql/select/run-select.ts does not export runSelect')
    }
    return mod.runSelect
  })()
  return runSelectLoader
}

const EXEC_ZERO: SqlResult = { kind: 'exec', affectedRows: 0 }

/** Runs one parsed statement. */
export async function executeStatement(stmt: Statement, sql: string, ctx: SqlContext, env: ExecEnv): Promise<SqlResult> {
  switch (stmt.type) {
    case 'select': {
      const runSelect = await loadRunSelect()
      return runSelect(stmt.select, { storage: env.storage, ctx })
    }
    case 'insert':
      return { kind: 'exec', affectedRows: await executeInsert(stmt.targets, sql, ctx, env) }
    case 'show':
      return executeShow(stmt.show, env.catalog, ctx)
    case 'describe':
      return describe(env.catalog, stmt.table, ctx)
    case 'createUser':
    case 'alterUser':
    case 'dropUser':
      await executeUser(stmt, env.catalog, ctx)
      return { ...EXEC_ZERO }
    default:
      await executeDdl(stmt, sql, ctx, env)
      return { ...EXEC_ZERO }
  }
}

/**
 * The SQL layer's entry point: parses one TDengine-dialect statement and runs it against
 * `storage`. `opts.now` fixes the clock (epoch ms) for tests.
 */
export function createSqlExecutor(storage: Storage, opts: { now?: () => number } = {}): SqlExecutor {
  const env: ExecEnv = { catalog: storage.catalog, engine: storage.engine, storage, now: opts.now ?? Date.now }
  return {
    async execute(sql: string, ctx: SqlContext): Promise<SqlResult> {
      const stmt = parseStatement(sql)
      return executeStatement(stmt, sql, ctx, env)
    },
    classify: classifySql,
  }
}
