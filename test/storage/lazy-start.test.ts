/**
 * PostgreSQL down at start, without Docker: a postgres:// URL on a loopback port nobody listens
 * on. openStorage resolves anyway; every catalog call is a StorageUnavailableError naming the
 * cause until the catalog loads; healthy() is false. (Recovery is covered by
 * test/integration/outage.test.ts against a real server.)
 */
import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { StorageUnavailableError } from '../../src/storage/errors.js'
import { openStorage } from '../../src/sql/catalog/open.js'
import type { Storage } from '../../src/sql/catalog/types.js'

async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

let storage: Storage | undefined

afterEach(async () => {
  await storage?.close()
  storage = undefined
})

describe('openStorage with PostgreSQL unreachable', () => {
  it('resolves, reports unhealthy, and answers StorageUnavailableError until loaded', async () => {
    const port = await closedPort()
    storage = await openStorage(`postgres://u:secret@127.0.0.1:${port}/x`, {
      rootPassword: 'taosdata',
      pool: { maxConnect: 2, maxIdle: 1, idleTimeout: 0 },
    })
    expect(await storage.healthy?.()).toBe(false)
    const c = storage.catalog
    expect(() => c.listDatabases()).toThrow(StorageUnavailableError)
    expect(() => c.getTable('db', 't')).toThrow(/catalog is not loaded yet/)
    await expect(c.verifyUser('root', 'taosdata')).rejects.toBeInstanceOf(StorageUnavailableError)
    await expect(c.createDatabase('db', {}, true)).rejects.toBeInstanceOf(StorageUnavailableError)
    // the reason names the server, never the password
    let message = ''
    try {
      c.listUsers()
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}`))
    expect(message).not.toMatch(/secret/)
  })
})
