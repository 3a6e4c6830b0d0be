import { openStorage } from '../../src/sql/catalog/open.js'
import { runPreAggregateSuite } from './pre-aggregate.case.js'

runPreAggregateSuite('DuckDB (in memory)', () => openStorage('duckdb::memory:', { rootPassword: 'taosdata' }))
