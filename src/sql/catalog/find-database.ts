import type { DatabaseInfo } from '../../storage/td-types.js'
import type { Catalog } from './types.js'

/**
 * A database by name, re-reading the catalog once when it is missing and the catalog is shared
 * (another replica may have created it a moment ago and its NOTIFY not arrived yet). The re-read
 * is rate-limited by the catalog (refreshOnMiss), so clients naming missing databases cost little.
 */
export async function findDatabase(catalog: Catalog, name: string): Promise<DatabaseInfo | undefined> {
  const found = catalog.getDatabase(name)
  if (found !== undefined) {
    return found
  }
  const loadable = catalog as Catalog & { refreshOnMiss?: () => Promise<boolean> }
  if (typeof loadable.refreshOnMiss === 'function' && (await loadable.refreshOnMiss())) {
    return catalog.getDatabase(name)
  }
  return undefined
}
