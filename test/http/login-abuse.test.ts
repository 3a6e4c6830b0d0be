/**
 * Login abuse through a real adapter process (issue 32): wrong-password guesses from one address
 * neither slow down logins of others nor get unlimited scrypt work. Figures are printed; the
 * issue's bound (100 ms) is asserted on the p50 and, generously, on the max.
 */
import { mkdtempSync } from 'node:fs'
import { Agent } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAdapterProcess, type AdapterProcess } from '../lib/adapter-process.js'
import { basic, httpRequest, summary, type Reply } from '../lib/http-request.js'

const ROOT = basic('root', 'taosdata')
const USERS = 24
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

let proc: AdapterProcess

async function sql(stmt: string, from = '127.0.0.1', auth = ROOT): Promise<Reply> {
  return httpRequest(`${proc.base}/rest/sql`, { method: 'POST', headers: { Authorization: auth }, body: stmt, localAddress: from })
}

/** `n` loops sending wrong passwords for root from `from` until stopped; counts answers by status. */
function guessLoad(n: number, from: string): { stop: () => Promise<Record<number, number>> } {
  const agent = new Agent({ keepAlive: true, maxSockets: n })
  const counts: Record<number, number> = {}
  let running = true
  const loops = Array.from({ length: n }, async (_, i) => {
    let k = 0
    while (running) {
      const r = await httpRequest(`${proc.base}/rest/sql`, {
        method: 'POST',
        headers: { Authorization: basic('root', `guess-${i}-${k++}`) },
        body: 'show databases',
        localAddress: from,
        agent,
      }).catch(() => ({ status: 0 }))
      counts[r.status] = (counts[r.status] ?? 0) + 1
    }
  })
  return {
    async stop() {
      running = false
      await Promise.all(loops)
      agent.destroy()
      return counts
    },
  }
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'login-abuse-'))
  proc = await startAdapterProcess(`duckdb:${join(dir, 'a.duckdb')}`)
  for (let i = 0; i < USERS; i++) {
    const r = await sql(`CREATE USER u${i} PASS 'pw_${i}'`)
    expect(r.text).toContain('"code":0')
  }
  expect((await sql('CREATE DATABASE IF NOT EXISTS lp')).status).toBe(200)
}, 90_000)

afterAll(async () => {
  await proc?.stop()
})

describe('login abuse', () => {
  it('answers parallel first logins with the right password (a dashboard after a restart), none refused', async () => {
    // a user whose credentials no request has verified yet, 16 requests at once from one address
    expect((await sql(`CREATE USER burst PASS 'pw_burst'`)).text).toContain('"code":0')
    const replies = await Promise.all(Array.from({ length: 16 }, () => sql('show databases', '127.0.0.3', basic('burst', 'pw_burst'))))
    expect(replies.map((r) => r.status)).toEqual(Array.from({ length: 16 }, () => 200))
    for (const r of replies) {
      expect(r.text).toContain('"code":0')
    }
  })

  it('keeps legitimate logins under 100 ms while 32 wrong-password guesses run', async () => {
    const load = guessLoad(32, '127.0.0.1')
    const cached: number[] = []
    const first: number[] = []
    const deadline = Date.now() + 30_000
    try {
      await sleep(1000)
      for (let i = 0; i < 10 && Date.now() < deadline; i++) {
        // (a) root's credentials were verified before the guesses began; from the guessing address
        const a = await sql('show databases', '127.0.0.1')
        expect(a.status).toBe(200)
        cached.push(a.ms)
        // (b) a first login (credentials never verified) from another address
        const b = await httpRequest(`${proc.base}/rest/login/u${i}/pw_${i}`, { localAddress: '127.0.0.2' })
        expect(b.status).toBe(200)
        first.push(b.ms)
        await sleep(100)
      }
    } finally {
      const counts = await load.stop()
      console.log(`login latency under 32 concurrent wrong-password guesses: cached ${JSON.stringify(summary(cached))} ms, first login ${JSON.stringify(summary(first))} ms; guesses answered ${JSON.stringify(counts)}`)
    }
    expect(summary(cached).p50).toBeLessThan(100)
    expect(summary(cached).max).toBeLessThan(250)
    expect(summary(first).p50).toBeLessThan(100)
    expect(summary(first).max).toBeLessThan(400)
  }, 60_000)

  it('backs a guessing address off with 429 and Retry-After, and lets it try again afterwards', async () => {
    const from = '127.0.0.3'
    const wrong = basic('u20', 'nope')
    for (let i = 0; i < 5; i++) {
      const r = await sql('show databases', from, wrong)
      expect(r.status, r.text).toBe(401)
    }
    // backed off for 1 s: refused without a password check (the refusal is held up to 0.5 s)
    const refused = await sql('show databases', from, wrong)
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('1')
    const body = JSON.parse(refused.text) as { code: number; desc: string }
    expect(body).toEqual({ code: 65535, desc: 'too many failed logins from 127.0.0.3; retry in 1 s' })

    // the back-off ends: the next guess is checked again (401), and the back-off doubles
    await sleep(700)
    expect((await sql('show databases', from, wrong)).status).toBe(401)
    // every login path of the address is refused the same way, a right but unverified password too
    const [again, login, lp] = await Promise.all([
      sql('show databases', from, wrong),
      httpRequest(`${proc.base}/rest/login/u20/pw_20`, { localAddress: from }),
      httpRequest(`${proc.base}/lineproto/v1/write?db=lp`, {
        method: 'POST', headers: { Authorization: wrong }, body: 'm v=1i', localAddress: from,
      }),
    ])
    expect(again.status).toBe(429)
    expect(again.headers['retry-after']).toBe('2')
    expect(login.status).toBe(429)
    expect(JSON.parse(login.text)).toMatchObject({ code: 65535 })
    expect(lp.status).toBe(429)
    expect(lp.headers['retry-after']).toBe('2')
    expect(JSON.parse(lp.text)).toMatchObject({ code: 429, error: expect.stringMatching(/too many failed logins/) })
    // credentials verified before (root's) are no guess: they pass while the address is backed off
    const cached = await sql('show databases', from)
    expect(cached.status).toBe(200)
    expect(cached.ms).toBeLessThan(400)

    // a verified password ends the back-off of its address
    await sleep(2100 - 600)
    expect((await sql('show databases', from, basic('u20', 'pw_20'))).status).toBe(200)
    expect((await sql('show databases', from, wrong)).status).toBe(401)
  }, 30_000)

  it('forgets cached credentials when the password changes or the user is dropped', async () => {
    const from = '127.0.0.4'
    expect((await sql('show databases', from, basic('u21', 'pw_21'))).status).toBe(200)
    expect((await sql(`ALTER USER u21 PASS 'pw_21b'`)).text).toContain('"code":0')
    expect((await sql('show databases', from, basic('u21', 'pw_21'))).status).toBe(401)
    expect((await sql('show databases', from, basic('u21', 'pw_21b'))).status).toBe(200)
    expect((await sql('DROP USER u21')).text).toContain('"code":0')
    expect((await sql('show databases', from, basic('u21', 'pw_21b'))).status).toBe(401)
  }, 30_000)
})
