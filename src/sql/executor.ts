import type { Storage } from './catalog/types.js'
import { isSuperUser, noRights } from './catalog/access.js'
import type { Statement } from './ast.js'
import { SqlActivity, type QueryEnd } from './activity.js'
import { classifySql } from './classify.js'
import { executeDdl } from './ddl.js'
import { executeDelete } from './delete.js'
import type { ExecEnv } from './exec-env.js'
import { executeInsert } from './insert.js'
import { executeInsertSelect } from './insert-select.js'
import { parseStatement } from './parser.js'
import { perfTable } from './perf-tables.js'
import type { SqlContext, SqlExecutor, SqlResult } from './result.js'
import { runSelect } from './select/run-select.js'
import { describe, executeShow } from './show.js'
import { executeUser } from './users.js'

const EXEC_ZERO: SqlResult = { kind: 'exec', affectedRows: 0 }

/** Runs one parsed statement. */
async function executeStatement(stmt: Statement, sql: string, ctx: SqlContext, env: ExecEnv, activity: SqlActivity): Promise<SqlResult> {
  switch (stmt.type) {
    case 'select':
      return runSelect(stmt.select, {
        storage: env.storage,
        ctx,
        now: env.now,
        moreSystemTables: (name, catalog, user) => perfTable(name, activity, catalog, user),
      })
    case 'insert':
      if (stmt.targets[0]?.select !== undefined) {
        return { kind: 'exec', affectedRows: await executeInsertSelect(stmt.targets[0], sql, ctx, env, executeInsert) }
      }
      return { kind: 'exec', affectedRows: await executeInsert(stmt.targets, sql, ctx, env) }
    case 'delete':
      return { kind: 'exec', affectedRows: await executeDelete(stmt.table, stmt.where, ctx, env) }
    case 'killQuery': {
      // the statement's owner or a super user (TDengine: the KILL privilege of super users)
      const target = activity.queries().find((q) => q.killId === stmt.id)
      if (target !== undefined && target.user !== ctx.user && !isSuperUser(env.catalog, ctx.user)) {
        throw noRights(`user "${ctx.user}" may not kill a query of "${target.user}"`)
      }
      activity.kill(stmt.id)
      return { ...EXEC_ZERO }
    }
    case 'show':
      if (stmt.show.what === 'other' && (stmt.show.object === 'connections' || stmt.show.object === 'queries')) {
        // SHOW CONNECTIONS / SHOW QUERIES are performance_schema's tables
        const t = perfTable(`perf_${stmt.show.object}`, activity, env.catalog, ctx.user)
        if (t !== undefined) {
          return { kind: 'rows', columns: t.columns, precision: 'ms', rows: (async function* () { yield t.rows })() }
        }
      }
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

/** `src` whose end (last chunk, early return or error) ends the statement's perf_queries entry */
async function* ending<T>(src: AsyncIterable<T>, end: QueryEnd): AsyncIterable<T> {
  try {
    yield* src
  } finally {
    end()
  }
}

/**
 * The SQL layer's entry point: parses one TDengine-dialect statement and runs it against
 * `storage`. `opts.now` fixes the clock (epoch ms) for tests. Every statement is listed in
 * performance_schema.perf_queries while it runs (a query until its last row is read).
 */
export function createSqlExecutor(storage: Storage, opts: { now?: () => number } = {}): SqlExecutor {
  const env: ExecEnv = { catalog: storage.catalog, engine: storage.engine, storage, now: opts.now ?? Date.now }
  const activity = new SqlActivity()
  return {
    async execute(sql: string, outer: SqlContext): Promise<SqlResult> {
      const { ctx, end } = activity.begin(sql, outer)
      let result: SqlResult
      try {
        const stmt = parseStatement(sql)
        result = await executeStatement(stmt, sql, ctx, env, activity)
      } catch (err) {
        end()
        throw err
      }
      if (result.kind === 'exec') {
        end()
        return result
      }
      const rows = ending(result.rows, end)
      return result.numeric === undefined ? { ...result, rows } : { ...result, rows, numeric: ending(result.numeric, end) }
    },
    classify: classifySql,
  }
}
