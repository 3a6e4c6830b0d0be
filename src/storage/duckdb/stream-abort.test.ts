/**
 * A streamed result whose signal fires while it is being read must fail, never end as if it were
 * whole: DuckDB's interrupt can make the next fetch return no chunk, like the end of the result.
 */
import { describe, expect, it } from 'vitest'
import { DuckDBEngine } from './engine.js'

describe('DuckDBEngine.stream and its signal', () => {
  it('fails with the signal reason when aborted between chunks, at any point of the result', async () => {
    const engine = await DuckDBEngine.open(':memory:')
    try {
      await engine.exec('CREATE TABLE t AS SELECT range AS id, repeat(\'x\', 50) AS s FROM range(500000)')
      for (const after of [1, 5, 40]) {
        const controller = new AbortController()
        let rows = 0
        let chunks = 0
        const read = (async () => {
          for await (const chunk of engine.stream('SELECT * FROM t', { signal: controller.signal, chunkRows: 4096 })) {
            rows += chunk.length
            if (++chunks === after) {
              // while the next fetch is under way (an abort between fetches is caught anyway)
              setImmediate(() => controller.abort(new Error('stopped by the test')))
            }
          }
        })()
        await expect(read, `aborted after ${after} chunks`).rejects.toThrow('stopped by the test')
        expect(rows).toBeLessThan(500000)
      }
    } finally {
      await engine.close()
    }
  })
})
