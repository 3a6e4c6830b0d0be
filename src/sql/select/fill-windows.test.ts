import { describe, expect, it } from 'vitest'
import { fillWindows, type FillOptions } from './fill-windows.js'

describe('fillWindows', () => {
  async function* chunks(rows: unknown[][]): AsyncIterable<unknown[][]> {
    yield rows.slice(0, 1)
    yield rows.slice(1)
  }
  const base: Omit<FillOptions, 'mode'> = {
    wIndex: 2,
    keyIndexes: [3],
    fillCols: [1],
    wstartCols: [0],
    wendCols: [],
    wdurationCols: [],
    values: [],
    convert: [(v) => v, (v) => v],
    spec: { interval: 10n, offset: 0n, sliding: 10n },
    width: 2,
  }
  async function collect(src: AsyncIterable<unknown[][]>): Promise<unknown[][]> {
    const out: unknown[][] = []
    for await (const c of src) {
      out.push(...c)
    }
    return out
  }

  it('fills gaps per partition and restarts the range for every partition', async () => {
    const rows = [
      [0n, 1, 0n, 'a'],
      [30n, 4, 30n, 'a'],
      [10n, 7, 10n, 'b'],
    ]
    const out = await collect(fillWindows(chunks(rows), { ...base, mode: 'linear', range: { first: 0n, last: 30n } }))
    expect(out).toEqual([
      [0n, 1],
      [10n, 2],
      [20n, 3],
      [30n, 4],
      [0n, null],
      [10n, 7],
      [20n, null],
      [30n, null],
    ])
  })

  it('applies LIMIT/OFFSET per partition after filling', async () => {
    const rows = [
      [0n, 1, 0n, 'a'],
      [30n, 4, 30n, 'a'],
    ]
    const out = await collect(fillWindows(chunks(rows), { ...base, mode: 'prev', limit: { limit: 2, offset: 1 } }))
    expect(out).toEqual([
      [10n, 1],
      [20n, 1],
    ])
  })
})
