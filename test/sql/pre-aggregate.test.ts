import { openStorage } from '../../src/storage/index.js'
import { runPreAggregateSuite } from './pre-aggregate.case.js'

runPreAggregateSuite('DuckDB (in memory)', () => openStorage('duckdb::memory:', { rootPassword: 'taosdata' }))
