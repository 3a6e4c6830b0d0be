import { describe, expect, it } from 'vitest'
import { PG_MAX_IDENT_BYTES, physicalIdent, postgresDialect as d } from './dialect.js'

describe('physicalIdent / quoteIdent', () => {
  it('keeps names up to 63 bytes and quotes with doubled quotes', () => {
    const n63 = 'a'.repeat(63)
    expect(physicalIdent(n63)).toBe(n63)
    expect(d.quoteIdent('a"b')).toBe('"a""b"')
    expect(d.quoteIdent('st$tags')).toBe('"st$tags"')
  })

  it('shortens longer names deterministically within 63 bytes, distinct per name', () => {
    const a = `${'x'.repeat(70)}_1`
    const b = `${'x'.repeat(70)}_2`
    expect(Buffer.byteLength(physicalIdent(a))).toBeLessThanOrEqual(PG_MAX_IDENT_BYTES)
    expect(physicalIdent(a)).toBe(physicalIdent(a))
    expect(physicalIdent(a)).not.toBe(physicalIdent(b))
    expect(physicalIdent(a).startsWith('x'.repeat(40))).toBe(true)
    // multi-byte characters: counted in bytes, never cut in the middle of one
    const wide = '温度'.repeat(20) // 120 bytes
    const short = physicalIdent(wide)
    expect(Buffer.byteLength(short)).toBeLessThanOrEqual(PG_MAX_IDENT_BYTES)
    expect(short).toMatch(/^(温度|温)+_[0-9a-f]{16}$/)
  })
})

describe('postgresDialect', () => {
  it('maps TDengine types to PostgreSQL types wide enough for their ranges', () => {
    const t = (type: Parameters<typeof d.columnType>[0]['type']): string => d.columnType({ name: 'c', type, length: 8 })
    expect(t('TINYINT UNSIGNED')).toBe('SMALLINT')
    expect(t('SMALLINT UNSIGNED')).toBe('INTEGER')
    expect(t('INT UNSIGNED')).toBe('BIGINT')
    expect(t('BIGINT UNSIGNED')).toBe('NUMERIC(20,0)')
    expect(t('TIMESTAMP')).toBe('BIGINT')
    expect(t('NCHAR')).toBe('TEXT')
    expect(t('JSON')).toBe('TEXT')
    expect(t('FLOAT')).toBe('REAL')
    expect(t('DOUBLE')).toBe('DOUBLE PRECISION')
  })

  it('names schemas with a prefix so db names never hit system schemas or the catalog', () => {
    expect(d.schemaName('public')).toBe('td_public')
    expect(d.schemaName('pg_x')).toBe('td_pg_x')
    expect(d.catalogSchema).toBe('db_adapter_catalog')
    expect(d.quoteString("it's \\ ok")).toBe("'it''s \\ ok'")
  })

  it('builds the TimescaleDB hook as one conditional DO block', () => {
    const [stmt, ...rest] = d.afterCreateDataTable('td_db', 'meters', 'ts', 86_400_000_000_000n)
    expect(rest).toEqual([])
    expect(stmt).toContain(`extname = 'timescaledb'`)
    expect(stmt).toContain(`create_hypertable('"td_db"."meters"'::regclass, 'ts'::name, chunk_time_interval => 86400000000000::bigint`)
    expect(() => d.afterCreateDataTable('s', 't', 'ts', 0)).toThrow(/chunkTicks must be positive/)
  })
})
