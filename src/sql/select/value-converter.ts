import type { TypeInfo } from './type-info.js'

/** converts a backend value into the result.ts form of the column type */
export function converter(t: TypeInfo): (v: unknown) => unknown {
  switch (t.type) {
    case 'BIGINT':
    case 'BIGINT UNSIGNED':
    case 'TIMESTAMP':
      return (v) => (v === null || v === undefined ? null : typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v))))
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'TINYINT UNSIGNED':
    case 'SMALLINT UNSIGNED':
    case 'INT UNSIGNED':
      return (v) => (v === null || v === undefined ? null : Math.trunc(Number(v)))
    case 'FLOAT':
    case 'DOUBLE':
      return (v) => (v === null || v === undefined ? null : Number(v))
    case 'BOOL':
      return (v) => (v === null || v === undefined ? null : Boolean(v))
    case 'JSON':
      return (v) => {
        if (typeof v !== 'string') {
          return v ?? null
        }
        try {
          return JSON.parse(v) as unknown
        } catch {
          return v
        }
      }
    case 'VARCHAR':
    case 'NCHAR':
      return (v) => (v === null || v === undefined ? null : String(v))
    default:
      return (v) => (typeof v === 'bigint' && v >= -(2n ** 53n) && v <= 2n ** 53n ? Number(v) : v ?? null)
  }
}
