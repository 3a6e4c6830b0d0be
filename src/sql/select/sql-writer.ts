import type { Dialect } from '../../storage/dialect.js'
import type { TdType } from '../../storage/td-types.js'
import type { TypeInfo } from './type-info.js'

/** Spells identifiers, types and literals in the backend's dialect for the planner and the expression compiler. */
export class SqlWriter {
  constructor(readonly dialect: Dialect) {}

  q(name: string): string {
    return this.dialect.quoteIdent(name)
  }

  physType(type: TdType | 'NULL', length = 0): string {
    return this.dialect.columnType({ name: '', type: type === 'NULL' ? 'VARCHAR' : type, length })
  }

  /** SQL literal of a JS value of the given type */
  literal(v: unknown, type: TypeInfo): string {
    if (v === null || v === undefined) {
      return type.type === 'NULL' ? 'NULL' : `CAST(NULL AS ${this.physType(type.type, type.length)})`
    }
    if (typeof v === 'boolean') {
      return v ? 'TRUE' : 'FALSE'
    }
    if (typeof v === 'bigint') {
      return `CAST(${v.toString()} AS ${this.physType('BIGINT')})`
    }
    if (typeof v === 'number') {
      if (type.type === 'FLOAT' || type.type === 'DOUBLE' || !Number.isInteger(v)) {
        return `CAST(${String(v)} AS ${this.physType(type.type === 'FLOAT' ? 'FLOAT' : 'DOUBLE')})`
      }
      return `CAST(${String(v)} AS ${this.physType(type.type === 'NULL' ? 'BIGINT' : type.type, type.length)})`
    }
    if (typeof v === 'object') {
      return this.dialect.quoteString(JSON.stringify(v))
    }
    return this.dialect.quoteString(String(v))
  }
}
