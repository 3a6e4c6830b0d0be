export { openPostgresEngine, PostgresEngine } from './engine.js'
export type { CatalogChange } from './replicas.js'
