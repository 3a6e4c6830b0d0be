import { openStorage } from '../../src/sql/catalog/open.js'
import { runWindowNumberSuite } from './window-number.case.js'

runWindowNumberSuite('DuckDB (in memory)', () => openStorage('duckdb::memory:', { rootPassword: 'taosdata' }))
