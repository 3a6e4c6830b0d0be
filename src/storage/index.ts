import type { AppConfig } from '../config/types.js'
import type { Catalog } from '../sql/catalog-types.js'
import type { Engine } from './types.js'

/** An opened backend with its catalog loaded. */
export interface Storage {
  engine: Engine
  catalog: Catalog
  close(): Promise<void>
}

export interface StorageOptions {
  rootPassword: string
  pool?: AppConfig['pool']
}

/**
 * Opens the backend named by `--storage.url`: `duckdb:<path>`, `duckdb::memory:`,
 * `postgres://...` / `postgresql://...`.
 */
export async function openStorage(url: string, _opts: StorageOptions): Promise<Storage> {
  throw new Error(`BUG: storage backend for ${url} is not wired yet`)
}
