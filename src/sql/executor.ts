import type { Storage } from './catalog/types.js'
import type { Statement } from './ast.js'
import { classifySql } from './classify.js'
import { executeDdl } from './ddl.js'
import { executeDelete } from './delete.js'
import type { ExecEnv } from './exec-env.js'
import { executeInsert } from './insert.js'
import { executeInsertSelect } from './insert-select.js'
import { parseStatement } from './parser.js'
import type { SqlContext, SqlExecutor, SqlResult } from './result.js'
import { runSelect } from './select/run-select.js'
import { describe, executeShow } from './show.js'
import { executeUser } from './users.js'

const EXEC_ZERO: SqlResult = { kind: 'exec', affectedRows: 0 }

/** Runs one parsed statement. */
async function executeStatement(stmt: Statement, sql: string, ctx: SqlContext, env: ExecEnv): Promise<SqlResult> {
  switch (stmt.type) {
    case 'select':
      return runSelect(stmt.select, { storage: env.storage, ctx, now: env.now })
    case 'insert':
      if (stmt.targets[0]?.select !== undefined) {
        return { kind: 'exec', affectedRows: await executeInsertSelect(stmt.targets[0], sql, ctx, env, executeInsert) }
      }
      return { kind: 'exec', affectedRows: await executeInsert(stmt.targets, sql, ctx, env) }
    case 'delete':
      return { kind: 'exec', affectedRows: await executeDelete(stmt.table, stmt.where, ctx, env) }
    case 'show':
      return executeShow(stmt.show, env.catalog, ctx)
    case 'describe':
      return describe(env.catalog, stmt.table, ctx)
    case 'createUser':
    case 'alterUser':
    case 'dropUser':
    case 'grant':
    case 'revoke':
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
