import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { countRows, createIngestMetrics } from './ingest-metrics.js'

describe('countRows', () => {
  it('adds each write to the counter, and is a no-op without metrics', async () => {
    const registry = new Registry()
    const metrics = createIngestMetrics(registry)
    countRows(metrics, 'lineproto', 3, 1)
    countRows(metrics, 'lineproto', 3, 1)
    countRows(undefined, 'lineproto', 3, 1)
    const text = await registry.metrics()
    expect(text).toContain('db_adapter_rows_total{protocol="lineproto",result="written"} 6')
    expect(text).toContain('db_adapter_rows_total{protocol="lineproto",result="rejected"} 2')
  })

  it('adds no series for zero counts', async () => {
    const registry = new Registry()
    countRows(createIngestMetrics(registry), 'tsdbproto_json', 2, 0)
    const text = await registry.metrics()
    expect(text).toContain('result="written"} 2')
    expect(text).not.toContain('result="rejected"')
  })
})
