import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { AppConfig } from '../config/types.js'
import { openCatalog } from '../sql/catalog.js'
import type { LoadableCatalog } from '../sql/catalog.js'
import type { Catalog } from '../sql/catalog-types.js'
import type { Engine } from './types.js'

/**
 * An opened backend with its catalog. On PostgreSQL the catalog may still be loading (the
 * database was down at start): until it is, catalog calls throw StorageUnavailableError (503).
 */
export interface Storage {
  engine: Engine
  catalog: Catalog
  close(): Promise<void>
  /**
   * true when requests can be served now: the catalog is loaded and the backend answers
   * (readiness, `/-/ping?action=query`). Optional for hand-built Storage objects in tests.
   */
  healthy?(): Promise<boolean>
}

export interface StorageOptions {
  rootPassword: string
  pool?: AppConfig['pool']
}

/** The PostgreSQL backend module's entry point (src/storage/postgres/index.ts). */
interface PostgresModule {
  openPostgresEngine(url: string, opts: StorageOptions): Promise<Engine>
}

/**
 * Opens the backend named by `--storage.url`: `duckdb:<path>`, `duckdb::memory:`,
 * `postgres://...` / `postgresql://...`.
 */
export async function openStorage(url: string, opts: StorageOptions): Promise<Storage> {
  const engine = await openEngine(url, opts)
  // a shared server may be down at start: the adapter starts anyway, answers 503 and loads the
  // catalog in the background; an embedded file that cannot be read is a startup error
  const lazy = engine.dialect.name === 'postgres'
  let catalog: LoadableCatalog
  try {
    catalog = await openCatalog(engine, { rootPassword: opts.rootPassword, lazy })
  } catch (err) {
    await engine.close()
    throw err
  }
  return {
    engine,
    catalog,
    close: async () => {
      catalog.close()
      await engine.close()
    },
    healthy: async () => catalog.loaded() && (await engine.healthy()),
  }
}

export async function openEngine(url: string, opts: StorageOptions): Promise<Engine> {
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

function readConnections(opts: StorageOptions): { readConnections: number } {
  // DuckDB parallelises inside one query; a few connections are enough for concurrent requests
  const max = opts.pool?.maxConnect
  return { readConnections: max && max > 0 ? Math.min(max, 8) : 4 }
}
