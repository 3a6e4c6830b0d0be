import type { TdType } from '../../storage/td-types.js'
import { FIXED_LENGTH } from '../types.js'

/** A value type as REST `column_meta` reports it. */
export interface TypeInfo {
  type: TdType | 'NULL'
  length: number
}

/** REST length per type; VARCHAR/NCHAR carry their declared length instead (0 until known). */
const TYPE_LENGTH = { NULL: 1, VARCHAR: 0, NCHAR: 0, ...FIXED_LENGTH } as Readonly<
  Record<TdType | 'NULL', number>
>

export function fixed(type: TdType | 'NULL'): TypeInfo {
  return { type, length: TYPE_LENGTH[type] }
}

export function isSignedInt(t: TypeInfo['type']): boolean {
  return t === 'TINYINT' || t === 'SMALLINT' || t === 'INT' || t === 'BIGINT' || t === 'BOOL'
}

export function isUnsignedInt(t: TypeInfo['type']): boolean {
  return t === 'TINYINT UNSIGNED' || t === 'SMALLINT UNSIGNED' || t === 'INT UNSIGNED' || t === 'BIGINT UNSIGNED'
}

export function isNumeric(t: TypeInfo['type']): boolean {
  return isSignedInt(t) || isUnsignedInt(t) || t === 'FLOAT' || t === 'DOUBLE' || t === 'TIMESTAMP'
}

export function isString(t: TypeInfo['type']): boolean {
  return t === 'VARCHAR' || t === 'NCHAR'
}
