import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, startServer } from './harness.js'

/** VGroup ids come from the persisted catalog and the name hash, so a restart keeps them. */
describe('vgid is stable across restarts (DuckDB file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vgid-restart-'))
  const url = `duckdb:${join(dir, 'db.duckdb')}`
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const vgids = async (base: string): Promise<unknown> => {
    const res = await fetch(`${base}/rest/sql/power/vgid`, {
      method: 'POST',
      headers: { Authorization: ROOT },
      body: JSON.stringify(['d1001', 'd1002', 'x', 'y', 'z']),
    })
    return res.json()
  }

  it('answers the same ids after a restart', async () => {
    const first = await startServer(url)
    let before: unknown
    try {
      for (const sql of ['create database other vgroups 3', 'create database power vgroups 4']) {
        const res = await fetch(`${first.url}/rest/sql`, { method: 'POST', headers: { Authorization: ROOT }, body: sql })
        expect(await res.json()).toEqual({ code: 0, column_meta: [['affected_rows', 'INT', 4]], data: [[0]], rows: 1 })
      }
      before = await vgids(first.url)
    } finally {
      await first.stop()
    }
    // `other` took ids 2..4, so power owns 5..8 (sql-dialect.md 10: ids continue after the max)
    // mm3("1.power.d1001") = 3546720171 and mm3("1.power.d1002") = 1176364662 (reference values);
    // step = floor(0xFFFFFFFF / 4) = 1073741823 -> ranges 3 and 1 -> ids 5 + 3 and 5 + 1
    expect(before).toMatchObject({ code: 0, vgIDs: [8, 6, expect.any(Number), expect.any(Number), expect.any(Number)] })
    for (const id of (before as { vgIDs: number[] }).vgIDs) {
      expect(id).toBeGreaterThanOrEqual(5)
      expect(id).toBeLessThanOrEqual(8)
    }
    const second = await startServer(url)
    try {
      expect(await vgids(second.url)).toEqual(before)
    } finally {
      await second.stop()
    }
  })
})
