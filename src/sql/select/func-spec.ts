import { fixed, isString, type TypeInfo } from './type-info.js'

/**
 * timeseries: row-aligned functions over the previous row of the same slice (DIFF, DERIVATIVE);
 * rows: several rows per partition, window functions too (rows-funcs.ts)
 */
export type FuncKind = 'aggregate' | 'selection' | 'scalar' | 'system' | 'timeseries' | 'rows'

/** One function of the catalogue (functions.ts, scalar-specs.ts): its kind, arity and result type. */
export interface FuncSpec {
  name: string
  kind: FuncKind
  minArgs: number
  maxArgs: number
  /** result type from the argument types */
  result(args: TypeInfo[]): TypeInfo
}

/** result types shared by the catalogue's entries */
export const same = (args: TypeInfo[]): TypeInfo => args[0] ?? fixed('NULL')
export const double = (): TypeInfo => fixed('DOUBLE')
export const bigint = (): TypeInfo => fixed('BIGINT')

/** CONCAT, CONCAT_WS: NCHAR when any argument is, long enough for every argument (numbers as 20) */
export function concatType(args: TypeInfo[]): TypeInfo {
  const nchar = args.some((a) => a.type === 'NCHAR')
  return { type: nchar ? 'NCHAR' : 'VARCHAR', length: args.reduce((n, a) => n + (isString(a.type) ? a.length : 20), 0) }
}
