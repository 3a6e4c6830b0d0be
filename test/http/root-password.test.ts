/**
 * `--auth.rootPassword` across restarts of a real adapter process on one DuckDB file: a given
 * flag that differs from the stored password replaces it (logged, without the password); a flag
 * left at its default keeps the stored one, so ALTER USER root PASS survives a restart.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startAdapterProcess, type AdapterProcess } from '../lib/adapter-process.js'
import { basic, httpRequest } from '../lib/http-request.js'

const APPLIED = 'root password set from --auth.rootPassword'
let proc: AdapterProcess | undefined

afterEach(async () => {
  await proc?.stop()
  proc = undefined
})

async function status(password: string, stmt = 'show databases'): Promise<number> {
  const r = await httpRequest(`${(proc as AdapterProcess).base}/rest/sql`, {
    method: 'POST', headers: { Authorization: basic('root', password) }, body: stmt,
  })
  return r.status
}

describe('--auth.rootPassword at start', () => {
  it('applies a given password that differs from the stored one, and keeps the stored one when not given', async () => {
    const url = `duckdb:${join(mkdtempSync(join(tmpdir(), 'root-password-')), 'a.duckdb')}`

    proc = await startAdapterProcess(url, { args: ['--auth.rootPassword=first-Pw1'] })
    expect(await status('first-Pw1')).toBe(200)
    expect(await status('taosdata')).toBe(401)
    expect(proc.stdout()).not.toContain(APPLIED)
    await proc.stop()

    // another password, this time from the environment (the chart's Secret): it wins
    proc = await startAdapterProcess(url, { env: { DB_ADAPTER_AUTH_ROOT_PASSWORD: 'second-Pw2' } })
    expect(await status('second-Pw2')).toBe(200)
    expect(await status('first-Pw1')).toBe(401)
    const logs = proc.stdout() + proc.stderr()
    expect(logs.split('\n').filter((l) => l.includes(APPLIED))).toHaveLength(1)
    expect(logs).not.toContain('second-Pw2')
    // the operator changes it in SQL
    const alter = await httpRequest(`${proc.base}/rest/sql`, {
      method: 'POST', headers: { Authorization: basic('root', 'second-Pw2') }, body: `ALTER USER root PASS 'altered-Pw3'`,
    })
    expect(alter.text).toContain('"code":0')
    await proc.stop()

    // no flag: the stored password (set by ALTER USER) survives the restart
    proc = await startAdapterProcess(url)
    expect(await status('altered-Pw3')).toBe(200)
    expect(await status('second-Pw2')).toBe(401)
    expect(await status('taosdata')).toBe(401)
    expect(proc.stdout()).not.toContain(APPLIED)
  }, 120_000)
})
