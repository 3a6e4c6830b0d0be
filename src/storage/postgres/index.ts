export { openPostgresEngine, PostgresEngine, CATALOG_CHANNEL, advisoryLockId, isConnectionError } from './engine.js'
export type { CatalogChange, PostgresEngineOptions } from './engine.js'
export { postgresDialect, postgresColumnType, physicalIdent } from './dialect.js'
export type { PostgresDialect } from './dialect.js'
