import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { TdError } from '../td-error.js'
import { DecodedTooLarge, RemoteDecodeError } from '../ingest/metricsproto/proto.js'
import { StorageUnavailableError } from '../storage/errors.js'
import { problemBody, statusForDbError, writeFailed } from './error-table.js'

describe('statusForDbError', () => {
  it('is 200 for every code when httpCodeServerError is false', () => {
    for (const code of [534, 855, 9728, 11, 904, 65535]) {
      expect(statusForDbError(code, false)).toBe(200)
    }
  })

  it('maps codes when httpCodeServerError is true', () => {
    for (const code of [534, 539, 9728, 1547, 548, 9787]) {
      expect(statusForDbError(code, true)).toBe(400)
    }
    for (let code = 848; code <= 855; code++) {
      expect(statusForDbError(code, true)).toBe(401)
    }
    expect(statusForDbError(847, true)).toBe(500)
    expect(statusForDbError(856, true)).toBe(500)
    expect(statusForDbError(11, true)).toBe(502)
    expect(statusForDbError(904, true)).toBe(500)
    expect(statusForDbError(65535, true)).toBe(500)
  })
})

describe('problemBody', () => {
  it('writes the TDengine error body and escapes like gin', () => {
    expect(problemBody('tdengine', { status: 400, code: 9728, desc: 'syntax error near "<x> & y"' })).toBe(
      '{"code":9728,"desc":"syntax error near \\"\\u003cx\\u003e \\u0026 y\\""}',
    )
  })
})

describe('writeFailed: only storage trouble is a 503', () => {
  const logger = pino({ level: 'silent' })
  const answer = async (err: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = writeFailed('influxdb', err, 'db', logger)
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }

  it('a stack overflow on deep input is 400 naming the nesting', async () => {
    let overflow: unknown
    const dive = (n: number): number => (n === 0 ? 0 : 1 + dive(n - 1))
    try {
      dive(1e7)
    } catch (err) {
      overflow = err
    }
    expect(overflow).toBeInstanceOf(RangeError)
    const got = await answer(overflow)
    expect(got.status).toBe(400)
    expect(String(got.body.desc)).toMatch(/^input nested too deeply or too long to process: Maximum call stack size exceeded/)
  })

  it('a snappy body announcing more than the cap is 413 naming http.maxBodySize', async () => {
    const got = await answer(new DecodedTooLarge(400 * 1024 * 1024, 1024, 'remote write'))
    expect(got.status).toBe(413)
    expect(String(got.body.desc)).toContain('http.maxBodySize (1024 bytes)')
  })

  it('storage trouble recognised as such is 503 with Retry-After', async () => {
    for (const err of [
      new StorageUnavailableError('PostgreSQL is unreachable'),
      new Error('IO Error: Could not write file "x.wal": No space left on device'),
      new Error('TransactionContext Error: Catalog write-write conflict'),
      new Error('insert failed', { cause: Object.assign(new Error('could not serialize access'), { code: '40001' }) }),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ]) {
      const res = writeFailed('influxdb', err, 'db', logger)
      expect(res.status, String(err)).toBe(503)
      expect(res.headers.get('Retry-After')).toBe('1')
    }
  })

  it('client faults are 4xx, anything unrecognised is 500 (not a retry-forever 503)', async () => {
    expect((await answer(new RemoteDecodeError('remote write: not snappy'))).status).toBe(400)
    expect((await answer(new TdError(904, 'Database not exist'))).status).toBe(404)
    expect((await answer(new TdError(9811, 'Value too long for column/tag: t'))).status).toBe(400)
    expect((await answer(Object.assign(new Error('canceling statement due to user request'), { code: '57014' }))).status).toBe(500)
    const bug = await answer(new Error('insertRows: column x not in db.st$tags'))
    expect(bug.status).toBe(500)
    expect(bug.body.desc).toBe('internal error: insertRows: column x not in db.st$tags')
  })
})
