import { SCALAR_SPECS } from './scalar-specs.js'
import { bigint, concatType, double, same, type FuncSpec } from './func-spec.js'
import { fixed, isSignedInt, isUnsignedInt, type TypeInfo } from './type-info.js'

/** SUM: BIGINT for signed integers, BIGINT UNSIGNED for unsigned, DOUBLE for floats (section 6.1). */
function sumType(args: TypeInfo[]): TypeInfo {
  const t = args[0]?.type
  if (t !== undefined && isUnsignedInt(t)) {
    return fixed('BIGINT UNSIGNED')
  }
  if (t !== undefined && isSignedInt(t)) {
    return fixed('BIGINT')
  }
  return fixed('DOUBLE')
}


const SPECS: FuncSpec[] = [
  // aggregates (section 6.1)
  { name: 'count', kind: 'aggregate', minArgs: 1, maxArgs: 1, result: bigint },
  { name: 'avg', kind: 'aggregate', minArgs: 1, maxArgs: 1, result: double },
  { name: 'sum', kind: 'aggregate', minArgs: 1, maxArgs: 1, result: sumType },
  { name: 'spread', kind: 'aggregate', minArgs: 1, maxArgs: 1, result: double },
  { name: 'stddev', kind: 'aggregate', minArgs: 1, maxArgs: 1, result: double },
  { name: 'stddev_pop', kind: 'aggregate', minArgs: 1, maxArgs: 1, result: double },
  // statistical aggregates (agg-extra.ts)
  { name: 'var_pop', kind: 'aggregate', minArgs: 1, maxArgs: 1, result: double },
  { name: 'percentile', kind: 'aggregate', minArgs: 2, maxArgs: 11, result: double },
  { name: 'apercentile', kind: 'aggregate', minArgs: 2, maxArgs: 3, result: double },
  { name: 'mode', kind: 'aggregate', minArgs: 1, maxArgs: 1, result: same },
  { name: 'hyperloglog', kind: 'aggregate', minArgs: 1, maxArgs: 1, result: bigint },
  { name: 'elapsed', kind: 'aggregate', minArgs: 1, maxArgs: 2, result: double },
  { name: 'irate', kind: 'aggregate', minArgs: 1, maxArgs: 1, result: double },
  { name: 'twa', kind: 'aggregate', minArgs: 1, maxArgs: 1, result: double },
  { name: 'leastsquares', kind: 'aggregate', minArgs: 3, maxArgs: 3, result: () => ({ type: 'VARCHAR', length: 126 }) },
  { name: 'histogram', kind: 'aggregate', minArgs: 4, maxArgs: 4, result: () => ({ type: 'VARCHAR', length: 510 }) },
  // selection functions (section 6.2): one row's value, so plain columns may ride along
  { name: 'min', kind: 'selection', minArgs: 1, maxArgs: 1, result: same },
  { name: 'max', kind: 'selection', minArgs: 1, maxArgs: 1, result: same },
  { name: 'first', kind: 'selection', minArgs: 1, maxArgs: 1, result: same },
  { name: 'last', kind: 'selection', minArgs: 1, maxArgs: 1, result: same },
  { name: 'last_row', kind: 'selection', minArgs: 1, maxArgs: 1, result: same },
  // time-series functions (section 6.3): the first row of each slice has no output
  { name: 'diff', kind: 'timeseries', minArgs: 1, maxArgs: 2, result: (a) => (a[0] !== undefined && (isSignedInt(a[0].type) || isUnsignedInt(a[0].type) || a[0].type === 'TIMESTAMP') ? fixed('BIGINT') : fixed('DOUBLE')) },
  { name: 'derivative', kind: 'timeseries', minArgs: 3, maxArgs: 3, result: double },
  // several rows per partition (rows-funcs.ts; types there)
  { name: 'csum', kind: 'rows', minArgs: 1, maxArgs: 1, result: same },
  { name: 'mavg', kind: 'rows', minArgs: 2, maxArgs: 2, result: double },
  { name: 'statecount', kind: 'rows', minArgs: 3, maxArgs: 3, result: bigint },
  { name: 'stateduration', kind: 'rows', minArgs: 3, maxArgs: 4, result: bigint },
  { name: 'top', kind: 'rows', minArgs: 2, maxArgs: 2, result: same },
  { name: 'bottom', kind: 'rows', minArgs: 2, maxArgs: 2, result: same },
  { name: 'sample', kind: 'rows', minArgs: 2, maxArgs: 2, result: same },
  { name: 'tail', kind: 'rows', minArgs: 2, maxArgs: 3, result: same },
  { name: 'unique', kind: 'rows', minArgs: 1, maxArgs: 1, result: same },
  // scalar functions (section 6.4, the common subset)
  { name: 'abs', kind: 'scalar', minArgs: 1, maxArgs: 1, result: same },
  { name: 'ceil', kind: 'scalar', minArgs: 1, maxArgs: 1, result: same },
  { name: 'floor', kind: 'scalar', minArgs: 1, maxArgs: 1, result: same },
  { name: 'round', kind: 'scalar', minArgs: 1, maxArgs: 2, result: same },
  { name: 'sqrt', kind: 'scalar', minArgs: 1, maxArgs: 1, result: double },
  { name: 'pow', kind: 'scalar', minArgs: 2, maxArgs: 2, result: double },
  { name: 'log', kind: 'scalar', minArgs: 1, maxArgs: 2, result: double },
  { name: 'lower', kind: 'scalar', minArgs: 1, maxArgs: 1, result: same },
  { name: 'upper', kind: 'scalar', minArgs: 1, maxArgs: 1, result: same },
  { name: 'ltrim', kind: 'scalar', minArgs: 1, maxArgs: 1, result: same },
  { name: 'rtrim', kind: 'scalar', minArgs: 1, maxArgs: 1, result: same },
  { name: 'length', kind: 'scalar', minArgs: 1, maxArgs: 1, result: bigint },
  { name: 'char_length', kind: 'scalar', minArgs: 1, maxArgs: 1, result: bigint },
  { name: 'concat', kind: 'scalar', minArgs: 2, maxArgs: 8, result: concatType },
  { name: 'coalesce', kind: 'scalar', minArgs: 1, maxArgs: 16, result: same },
  { name: 'ifnull', kind: 'scalar', minArgs: 2, maxArgs: 2, result: same },
  // system functions (section 6.5), evaluated at plan time
  { name: 'server_version', kind: 'system', minArgs: 0, maxArgs: 0, result: () => ({ type: 'VARCHAR', length: 30 }) },
  { name: 'client_version', kind: 'system', minArgs: 0, maxArgs: 0, result: () => ({ type: 'VARCHAR', length: 30 }) },
  { name: 'server_status', kind: 'system', minArgs: 0, maxArgs: 0, result: () => fixed('INT') },
  { name: 'database', kind: 'system', minArgs: 0, maxArgs: 0, result: () => ({ type: 'VARCHAR', length: 63 }) },
  { name: 'current_user', kind: 'system', minArgs: 0, maxArgs: 0, result: () => ({ type: 'VARCHAR', length: 22 }) },
  { name: 'user', kind: 'system', minArgs: 0, maxArgs: 0, result: () => ({ type: 'VARCHAR', length: 22 }) },
  { name: 'timezone', kind: 'system', minArgs: 0, maxArgs: 0, result: () => ({ type: 'VARCHAR', length: 64 }) },
  { name: 'now', kind: 'system', minArgs: 0, maxArgs: 0, result: () => fixed('TIMESTAMP') },
  { name: 'today', kind: 'system', minArgs: 0, maxArgs: 0, result: () => fixed('TIMESTAMP') },
  // the rest of TDengine 3's scalar list (maths, strings, time)
  ...SCALAR_SPECS,
]

export const FUNCTIONS: ReadonlyMap<string, FuncSpec> = new Map(SPECS.map((s) => [s.name, s]))

/** The version every version function reports; must start with `3` (Grafana picks its endpoint by it). */
export const SERVER_VERSION = '3.3.6.0'

export function isAggregateName(name: string): boolean {
  const k = FUNCTIONS.get(name)?.kind
  return k === 'aggregate' || k === 'selection'
}
