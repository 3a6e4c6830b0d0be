import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { AppConfig } from '../config/types.js'
import type { Engine } from './types.js'

/** What opening an engine takes besides its URL. */
export interface EngineOptions {
  pool?: AppConfig['pool']
  /** DuckDB memory_limit, bytes (the storage share of the memory budget); PostgreSQL shares it out as work_mem per connection */
  memoryLimitBytes?: number
  /** background work of the engine that failed (DuckDB's checkpoints), for the log; nothing when absent */
  onBackgroundFailure?: (what: string, err: unknown) => void
}

/** The PostgreSQL backend module's entry point (src/storage/postgres/index.ts). */
interface PostgresModule {
  openPostgresEngine(url: string, opts: EngineOptions): Promise<Engine>
}

/**
 * Opens the backend named by `--storage.url`: `duckdb:<path>`, `duckdb::memory:`,
 * `postgres://...` / `postgresql://...`.
 */
export async function openEngine(url: string, opts: EngineOptions): Promise<Engine> {
  if (url === 'duckdb::memory:' || url === 'duckdb:') {
    const { openDuckDBEngine } = await import('./duckdb/engine.js')
    return openDuckDBEngine(':memory:', readConnections(opts))
  }
  if (url.startsWith('duckdb:')) {
    const path = url.slice('duckdb:'.length)
    try {
      await mkdir(dirname(path), { recursive: true })
    } catch (err) {
      throw new Error(`storage.url: cannot create the directory of DuckDB file ${path}: ${(err as Error).message}`, {
        cause: err,
      })
    }
    const { openDuckDBEngine } = await import('./duckdb/engine.js')
    try {
      return await openDuckDBEngine(path, readConnections(opts))
    } catch (err) {
      // e.g. another process holds the file lock, or the file is not a DuckDB database
      throw new Error(`storage.url: cannot open DuckDB file ${path}: ${(err as Error).message}`, { cause: err })
    }
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    // a variable specifier keeps this branch compiling before the backend exists
    const specifier = './postgres/index.js'
    let mod: Partial<PostgresModule>
    try {
      mod = (await import(specifier)) as Partial<PostgresModule>
    } catch (err) {
      throw new Error('PostgreSQL backend not available', { cause: err })
    }
    if (typeof mod.openPostgresEngine !== 'function') {
      throw new Error('PostgreSQL backend not available')
    }
    return mod.openPostgresEngine(url, opts)
  }
  throw new Error(`storage.url: unsupported storage URL "${url}" (expected duckdb:<path>, duckdb::memory: or postgres://...)`)
}

function readConnections(opts: EngineOptions): { readConnections: number; memoryLimitBytes?: number; onBackgroundFailure?: (what: string, err: unknown) => void } {
  // DuckDB parallelises inside one query; a few connections are enough for concurrent requests
  const max = opts.pool?.maxConnect
  return {
    readConnections: max && max > 0 ? Math.min(max, 8) : 4,
    ...(opts.memoryLimitBytes !== undefined ? { memoryLimitBytes: opts.memoryLimitBytes } : {}),
    ...(opts.onBackgroundFailure !== undefined ? { onBackgroundFailure: opts.onBackgroundFailure } : {}),
  }
}
