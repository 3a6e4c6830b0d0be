import { runConformance } from './conformance.case.js'

runConformance('DuckDB (in memory)', () => 'duckdb::memory:')
