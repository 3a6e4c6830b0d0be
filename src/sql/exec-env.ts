import type { Catalog, Storage } from './catalog/types.js'
import type { Engine } from '../storage/types.js'

/** What statement executors need: the catalog, the engine and the statement clock. */
export interface ExecEnv {
  catalog: Catalog
  engine: Engine
  storage: Storage
  /** epoch ms; NOW/TODAY are evaluated once per statement from this */
  now: () => number
}
