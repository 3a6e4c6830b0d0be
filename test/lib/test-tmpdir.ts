import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Vitest global setup: every temporary folder a test makes (log dirs, database files, peer
 * configs) goes under one folder per run, removed when the run ends, so runs do not pile
 * thousands of folders into /tmp. Test workers and the processes they spawn inherit TMPDIR,
 * and os.tmpdir() reads it on each call. KEEP_TEST_TMP=1 keeps the folder to look at logs.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'db-adapter-test-'))
  process.env.TMPDIR = dir
  return () => {
    if (process.env.KEEP_TEST_TMP === '1') {
      console.log(`test temporary files kept in ${dir}`)
      return
    }
    rmSync(dir, { recursive: true, force: true })
  }
}
