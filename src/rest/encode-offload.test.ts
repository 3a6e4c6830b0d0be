import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import type { ColumnMeta, SqlResult } from '../sql/result.js'
import { encodeQueryBody, type RowsOffload } from './encode.js'
import { createRowsOffload, type RowsOffloadHandle } from './encode-offload.js'

const logger = pino({ level: 'silent' })

const COLUMNS: ColumnMeta[] = [
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

async function encode(
  chunks: unknown[][][],
  opts: { rowLimit: number; tz?: string; offload?: RowsOffload },
  columns = COLUMNS,
  precision: 'ms' | 'us' | 'ns' = 'ms',
): Promise<string> {
  async function* rows(): AsyncGenerator<unknown[][]> {
    for (const c of chunks) {
      // each chunk a fresh copy: the encoder may hold a chunk until the worker answers
      yield c.map((r) => r.slice())
    }
  }
  const result: Extract<SqlResult, { kind: 'rows' }> = { kind: 'rows', columns, precision, rows: rows() }
  const parts: Uint8Array[] = []
  for await (const p of encodeQueryBody(result, opts)) {
    parts.push(p.slice())
  }
  return Buffer.concat(parts).toString('utf8')
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
      const plain = await encode(chunks, opts, COLUMNS, precision)
      const via = counting(offload)
      const offloaded = await encode(chunks, { ...opts, offload: via }, COLUMNS, precision)
      expect(via.jobs).toBeGreaterThan(0)
      expect(offloaded).toBe(plain)
      expect(JSON.parse(offloaded).rows).toBe(12 * 2048)
    }
  })

  it('cuts at the row limit inside an offloaded chunk', async () => {
    offload = createRowsOffload(logger)
    const chunks = numericChunks(4)
    const via = counting(offload)
    const got = await encode(chunks, { rowLimit: 5000, offload: via })
    expect(via.jobs).toBeGreaterThan(0)
    expect(got).toBe(await encode(chunks, { rowLimit: 5000 }))
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
    expect(await encode(textChunks, { rowLimit: -1, offload: via }, text)).toBe(await encode(textChunks, { rowLimit: -1 }, text))
    const ns: ColumnMeta[] = [{ name: 'ts', type: 'TIMESTAMP', length: 8 }]
    const nsChunks = [Array.from({ length: 2048 }, (_, r) => [1_700_000_000_000_000_000n + BigInt(r)])]
    expect(await encode(nsChunks, { rowLimit: -1, offload: via }, ns, 'ns')).toBe(await encode(nsChunks, { rowLimit: -1 }, ns, 'ns'))
    const small = numericChunks(3, 100)
    expect(await encode(small, { rowLimit: -1, offload: via })).toBe(await encode(small, { rowLimit: -1 }))
    expect(via.jobs).toBe(0)
  })

  it('encodes on the main thread when the worker cannot start, and stops offering it', async () => {
    offload = createRowsOffload(logger, { workerSource: 'throw new Error("no worker here")' })
    const via = counting(offload)
    const chunks = numericChunks(6)
    const got = await encode(chunks, { rowLimit: -1, offload: via })
    expect(via.jobs).toBeGreaterThan(0)
    expect(got).toBe(await encode(chunks, { rowLimit: -1 }))
    expect(offload.accepting).toBe(false)
  })
})
