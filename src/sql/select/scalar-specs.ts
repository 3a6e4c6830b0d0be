import { bigint, concatType, double, same, type FuncSpec } from './func-spec.js'
import { extremeType } from './scalar-extra.js'
import { fixed, type TypeInfo } from './type-info.js'

/**
 * The scalar functions of TDengine 3's list beyond the common subset in functions.ts (maths,
 * strings, time, conversion). Their SQL is written by scalar-call.ts; types follow the function
 * reference (docs/en/14-reference/03-taos-sql/10-function.md).
 */
type ScalarSpec = FuncSpec & { kind: 'scalar' }

const timestamp = (): TypeInfo => fixed('TIMESTAMP')

function spec(name: string, minArgs: number, maxArgs: number, result: (args: TypeInfo[]) => TypeInfo): ScalarSpec {
  return { name, kind: 'scalar', minArgs, maxArgs, result }
}

export const SCALAR_SPECS: ScalarSpec[] = [
  // maths
  ...['sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'exp', 'ln', 'degrees', 'radians'].map((n) => spec(n, 1, 1, double)),
  spec('pi', 0, 0, double),
  spec('mod', 2, 2, double),
  spec('rand', 0, 1, double),
  spec('sign', 1, 1, same),
  spec('truncate', 2, 2, same),
  spec('greatest', 2, 64, extremeType),
  spec('least', 2, 64, extremeType),
  spec('crc32', 1, 1, () => fixed('INT UNSIGNED')),
  spec('to_json', 1, 1, () => ({ type: 'JSON', length: 4095 })),
  // strings
  spec('concat_ws', 3, 9, (a) => {
    const j = concatType(a.slice(1))
    return { type: j.type, length: j.length + (a.length - 2) * (a[0]?.length ?? 0) }
  }),
  spec('substr', 2, 3, same),
  spec('substring', 2, 3, same),
  spec('substring_index', 3, 3, same),
  spec('replace', 3, 3, same),
  spec('repeat', 2, 2, same),
  // TRIM([{LEADING|TRAILING|BOTH}] [remstr] FROM expr) arrives as trim(expr, remstr, side)
  spec('trim', 1, 3, same),
  spec('ascii', 1, 1, bigint),
  spec('position', 2, 2, bigint),
  spec('char', 1, 64, (a) => ({ type: 'VARCHAR', length: a.length * 4 })),
  // time
  spec('timetruncate', 2, 3, timestamp),
  spec('timediff', 2, 3, bigint),
  spec('to_iso8601', 1, 2, () => ({ type: 'VARCHAR', length: 64 })),
  spec('to_unixtimestamp', 1, 2, bigint),
  spec('to_char', 2, 2, () => ({ type: 'VARCHAR', length: 4096 })),
  spec('to_timestamp', 2, 2, timestamp),
  spec('weekday', 1, 1, bigint),
  spec('dayofweek', 1, 1, bigint),
  spec('week', 1, 2, bigint),
  spec('weekofyear', 1, 1, bigint),
]
