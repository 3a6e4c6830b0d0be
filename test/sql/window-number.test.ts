import { openStorage } from '../../src/storage/index.js'
import { runWindowNumberSuite } from './window-number.case.js'

runWindowNumberSuite('DuckDB (in memory)', () => openStorage('duckdb::memory:', { rootPassword: 'taosdata' }))
