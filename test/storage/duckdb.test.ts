import { mkdtempSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openCatalog, openStorage } from '../../src/sql/catalog/open.js'
import { openDuckDBEngine } from '../../src/storage/duckdb/engine.js'
import { runStorageSuite } from './storage.case.js'

const dir = mkdtempSync(join(tmpdir(), 'db-adapter-storage-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

runStorageSuite('duckdb in memory', () => openStorage('duckdb::memory:', { rootPassword: 'taosdata' }))

// the same suite with every write going through staging + update/insert (no direct append)
runStorageSuite('duckdb in memory, staged writes only', async () => {
  const engine = await openDuckDBEngine(':memory:', { directAppend: false })
  const catalog = await openCatalog(engine, { rootPassword: 'taosdata' })
  return { engine, catalog, close: () => engine.close() }
})

// a nested path checks that openStorage creates the parent directories
const file = join(dir, 'nested', 'deeper', 'db.duckdb')
runStorageSuite('duckdb file', () => openStorage(`duckdb:${file}`, { rootPassword: 'taosdata' }), {
  persistent: true,
})

describe('openStorage', () => {
  it('creates the file and parent directories; the root password is kept unless given and different', async () => {
    const path = join(dir, 'a', 'b', 'first.duckdb')
    const s1 = await openStorage(`duckdb:${path}`, { rootPassword: 'first-secret' })
    expect(existsSync(path)).toBe(true)
    expect(await s1.catalog.verifyUser('root', 'first-secret')).toBe(true)
    expect(await s1.catalog.verifyUser('root', 'taosdata')).toBe(false)
    await s1.close()
    // later starts keep the stored password (changed with ALTER USER, not by the setting)
    const s2 = await openStorage(`duckdb:${path}`, { rootPassword: 'other' })
    expect(await s2.catalog.verifyUser('root', 'first-secret')).toBe(true)
    expect(await s2.engine.healthy()).toBe(true)
    await s2.close()
    expect(await s2.engine.healthy()).toBe(false)
    await expect(s2.engine.query('SELECT 1')).rejects.toThrow(/closed/)
    // a given password (--auth.rootPassword set by the operator) replaces a different stored one
    let applied = 0
    const opts = { rootPassword: 'third', rootPasswordGiven: true, onRootPasswordApplied: () => applied++ }
    const s3 = await openStorage(`duckdb:${path}`, opts)
    expect(applied).toBe(1)
    expect(await s3.catalog.verifyUser('root', 'third')).toBe(true)
    expect(await s3.catalog.verifyUser('root', 'first-secret')).toBe(false)
    await s3.close()
    // given again and equal: nothing to replace
    const s4 = await openStorage(`duckdb:${path}`, opts)
    expect(applied).toBe(1)
    expect(await s4.catalog.verifyUser('root', 'third')).toBe(true)
    await s4.close()
  })

  it('names the file when it cannot be opened', async () => {
    const { writeFileSync } = await import('node:fs')
    const bad = join(dir, 'not-a-db.duckdb')
    writeFileSync(bad, 'this is not a DuckDB file, just text that is long enough to have a header')
    await expect(openStorage(`duckdb:${bad}`, { rootPassword: 'p' })).rejects.toThrow(
      `storage.url: cannot open DuckDB file ${bad}`,
    )
  })

  it('rejects unknown URLs naming the URL', async () => {
    await expect(openStorage('mysql://x', { rootPassword: 'p' })).rejects.toThrow(/unsupported storage URL "mysql:\/\/x"/)
  })
})
