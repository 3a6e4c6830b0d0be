/**
 * Concurrent line-protocol writes of series that already exist, as several agents send them: the
 * parse worker parses whole bodies and known series go through the columnar lane
 * (src/ingest/schemaless/columnar.ts); a body it cannot take in the same burst (a string field, a
 * rewrite of a stored timestamp, a new series) goes through the row path. Every point must be
 * stored exactly as written, whichever way it went.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { ROOT_AUTH, post, sql, sqlRows, startIngestServer } from './server.js'

const HOSTS = 50
const T0 = 1_700_000_000_000

/** Body k: every host once per second for `seconds` seconds from its own start, one field set per body. */
function body(k: number, seconds: number): string {
  const lines: string[] = []
  for (let s = 0; s < seconds; s++) {
    for (let h = 0; h < HOSTS; h++) {
      const ts = T0 + (k * seconds + s + 1) * 1000
      lines.push(`cpu,host=h${h},rack=r${h % 5} usage=${k + s / 100 + h},n=${k * 1000 + s}i,up=${(h + s) % 2 === 0} ${ts}`)
    }
  }
  return lines.join('\n')
}

describe('concurrent writes of known series', () => {
  let server: RunningAdapter
  const write = (text: string) => post(`${server.url}/lineproto/v1/write?db=conc&precision=ms`, text, { Authorization: ROOT_AUTH })

  beforeAll(async () => {
    server = await startIngestServer((c) => {
      c.lineproto.parseWorkers = 1
    })
    await sql(server.url, "create database conc precision 'ms'")
    // creates the super table and its children (row path)
    expect((await write(`${body(0, 1)}\ncpu,host=h0,rack=r0 note="first" ${T0}`)).status).toBe(204)
  })

  afterAll(async () => {
    await server.stop()
  })

  it('stores every point of 12 bodies sent 4 at a time, among bodies only the row path can take', async () => {
    const bodies = Array.from({ length: 12 }, (_, i) => body(i + 1, 20))
    for (let i = 0; i < bodies.length; i += 4) {
      const burst = bodies.slice(i, i + 4).map((b) => write(b))
      if (i === 4) {
        // a string field, a rewrite of a stored row and a new series, in the same burst
        burst.push(write(`cpu,host=h1,rack=r1 note="second" ${T0 + 999_000}`))
        burst.push(write(`cpu,host=h2,rack=r2 usage=-5 ${T0 + 1000}`))
        burst.push(write(`cpu,host=new,rack=r9 usage=7 ${T0 + 5000}`))
      }
      expect((await Promise.all(burst)).map((r) => r.status)).toEqual(burst.map(() => 204))
    }
    const perBody = 20 * HOSTS
    // body 0 (1 second) + its note line, 12 bodies, the note and the new series; the rewrite adds no row
    expect(await sqlRows(server.url, 'select count(*) from conc.cpu')).toEqual([[HOSTS + 1 + 12 * perBody + 2]])
    expect(await sqlRows(server.url, "select count(*) from conc.cpu where host = 'h7'")).toEqual([[1 + 12 * 20]])
    // the rewrite won over body 0's row; fields it did not send kept their values
    expect(await sqlRows(server.url, `select usage, n from conc.cpu where host = 'h2' and _ts = ${T0 + 1000}`)).toEqual([[-5, 0]])
    // a point of a body in the middle, field by field
    const k = 7
    const s = 13
    const h = 31
    expect(await sqlRows(server.url, `select usage, n, up, note from conc.cpu where host = 'h${h}' and _ts = ${T0 + (k * 20 + s + 1) * 1000}`)).toEqual([
      [k + s / 100 + h, k * 1000 + s, (h + s) % 2 === 0, null],
    ])
    expect(await sqlRows(server.url, 'select sum(n) from conc.cpu where note is null and host != \'new\'')).toEqual([
      [Array.from({ length: 12 }, (_, i) => i + 1).reduce((sum, kk) => sum + HOSTS * Array.from({ length: 20 }, (_, ss) => kk * 1000 + ss).reduce((a, b) => a + b, 0), 0)],
    ])
  })
})
