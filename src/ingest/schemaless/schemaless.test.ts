/**
 * The schemaless core over real DuckDB storage (no HTTP): schema creation and evolution, typing,
 * child naming, per-line errors, timestamp conversion, in-request merging, auto-create, ttl and
 * concurrent writers. Expected child names are computed here from the documented rule
 * (md5 of `stable,k1=v1,...` with tags sorted by key), not taken from the code under test.
 */
import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TdError } from '../../td-error.js'
import { createSqlExecutor } from '../../sql/executor.js'
import type { SqlExecutor } from '../../sql/result.js'
import { openStorage } from '../../sql/catalog/open.js'
import type { Storage } from '../../sql/catalog/types.js'
import type { Field, Point } from '../point.js'
import { createSchemaless } from './schemaless.js'
import type { Schemaless } from '../types.js'

function md5Name(stable: string, tags: Array<[string, string]>): string {
  const sorted = [...tags].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  let s = stable
  for (const [k, v] of sorted) {
    s += `,${k}=${v}`
  }
  return `t_${createHash('md5').update(s).digest('hex')}`
}

function pt(measurement: string, tags: Array<[string, string]>, fields: Field[], ts: bigint | null): Point {
  return { measurement, tags, fields, ts }
}
const dbl = (name: string, value: number): Field => ({ name, type: 'DOUBLE', value })
const big = (name: string, value: bigint): Field => ({ name, type: 'BIGINT', value })
const str = (name: string, value: string): Field => ({ name, type: 'VARCHAR', value })

let storage: Storage
let sql: SqlExecutor
let sml: Schemaless

async function rows(q: string): Promise<unknown[][]> {
  const r = await sql.execute(q, { user: 'root' })
  if (r.kind !== 'rows') {
    throw new Error('expected rows')
  }
  const out: unknown[][] = []
  for await (const chunk of r.rows) {
    out.push(...chunk)
  }
  return out
}

async function describeTable(q: string): Promise<Array<[string, string, number, string]>> {
  return (await rows(`describe ${q}`)) as Array<[string, string, number, string]>
}

beforeEach(async () => {
  storage = await openStorage('duckdb::memory:', { rootPassword: 'taosdata' })
  sql = createSqlExecutor(storage)
  sml = createSchemaless(storage, { autoCreateDb: false })
  await storage.catalog.createDatabase('db', { precision: 'ns' }, false)
})

afterEach(async () => {
  await storage.close()
})

describe('schemaless core', () => {
  it('creates super table, typed columns, NCHAR tags and the md5 child, with exact values', async () => {
    const r = await sml.write(
      'db',
      [
        pt(
          'cpu',
          [
            ['host', 'server01'],
            ['region', 'eu'],
          ],
          [
            dbl('usage', 12.5),
            big('count', 9007199254740993n),
            { name: 'u', type: 'BIGINT UNSIGNED', value: 18446744073709551615n },
            { name: 'f', type: 'FLOAT', value: 1.5 },
            { name: 'ok', type: 'BOOL', value: true },
            str('msg', 'hello'),
            { name: 'n', type: 'NCHAR', value: 'héllo wörld' },
            { name: 'small', type: 'TINYINT', value: -5 },
          ],
          1_700_000_000_123n,
        ),
      ],
      { user: 'root', precision: 'ms' },
    )
    expect(r).toEqual({ written: 1, rejected: 0, errors: [] })
    expect(await describeTable('db.cpu')).toEqual([
      ['_ts', 'TIMESTAMP', 8, ''],
      ['usage', 'DOUBLE', 8, ''],
      ['count', 'BIGINT', 8, ''],
      ['u', 'BIGINT UNSIGNED', 8, ''],
      ['f', 'FLOAT', 4, ''],
      ['ok', 'BOOL', 1, ''],
      // 5 bytes -> next power of two above it
      ['msg', 'VARCHAR', 8, ''],
      // 11 characters -> 16
      ['n', 'NCHAR', 16, ''],
      ['small', 'TINYINT', 1, ''],
      // 8 characters -> 16 (strictly greater), 2 -> 4
      ['host', 'NCHAR', 16, 'TAG'],
      ['region', 'NCHAR', 4, 'TAG'],
    ])
    const child = md5Name('cpu', [
      ['host', 'server01'],
      ['region', 'eu'],
    ])
    expect(await rows('select tbname, cast(_ts as bigint), usage, count, u, f, ok, msg, n, small, host, region from db.cpu')).toEqual([
      [child, 1_700_000_000_123_000_000n, 12.5, 9007199254740993n, 18446744073709551615n, 1.5, true, 'hello', 'héllo wörld', -5, 'server01', 'eu'],
    ])
  })

  it('a measurement without tags gets the _tag_null tag and a child named after the measurement alone', async () => {
    await sml.write('db', [pt('bare', [], [dbl('v', 1)], 5n)], { user: 'root', precision: 'ns' })
    expect(await describeTable('db.bare')).toEqual([
      ['_ts', 'TIMESTAMP', 8, ''],
      ['v', 'DOUBLE', 8, ''],
      ['_tag_null', 'NCHAR', 1, 'TAG'],
    ])
    expect(await rows('select tbname, _tag_null, v from db.bare')).toEqual([[md5Name('bare', []), null, 1]])
  })

  it('tag order in the line does not matter: one child table', async () => {
    await sml.write(
      'db',
      [
        pt('m', [['b', '2'], ['a', '1']], [dbl('v', 1)], 1n),
        pt('m', [['a', '1'], ['b', '2']], [dbl('v', 2)], 2n),
      ],
      { user: 'root', precision: 'ns' },
    )
    const name = md5Name('m', [['a', '1'], ['b', '2']])
    expect(await rows('select tbname, cast(_ts as bigint), v from db.m order by _ts')).toEqual([
      [name, 1n, 1],
      [name, 2n, 2],
    ])
  })

  it('a type conflict rejects that line only, naming line, field and both types', async () => {
    await sml.write('db', [pt('m', [['h', 'a']], [dbl('v', 1)], 1n)], { user: 'root', precision: 'ns' })
    const r = await sml.write(
      'db',
      [
        pt('m', [['h', 'a']], [dbl('v', 2)], 2n),
        pt('m', [['h', 'a']], [big('v', 3n)], 3n),
        pt('m', [['h', 'b']], [dbl('v', 4)], 4n),
      ],
      { user: 'root', precision: 'ns' },
    )
    expect(r.written).toBe(2)
    expect(r.rejected).toBe(1)
    expect(r.errors).toHaveLength(1)
    expect(r.errors[0].line).toBe(2)
    expect(r.errors[0].message).toContain('line 2')
    expect(r.errors[0].message).toContain('"v"')
    expect(r.errors[0].message).toContain('DOUBLE')
    expect(r.errors[0].message).toContain('BIGINT')
    expect(await rows('select cast(_ts as bigint), v, h from db.m order by _ts')).toEqual([
      [1n, 1, 'a'],
      [2n, 2, 'a'],
      [4n, 4, 'b'],
    ])
  })

  it('conflicting types for a new field inside one request: the later line is rejected', async () => {
    const r = await sml.write(
      'db',
      [pt('m', [], [big('x', 1n)], 1n), pt('m', [], [dbl('x', 1.5)], 2n)],
      { user: 'root', precision: 'ns' },
    )
    expect(r.rejected).toBe(1)
    expect(r.errors[0].message).toMatch(/line 2: field "x" type mismatch: line 1 of this request sent BIGINT, this line sent DOUBLE/)
    expect(await describeTable('db.m')).toContainEqual(['x', 'BIGINT', 8, ''])
  })

  it('a new field adds a column (older rows NULL); a longer string widens to the next power of two', async () => {
    await sml.write('db', [pt('m', [['h', 'a']], [str('s', 'abc')], 1n)], { user: 'root', precision: 'ns' })
    expect(await describeTable('db.m')).toContainEqual(['s', 'VARCHAR', 4, ''])
    await sml.write(
      'db',
      [pt('m', [['h', 'a']], [str('s', 'x'.repeat(20)), dbl('extra', 7)], 2n)],
      { user: 'root', precision: 'ns' },
    )
    const d = await describeTable('db.m')
    expect(d).toContainEqual(['s', 'VARCHAR', 32, ''])
    expect(d).toContainEqual(['extra', 'DOUBLE', 8, ''])
    expect(await rows('select cast(_ts as bigint), s, extra from db.m order by _ts')).toEqual([
      [1n, 'abc', null],
      [2n, 'x'.repeat(20), 7],
    ])
    // a new tag on a new child widens nothing else and adds the tag column
    await sml.write('db', [pt('m', [['h', 'b'], ['zone', 'z'.repeat(40)]], [str('s', 'q')], 3n)], { user: 'root', precision: 'ns' })
    expect(await describeTable('db.m')).toContainEqual(['zone', 'NCHAR', 64, 'TAG'])
  })

  it('VARCHAR lengths count UTF-8 bytes, NCHAR lengths characters', async () => {
    // 4 characters of 3 bytes each = 12 bytes -> 16; as NCHAR 4 characters -> 8
    await sml.write(
      'db',
      [pt('m', [], [str('v', '€€€€'), { name: 'n', type: 'NCHAR', value: '€€€€' }], 1n)],
      { user: 'root', precision: 'ns' },
    )
    const d = await describeTable('db.m')
    expect(d).toContainEqual(['v', 'VARCHAR', 16, ''])
    expect(d).toContainEqual(['n', 'NCHAR', 8, ''])
  })

  it('same child and timestamp twice in a request: fields merge and the later line wins; later requests overwrite', async () => {
    await sml.write(
      'db',
      [pt('m', [['h', 'a']], [dbl('a', 1), dbl('b', 2)], 10n), pt('m', [['h', 'a']], [dbl('a', 5)], 10n)],
      { user: 'root', precision: 'ns' },
    )
    expect(await rows('select cast(_ts as bigint), a, b from db.m')).toEqual([[10n, 5, 2]])
    // a later request naming only `b` keeps `a`
    await sml.write('db', [pt('m', [['h', 'a']], [dbl('b', 9)], 10n)], { user: 'root', precision: 'ns' })
    expect(await rows('select cast(_ts as bigint), a, b from db.m')).toEqual([[10n, 5, 9]])
  })

  it('rows with different field sets in one child are all written', async () => {
    await sml.write(
      'db',
      [
        pt('m', [], [dbl('a', 1)], 1n),
        pt('m', [], [dbl('b', 2)], 2n),
        pt('m', [], [dbl('a', 3), dbl('b', 4)], 3n),
      ],
      { user: 'root', precision: 'ns' },
    )
    expect(await rows('select cast(_ts as bigint), a, b from db.m order by _ts')).toEqual([
      [1n, 1, null],
      [2n, null, 2],
      [3n, 3, 4],
    ])
  })

  it('converts every request precision exactly into the database precision', async () => {
    await storage.catalog.createDatabase('dms', { precision: 'ms' }, false)
    const cases: Array<['h' | 'm' | 's' | 'ms' | 'us' | 'ns', bigint, bigint, bigint]> = [
      // precision, sent, expected in ns db, expected in ms db
      ['h', 2n, 7_200_000_000_000n, 7_200_000n],
      ['m', 3n, 180_000_000_000n, 180_000n],
      ['s', 1_700_000_000n, 1_700_000_000_000_000_000n, 1_700_000_000_000n],
      ['ms', 1_700_000_000_123n, 1_700_000_000_123_000_000n, 1_700_000_000_123n],
      ['us', 1_700_000_000_123_456n, 1_700_000_000_123_456_000n, 1_700_000_000_123n],
      ['ns', 1_700_000_000_123_456_789n, 1_700_000_000_123_456_789n, 1_700_000_000_123n],
      // floor, not truncation, before 1970
      ['us', -1_500n, -1_500_000n, -2n],
    ]
    for (const [precision, sent, inNs, inMs] of cases) {
      for (const db of ['db', 'dms']) {
        const r = await sml.write(db, [pt(`p_${precision}_${sent < 0n ? 'neg' : 'pos'}`, [], [dbl('v', 1)], sent)], { user: 'root', precision })
        expect(r.rejected).toBe(0)
        const got = await rows(`select cast(_ts as bigint) from ${db}.p_${precision}_${sent < 0n ? 'neg' : 'pos'}`)
        expect(got, `${precision} ${sent} into ${db}`).toEqual([[db === 'db' ? inNs : inMs]])
      }
    }
  })

  it('a timestamp that overflows the database precision rejects its line', async () => {
    const r = await sml.write(
      'db',
      [pt('m', [], [dbl('v', 1)], 10_000_000_000n), pt('m', [], [dbl('v', 2)], 1n)],
      { user: 'root', precision: 's' },
    )
    expect(r.rejected).toBe(1)
    expect(r.errors[0]).toEqual({ line: 1, message: expect.stringContaining('out of range') as unknown as string })
    expect(r.written).toBe(1)
  })

  it('a missing timestamp uses the server time', async () => {
    const before = BigInt(Date.now()) * 1_000_000n
    await sml.write('db', [pt('m', [], [dbl('v', 1)], null)], { user: 'root', precision: 'ns' })
    const after = BigInt(Date.now()) * 1_000_000n
    const [[ts]] = (await rows('select cast(_ts as bigint) from db.m')) as [[bigint]]
    expect(ts >= before && ts <= after).toBe(true)
  })

  it('missing database: TdError 904 without autoCreate, created with precision ns with it', async () => {
    await expect(sml.write('nodb', [pt('m', [], [dbl('v', 1)], 1n)], { user: 'root', precision: 'ns' })).rejects.toMatchObject({
      code: 904,
    })
    expect(storage.catalog.getDatabase('nodb')).toBeUndefined()
    const auto = createSchemaless(storage, { autoCreateDb: true })
    const r = await auto.write('NewDb', [pt('m', [], [dbl('v', 1)], 1_000n)], { user: 'root', precision: 'us' })
    expect(r.written).toBe(1)
    // db names are case-folded like the unquoted name in taosAdapter's `use <db>`
    expect(storage.catalog.getDatabase('newdb')?.precision).toBe('ns')
    expect(await rows('select cast(_ts as bigint) from newdb.m')).toEqual([[1_000_000n]])
  })

  it('rejects unusable database names', async () => {
    await expect(sml.write('bad-name', [], { user: 'root', precision: 'ns' })).rejects.toBeInstanceOf(TdError)
  })

  it('ttl applies to child tables the request creates; the first value wins', async () => {
    await sml.write('db', [pt('m', [['h', 'a']], [dbl('v', 1)], 1n)], { user: 'root', precision: 'ns', ttl: 7 })
    await sml.write('db', [pt('m', [['h', 'a']], [dbl('v', 2)], 2n), pt('m', [['h', 'b']], [dbl('v', 2)], 2n)], { user: 'root', precision: 'ns', ttl: 30 })
    await sml.write('db', [pt('m', [['h', 'c']], [dbl('v', 2)], 2n)], { user: 'root', precision: 'ns' })
    expect(await rows(`select table_name, ttl from information_schema.ins_tables where db_name = 'db' order by table_name`)).toEqual(
      [
        [md5Name('m', [['h', 'a']]), 7],
        [md5Name('m', [['h', 'b']]), 30],
        [md5Name('m', [['h', 'c']]), 0],
      ].sort((x, y) => (String(x[0]) < String(y[0]) ? -1 : 1)),
    )
  })

  it('rejects a field named like a tag, a duplicate field and a tag named like a field', async () => {
    await sml.write('db', [pt('m', [['h', 'a']], [dbl('v', 1)], 1n)], { user: 'root', precision: 'ns' })
    const r = await sml.write(
      'db',
      [
        pt('m', [['h', 'a']], [dbl('h', 1)], 2n),
        pt('m', [['h', 'a']], [dbl('v', 1), dbl('v', 2)], 3n),
        pt('m', [['v', 'x']], [dbl('w', 1)], 4n),
        pt('m', [['h', 'z']], [dbl('V2', 1), dbl('v2', 2)], 5n),
        pt('m', [['h', 'a']], [dbl('v', 9)], 6n),
      ],
      { user: 'root', precision: 'ns' },
    )
    expect(r.errors.map((e) => e.line)).toEqual([1, 2, 3, 4])
    expect(r.errors[0].message).toContain('tag')
    expect(r.errors[1].message).toContain('twice')
    expect(r.errors[2].message).toContain('field')
    expect(r.written).toBe(1)
    // nothing of the rejected lines was created
    expect(storage.catalog.listTables('db')).toHaveLength(1)
    expect((await describeTable('db.m')).map((c) => c[0])).toEqual(['_ts', 'v', 'h'])
  })

  it('names with control characters and tag values with NUL are rejected per line', async () => {
    const r = await sml.write(
      'db',
      [
        pt('bad\u0000m', [], [dbl('v', 1)], 1n),
        pt('m', [['h', 'a\u0000b']], [dbl('v', 1)], 1n),
        pt('m', [['h\nx', 'a']], [dbl('v', 1)], 1n),
        pt('m', [], [dbl('v\u0001', 1)], 1n),
        pt('m', [['h', 'ok']], [dbl('v', 1)], 1n),
      ],
      { user: 'root', precision: 'ns' },
    )
    expect(r.errors.map((e) => e.line)).toEqual([1, 2, 3, 4])
    expect(r.errors.map((e) => /control character|NUL/.test(e.message))).toEqual([true, true, true, true])
    expect(r.written).toBe(1)
  })

  it('names holding half of a surrogate pair are rejected per line, and the super table keeps taking writes', async () => {
    const r = await sml.write(
      'db',
      [
        pt('bad\ud800m', [], [dbl('v', 1)], 1n),
        pt('m', [['h', 'a'], ['\ud800dc', 'lga']], [dbl('v', 1)], 1n),
        pt('m', [['h', 'a']], [dbl('v\udc00', 1)], 1n),
        pt('m', [['h', 'a'], ['\ud83d\ude00', 'ok']], [dbl('v', 1)], 1n),
      ],
      { user: 'root', precision: 'ns' },
    )
    expect(r.errors.map((e) => e.line)).toEqual([1, 2, 3])
    expect(r.errors.every((e) => /surrogate/.test(e.message))).toBe(true)
    expect(r.written).toBe(1)
    // before, the lone half became a tag the storage named differently, and every later write of m failed
    const again = await sml.write('db', [pt('m', [['h', 'b'], ['dc', 'x']], [dbl('v', 2)], 2n)], { user: 'root', precision: 'ns' })
    expect(again).toMatchObject({ written: 1, rejected: 0 })
  })

  it('tbname, _tid and _seq as a tag or field name are rejected per line (storage reserves them)', async () => {
    const r = await sml.write(
      'db',
      [
        pt('m', [['tbname', 'a']], [dbl('v', 1)], 1n),
        pt('m', [['_TID', 'a']], [dbl('v', 1)], 2n),
        pt('m', [['h', 'a']], [dbl('_tid', 1)], 3n),
        pt('m', [['h', 'a']], [dbl('TbName', 1)], 4n),
        pt('m', [['h', 'a']], [dbl('_seq', 1)], 5n),
        pt('m', [['h', 'a']], [dbl('v', 1)], 6n),
      ],
      { user: 'root', precision: 'ns' },
    )
    expect(r.errors.map((e) => e.line)).toEqual([1, 2, 3, 4, 5])
    expect(r.errors.every((e) => /is reserved/.test(e.message))).toBe(true)
    expect(r.written).toBe(1)
  })

  it('an existing super table created by SQL keeps its timestamp column name', async () => {
    await sql.execute('create stable db.st (ts timestamp, v double) tags (host nchar(4))', { user: 'root' })
    const r = await sml.write('db', [pt('st', [['host', 'abcdefgh']], [dbl('v', 1.5)], 7n)], { user: 'root', precision: 'ns' })
    expect(r).toEqual({ written: 1, rejected: 0, errors: [] })
    expect(await describeTable('db.st')).toContainEqual(['host', 'NCHAR', 16, 'TAG'])
    expect(await rows('select cast(ts as bigint), v, host from db.st')).toEqual([[7n, 1.5, 'abcdefgh']])
  })

  it('a measurement clashing with a normal table is rejected per line, other measurements written', async () => {
    await sql.execute('create table db.plain (ts timestamp, v double)', { user: 'root' })
    const r = await sml.write('db', [pt('plain', [], [dbl('v', 1)], 1n), pt('ok', [], [dbl('v', 1)], 1n)], { user: 'root', precision: 'ns' })
    expect(r.rejected).toBe(1)
    expect(r.errors[0].message).toContain('not a super table')
    expect(r.written).toBe(1)
  })

  it('measurements differing only in case are one table in storage: the later is rejected per line, in one request or across two', async () => {
    const inOne = await sml.write('db', [pt('CPU', [], [dbl('v', 1)], 1n), pt('cpu', [], [dbl('v', 2)], 1n), pt('ok', [], [dbl('v', 1)], 1n)], { user: 'root', precision: 'ns' })
    expect(inOne.written).toBe(2)
    expect(inOne.rejected).toBe(1)
    expect(inOne.errors[0]).toMatchObject({ line: 2 })
    expect(inOne.errors[0].message).toContain('measurement "cpu" clashes with measurement "CPU" of line 1')
    const later = await sml.write('db', [pt('Cpu', [], [dbl('v', 3)], 2n)], { user: 'root', precision: 'ns' })
    expect(later.rejected).toBe(1)
    expect(later.errors[0].message).toContain('measurement "Cpu" clashes with super table "CPU"')
    expect(await rows('select v from db.`CPU`')).toEqual([[1]])
  })

  it('concurrent requests creating the same super table and columns all succeed', async () => {
    const writes = Array.from({ length: 8 }, (_, i) =>
      sml.write('db', [pt('conc', [['h', `h${i}`]], [dbl('v', i), big(`c${i % 3}`, BigInt(i))], BigInt(i + 1))], { user: 'root', precision: 'ns' }),
    )
    const results = await Promise.all(writes)
    expect(results.every((r) => r.written === 1 && r.rejected === 0)).toBe(true)
    expect(await rows('select count(*) from db.conc')).toEqual([[8n]])
    expect((await describeTable('db.conc')).filter((c) => c[0].startsWith('c')).map((c) => c[0]).sort()).toEqual(['c0', 'c1', 'c2'])
  })

  it('concurrent requests sending one new field with two types: each line gets one verdict, nothing crashes', async () => {
    const a = sml.write('db', [pt('race', [['h', 'a']], [big('x', 1n)], 1n)], { user: 'root', precision: 'ns' })
    const b = sml.write('db', [pt('race', [['h', 'b']], [dbl('x', 1.5)], 1n)], { user: 'root', precision: 'ns' })
    const [ra, rb] = await Promise.all([a, b])
    expect(ra.written + rb.written).toBe(1)
    expect(ra.rejected + rb.rejected).toBe(1)
    const loser = ra.rejected === 1 ? ra : rb
    expect(loser.errors[0].message).toMatch(/type mismatch/)
    expect(await rows('select count(*) from db.race')).toEqual([[1n]])
  })
})
