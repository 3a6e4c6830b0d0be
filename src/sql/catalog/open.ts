import { openEngine } from '../../storage/index.js'
import { isStorageUnavailable } from '../../storage/errors.js'
import type { Engine } from '../../storage/types.js'
import { SqlCatalog } from './sql-catalog.js'
import type { RootPasswordOptions } from './root-password.js'
import type { ReplicaHooks } from './state.js'
import type { LoadableCatalog, Storage, StorageOptions } from './types.js'

/** Opening the catalog over an engine, and both together from a storage URL (lifecycle). */

interface OpenCatalogOptions extends RootPasswordOptions {
  /**
   * When the catalog cannot be read because storage is unavailable: resolve anyway with a catalog
   * that keeps retrying in the background and answers StorageUnavailableError until loaded
   * (default false: reject). Errors other than unavailability always reject.
   */
  lazy?: boolean
  /** first retry delay in ms when lazy (doubles up to 5 s); default 250 */
  retryMs?: number
}

export async function openCatalog(engine: Engine, opts: OpenCatalogOptions): Promise<LoadableCatalog> {
  const c = new SqlCatalog(engine)
  const hooks = engine as Engine & ReplicaHooks
  if (typeof hooks.onCatalogChange === 'function') {
    // another replica changed the catalog (or we may have missed changes): re-read it
    c.unsubscribe = hooks.onCatalogChange((e) => {
      if ((!e.fromSelf || e.resync) && c.loaded()) {
        c.refreshSoon()
      }
    })
  }
  try {
    await c.init(opts)
  } catch (err) {
    if (!opts.lazy || !isStorageUnavailable(err)) {
      c.close()
      throw err
    }
    c.retryInit(opts, err, opts.retryMs ?? 250)
  }
  return c
}

/**
 * Opens the backend named by `--storage.url` (`duckdb:<path>`, `duckdb::memory:`,
 * `postgres://...` / `postgresql://...`), then its catalog.
 */
export async function openStorage(url: string, opts: StorageOptions): Promise<Storage> {
  const engine = await openEngine(url, opts)
  // a shared server may be down at start: the adapter starts anyway, answers 503 and loads the
  // catalog in the background; an embedded file that cannot be read is a startup error
  const lazy = engine.dialect.name === 'postgres'
  let catalog: LoadableCatalog
  try {
    catalog = await openCatalog(engine, {
      rootPassword: opts.rootPassword,
      ...(opts.rootPasswordGiven === undefined ? {} : { rootPasswordGiven: opts.rootPasswordGiven }),
      ...(opts.onRootPasswordApplied === undefined ? {} : { onRootPasswordApplied: opts.onRootPasswordApplied }),
      lazy,
    })
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
