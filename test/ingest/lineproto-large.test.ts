/**
 * A body of many slices through /lineproto/v1/write, parsed on the main thread and on a parse
 * worker: the same answer (rejected line numbers counted across slices, written count), the same
 * rows, and later lines winning over earlier ones of the same series and timestamp wherever the
 * slice boundaries fall.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { ROOT_AUTH, post, sql, sqlRows, startIngestServer } from './server.js'

const LINES = 30_000

function body(): string {
  const lines: string[] = []
  for (let i = 0; i < LINES; i++) {
    const host = `h${String(i % 200).padStart(3, '0')}`
    const ts = 1_700_000_000_000 + Math.floor(i / 200)
    if (i === 4 || i === 14_321) {
      lines.push(`cpu,host=${host} usage=oops ${ts}`)
    } else if (i === 29_000) {
      lines.push(`cpu,host=${host} usage="a string" ${ts}`)
    } else if (i === 29_999) {
      // the same series and timestamp as line 1, far past the first slice: this value wins
      lines.push(`cpu,host=h000 usage=-1,n=-1i 1700000000000`)
    } else {
      lines.push(`cpu,host=${host} usage=${i / 4},n=${i}i ${ts}`)
    }
  }
  return lines.join('\n')
}

describe.each([0, 1, 2])('a large body with lineproto.parseWorkers=%i', (parseWorkers) => {
  let server: RunningAdapter

  beforeAll(async () => {
    server = await startIngestServer((c) => {
      c.lineproto.parseWorkers = parseWorkers
    })
    await sql(server.url, "create database big precision 'ms'")
  })

  afterAll(async () => {
    await server.stop()
  })

  it('writes every good line and names the bad ones by their line in the whole body', async () => {
    const text = body()
    expect(text.length).toBeGreaterThan(4 * 64 * 1024) // several worker slices
    const res = await post(`${server.url}/lineproto/v1/write?db=big&precision=ms`, text, { Authorization: ROOT_AUTH })
    expect(res.status).toBe(400)
    const answer = JSON.parse(res.text) as { rejected: number; written: number; line: number; errors: Array<{ line: number; message: string }> }
    expect(answer.rejected).toBe(3)
    expect(answer.written).toBe(LINES - 3)
    expect(answer.line).toBe(5)
    expect(answer.errors.map((e) => e.line)).toEqual([5, 14_322, 29_001])
    expect(answer.errors[2].message).toMatch(/line 29001: field "usage" type mismatch/)
    // 30,000 lines less the 3 rejected, less the one that overwrote line 1
    expect(await sqlRows(server.url, 'select count(*) from big.cpu')).toEqual([[LINES - 4]])
    expect(await sqlRows(server.url, 'select distinct tbname from big.cpu')).toHaveLength(200)
    expect(await sqlRows(server.url, "select usage, n from big.cpu where host = 'h000' order by _ts limit 1")).toEqual([[-1, -1]])
    expect(await sqlRows(server.url, "select usage, n from big.cpu where host = 'h199' order by _ts desc limit 1")).toEqual([[29_799 / 4, 29_799]])
  })
})
