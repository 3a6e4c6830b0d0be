import { gunzipSync } from 'node:zlib'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import type { ColumnMeta, SqlResult } from '../../sql/result.js'
import { formatTimestamp } from '../../sql/time.js'
import type { NumericChunk } from '../../storage/types.js'
import { encodeQueryBody } from './query-body.js'
import { createRowsOffload } from './offload.js'
import type { RowsOffload, RowsOffloadHandle } from './rows-offload.js'

/**
 * The encoded body of a result of `chunks`. With `asNumeric`, the result also has the `numeric`
 * form (which the encoder reads then), in which the chunks `asNumeric` picks come as columns.
 */
async function body(
  columns: ColumnMeta[],
  chunks: unknown[][][],
  opts = { rowLimit: -1 } as { rowLimit: number; tz?: string; offload?: RowsOffload; gzip?: boolean },
  precision: 'ms' | 'us' | 'ns' = 'ms',
  asNumeric?: (k: number) => boolean,
): Promise<string> {
  async function* rows(): AsyncGenerator<unknown[][]> {
    for (const c of chunks) {
      yield c
    }
  }
  async function* numeric(): AsyncGenerator<unknown[][] | NumericChunk> {
    for (let k = 0; k < chunks.length; k++) {
      yield asNumeric?.(k) ? toNumeric(chunks[k]) : chunks[k]
    }
  }
  const result: Extract<SqlResult, { kind: 'rows' }> = {
    kind: 'rows',
    columns,
    precision,
    rows: rows(),
    ...(asNumeric === undefined ? {} : { numeric: numeric() }),
  }
  const parts: Uint8Array[] = []
  for await (const part of encodeQueryBody(result, opts)) {
    parts.push(part)
  }
  const bytes = Buffer.concat(parts)
  if (opts.gzip === true) {
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]))
    return gunzipSync(bytes).toString('utf8')
  }
  return bytes.toString('utf8')
}

describe('bodies', () => {
  const cols: ColumnMeta[] = [
    { name: 'ts', type: 'TIMESTAMP', length: 8 },
    { name: 'f', type: 'FLOAT', length: 4 },
    { name: 'd', type: 'DOUBLE', length: 8 },
    { name: 'b', type: 'BIGINT', length: 8 },
    { name: 'u', type: 'BIGINT UNSIGNED', length: 8 },
    { name: 'ok', type: 'BOOL', length: 1 },
    { name: 's', type: 'VARCHAR', length: 10 },
    { name: 'j', type: 'JSON', length: 4095 },
  ]

  it('query body: key order, exact integers, fixed-width timestamps, float32, inline JSON', async () => {
    const s = await body(cols, [
      [
        [1626164208000n, Math.fround(10.3), 0.1, 9007199254740993n, 18446744073709551615n, true, 'a"b\n', { k: 'v', n: 1 }],
      ],
      [[1626164208001n, null, NaN, -1, 0, false, null, null]],
    ])
    expect(s).toBe(
      '{"code":0,"column_meta":[["ts","TIMESTAMP",8],["f","FLOAT",4],["d","DOUBLE",8],["b","BIGINT",8],' +
        '["u","BIGINT UNSIGNED",8],["ok","BOOL",1],["s","VARCHAR",10],["j","JSON",4095]],' +
        '"data":[["2021-07-13T08:16:48.000Z",10.3,0.1,9007199254740993,18446744073709551615,true,"a\\"b\\n",{"k":"v","n":1}],' +
        '["2021-07-13T08:16:48.001Z",null,null,-1,0,false,null,null]],"rows":2}',
    )
    expect(JSON.parse(s).rows).toBe(2)
  })

  it('timestamps keep the precision width and honour tz', async () => {
    const ts: ColumnMeta[] = [{ name: 'ts', type: 'TIMESTAMP', length: 8 }]
    expect(await body(ts, [[[1626164208000123n]]], { rowLimit: -1 }, 'us')).toContain(
      '"2021-07-13T08:16:48.000123Z"',
    )
    expect(await body(ts, [[[1626164208000000007n]]], { rowLimit: -1 }, 'ns')).toContain(
      '"2021-07-13T08:16:48.000000007Z"',
    )
    expect(await body(ts, [[[1626164208000n]]], { rowLimit: -1, tz: 'Asia/Shanghai' })).toContain(
      '"2021-07-13T16:16:48.000+08:00"',
    )
  })

  it('empty result keeps column_meta', async () => {
    expect(await body([{ name: 'c', type: 'INT', length: 4 }], [])).toBe(
      '{"code":0,"column_meta":[["c","INT",4]],"data":[],"rows":0}',
    )
  })

  it('row limit truncates across chunks and stops pulling', async () => {
    const c: ColumnMeta[] = [{ name: 'c', type: 'INT', length: 4 }]
    let pulled = 0
    async function* rows(): AsyncGenerator<unknown[][]> {
      for (let k = 0; k < 100; k++) {
        pulled++
        yield [[k * 2], [k * 2 + 1]]
      }
    }
    let s = ''
    for await (const part of encodeQueryBody(
      { kind: 'rows', columns: c, precision: 'ms', rows: rows() },
      { rowLimit: 3 },
    )) {
      s += Buffer.from(part).toString('utf8')
    }
    expect(s).toBe('{"code":0,"column_meta":[["c","INT",4]],"data":[[0],[1],[2]],"rows":3}')
    expect(pulled).toBe(2)
    expect(await body(c, [[[1]]], { rowLimit: 0 })).toBe(
      '{"code":0,"column_meta":[["c","INT",4]],"data":[],"rows":0}',
    )
  })
})

describe('encodeQueryBody bytes', () => {
  it('writes UTC timestamps of every precision like formatTimestamp, before and after 1970', async () => {
    const per = { ms: 1000n, us: 1_000_000n, ns: 1_000_000_000n } as const
    let seed = 99
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed
    }
    for (const precision of ['ms', 'us', 'ns'] as const) {
      const values: (bigint | number)[] = [0n, -1n, per[precision] * 86_400n - 1n, per[precision] * 86_400n]
      let t = -86_400n * 400n * per[precision]
      for (let i = 0; i < 3000; i++) {
        t += i % 40 === 0 ? BigInt(next()) * per[precision] : BigInt(next() % 5000)
        values.push(t)
      }
      if (precision !== 'ns') {
        values.push(1626164208123, -1)
      }
      const s = await body(
        [{ name: 'ts', type: 'TIMESTAMP', length: 8 }],
        [values.map((v) => [v])],
        { rowLimit: -1 },
        precision,
      )
      const got = (JSON.parse(s).data as string[][]).map((r) => r[0])
      expect(got).toEqual(values.map((v) => formatTimestamp(BigInt(v), precision)))
    }
  })

  it('encodes non-ASCII text as UTF-8, whole across small parts', async () => {
    const cols: ColumnMeta[] = [
      { name: 'név', type: 'NCHAR', length: 20 },
      { name: 'j', type: 'JSON', length: 4095 },
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
    ]
    const rows: unknown[][] = []
    for (let i = 0; i < 500; i++) {
      rows.push([i % 3 === 0 ? `温度${i}😀` : `plain-${i}\u0001`, { 'ключ': `é${i}` }, 1_700_000_000_000n + BigInt(i)])
    }
    const parts: Uint8Array[] = []
    const result: Extract<SqlResult, { kind: 'rows' }> = {
      kind: 'rows',
      columns: cols,
      precision: 'ms',
      rows: (async function* () {
        yield rows.slice(0, 200)
        yield rows.slice(200)
      })(),
    }
    for await (const part of encodeQueryBody(result, { rowLimit: -1, tz: 'Asia/Kolkata', partBytes: 100 })) {
      parts.push(part)
    }
    expect(parts.length).toBeGreaterThan(100)
    // every part ends on a character boundary: each decodes on its own
    const text = parts.map((p) => new TextDecoder('utf-8', { fatal: true }).decode(p)).join('')
    const parsed = JSON.parse(text)
    expect(parsed.column_meta[0][0]).toBe('név')
    expect(parsed.rows).toBe(500)
    expect(parsed.data.map((r: unknown[]) => r[0])).toEqual(rows.map((r) => r[0]))
    expect(parsed.data.map((r: unknown[]) => r[1])).toEqual(rows.map((r) => r[1]))
    expect(parsed.data[1][2]).toBe(formatTimestamp(1_700_000_000_001n, 'ms', 'Asia/Kolkata'))
  })
})

/** A row chunk as the engine's numeric columns (BOOL 1/0, NULL 0 with its mask bit set). */
function toNumeric(chunk: unknown[][]): NumericChunk {
  const width = chunk[0].length
  const columns = Array.from({ length: width }, (_, c) => {
    const values = new Float64Array(chunk.length)
    let nulls: Uint8Array | undefined
    chunk.forEach((row, r) => {
      const v = row[c]
      if (v === null) {
        nulls ??= new Uint8Array(chunk.length)
        nulls[r] = 1
      } else {
        values[r] = typeof v === 'boolean' ? (v ? 1 : 0) : Number(v)
      }
    })
    return { values, nulls, integral: true }
  })
  return { rowCount: chunk.length, columns }
}

// ---- with the encode worker (offload.ts) ----------------------------------------------------

const logger = pino({ level: 'silent' })

const NUMERIC_COLUMNS: ColumnMeta[] = [
  { name: '_wstart', type: 'TIMESTAMP', length: 8 },
  { name: 'avg(c)', type: 'DOUBLE', length: 8 },
  { name: 'f', type: 'FLOAT', length: 4 },
  { name: 'n', type: 'BIGINT', length: 8 },
  { name: 'i', type: 'INT', length: 4 },
  { name: 'b', type: 'BOOL', length: 1 },
]

/** chunks of DuckDB's size with every kind a numeric chunk carries, NULLs, negatives and bigints */
function numericChunks(count: number, rows = 2048): unknown[][][] {
  let seed = 7
  const next = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return seed
  }
  const chunks: unknown[][][] = []
  for (let c = 0; c < count; c++) {
    const chunk: unknown[][] = []
    for (let r = 0; r < rows; r++) {
      const k = c * rows + r
      chunk.push([
        k % 97 === 0 ? null : BigInt(1_700_000_000_000 + k * 60_000 - (k % 3 === 0 ? 3_500_000_000_000 : 0)),
        k % 89 === 0 ? null : (next() - 2 ** 31) / 7,
        k % 83 === 0 ? null : Math.fround((next() % 100_000) / 1000),
        k % 79 === 0 ? null : BigInt(next()) - 2_000_000_000n,
        k % 73 === 0 ? null : (next() % 2001) - 1000,
        k % 71 === 0 ? null : next() % 2 === 0,
      ])
    }
    chunks.push(chunk)
  }
  return chunks
}

/** counts the chunks that went to the worker */
function counting(o: RowsOffloadHandle): RowsOffload & { jobs: number } {
  const c = {
    jobs: 0,
    get accepting() {
      return o.accepting
    },
    encode(job: Parameters<RowsOffload['encode']>[0]) {
      c.jobs++
      return o.encode(job)
    },
  }
  return c
}

let offload: RowsOffloadHandle | undefined

afterEach(async () => {
  await offload?.close()
  offload = undefined
})

describe('encodeQueryBody with an encode worker', () => {
  it('writes the same bytes as the main thread alone, with chunks encoded by the worker', async () => {
    offload = createRowsOffload(logger)
    const chunks = numericChunks(12)
    for (const [precision, tz] of [
      ['ms', undefined],
      ['us', 'Asia/Shanghai'],
    ] as const) {
      const opts = tz === undefined ? { rowLimit: -1 } : { rowLimit: -1, tz }
      const plain = await body(NUMERIC_COLUMNS, chunks, opts, precision)
      const via = counting(offload)
      const offloaded = await body(NUMERIC_COLUMNS, chunks, { ...opts, offload: via }, precision)
      expect(via.jobs).toBeGreaterThan(0)
      expect(offloaded).toBe(plain)
      expect(JSON.parse(offloaded).rows).toBe(12 * 2048)
    }
  })

  it('writes numeric chunks (columns from the engine) as the rows they stand for, here and on the worker', async () => {
    offload = createRowsOffload(logger)
    const chunks = numericChunks(8)
    // columns and rows mixed, in result order; the limit cuts inside a numeric chunk
    const numericAt = (k: number): boolean => k !== 2 && k !== 5
    for (const [precision, tz, rowLimit] of [
      ['ms', undefined, -1],
      ['us', undefined, -1],
      ['us', 'Asia/Shanghai', -1],
      ['ms', undefined, 7000],
    ] as const) {
      const opts = tz === undefined ? { rowLimit } : { rowLimit, tz }
      const plain = await body(NUMERIC_COLUMNS, chunks, opts, precision)
      expect(await body(NUMERIC_COLUMNS, chunks, opts, precision, numericAt)).toBe(plain)
      const via = counting(offload)
      expect(await body(NUMERIC_COLUMNS, chunks, { ...opts, offload: via }, precision, numericAt)).toBe(plain)
      expect(via.jobs).toBeGreaterThan(0)
    }
  })

  it('gzips a body part by part, here and on the worker, into one stream of the same bytes', async () => {
    offload = createRowsOffload(logger)
    const chunks = numericChunks(8)
    const numericAt = (k: number): boolean => k !== 2
    for (const opts of [{ rowLimit: -1 }, { rowLimit: -1, tz: 'Asia/Shanghai' }, { rowLimit: 5000 }]) {
      const plain = await body(NUMERIC_COLUMNS, chunks, opts, 'ms', numericAt)
      expect(await body(NUMERIC_COLUMNS, chunks, { ...opts, gzip: true }, 'ms', numericAt)).toBe(plain)
      const via = counting(offload)
      expect(await body(NUMERIC_COLUMNS, chunks, { ...opts, gzip: true, offload: via }, 'ms', numericAt)).toBe(plain)
      expect(via.jobs).toBeGreaterThan(0)
    }
    // an empty result is a whole gzip stream too
    expect(JSON.parse(await body(NUMERIC_COLUMNS, [], { rowLimit: -1, gzip: true })).rows).toBe(0)
  })

  it('yields a whole body under gzipMinBytes plain (onPlain called), a larger one gzipped', async () => {
    const encode = async (rows: number): Promise<{ bytes: Buffer; plain: boolean }> => {
      let plain = false
      const parts: Uint8Array[] = []
      const result: Extract<SqlResult, { kind: 'rows' }> = {
        kind: 'rows',
        columns: [{ name: 'b', type: 'BIGINT', length: 8 }],
        precision: 'ms',
        rows: (async function* () {
          yield Array.from({ length: rows }, (_, i) => [i])
        })(),
      }
      for await (const part of encodeQueryBody(result, { rowLimit: -1, gzip: true, gzipMinBytes: 1024, onPlain: () => (plain = true) })) {
        parts.push(part)
      }
      return { bytes: Buffer.concat(parts), plain }
    }
    const small = await encode(3)
    expect(small.plain).toBe(true)
    expect(JSON.parse(small.bytes.toString('utf8'))).toEqual({ code: 0, column_meta: [['b', 'BIGINT', 8]], data: [[0], [1], [2]], rows: 3 })
    const large = await encode(1000)
    expect(large.plain).toBe(false)
    expect(JSON.parse(gunzipSync(large.bytes).toString('utf8')).rows).toBe(1000)
  })

  it('cuts at the row limit inside an offloaded chunk', async () => {
    offload = createRowsOffload(logger)
    const chunks = numericChunks(4)
    const via = counting(offload)
    const got = await body(NUMERIC_COLUMNS, chunks, { rowLimit: 5000, offload: via })
    expect(via.jobs).toBeGreaterThan(0)
    expect(got).toBe(await body(NUMERIC_COLUMNS, chunks, { rowLimit: 5000 }))
    expect(JSON.parse(got).data).toHaveLength(5000)
  })

  it('keeps text columns, ns timestamps and small chunks on the main thread', async () => {
    offload = createRowsOffload(logger)
    const via = counting(offload)
    const text: ColumnMeta[] = [
      { name: 'ts', type: 'TIMESTAMP', length: 8 },
      { name: 'tbname', type: 'VARCHAR', length: 192 },
    ]
    const textChunks = [Array.from({ length: 2048 }, (_, r) => [BigInt(1_700_000_000_000 + r), `d${r % 10}`])]
    expect(await body(text, textChunks, { rowLimit: -1, offload: via })).toBe(await body(text, textChunks, { rowLimit: -1 }))
    const ns: ColumnMeta[] = [{ name: 'ts', type: 'TIMESTAMP', length: 8 }]
    const nsChunks = [Array.from({ length: 2048 }, (_, r) => [1_700_000_000_000_000_000n + BigInt(r)])]
    expect(await body(ns, nsChunks, { rowLimit: -1, offload: via }, 'ns')).toBe(await body(ns, nsChunks, { rowLimit: -1 }, 'ns'))
    const small = numericChunks(3, 100)
    expect(await body(NUMERIC_COLUMNS, small, { rowLimit: -1, offload: via })).toBe(await body(NUMERIC_COLUMNS, small, { rowLimit: -1 }))
    expect(via.jobs).toBe(0)
  })

  it('encodes on the main thread when the worker cannot start, and stops offering it', async () => {
    offload = createRowsOffload(logger, { workerSource: 'throw new Error("no worker here")' })
    const via = counting(offload)
    const chunks = numericChunks(6)
    const got = await body(NUMERIC_COLUMNS, chunks, { rowLimit: -1, offload: via })
    expect(via.jobs).toBeGreaterThan(0)
    expect(got).toBe(await body(NUMERIC_COLUMNS, chunks, { rowLimit: -1 }))
    expect(offload.accepting).toBe(false)
    // a numeric chunk whose job failed is encoded here from its columns
    const failing = createRowsOffload(logger, { workerSource: 'throw new Error("no worker here")' })
    const viaFailing = counting(failing)
    expect(await body(NUMERIC_COLUMNS, chunks, { rowLimit: -1, offload: viaFailing }, 'ms', () => true)).toBe(got)
    expect(viaFailing.jobs).toBeGreaterThan(0)
    await failing.close()
  })
})
