import { describe, expect, it } from 'vitest'
import { Mutex } from './mutex.js'

describe('Mutex: places reserved in line take their turns in that order', () => {
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

  it('gives each place its turn once every earlier place is released, whatever order they are released in', async () => {
    const order = new Mutex()
    const [a, b, c, d] = [order.reserve(), order.reserve(), order.reserve(), order.reserve()]
    const turns: string[] = []
    const waits = [
      d.turn.then(() => void turns.push('d')),
      b.turn.then(() => void turns.push('b')),
    ]
    await a.turn
    await settle()
    expect(turns).toEqual([])
    // c is released before its turn (its body failed while being parsed): b is still next
    c.release()
    await settle()
    expect(turns).toEqual([])
    a.release()
    await settle()
    expect(turns).toEqual(['b'])
    // c is released already, so b's release is d's turn
    b.release()
    await Promise.all(waits)
    expect(turns).toEqual(['b', 'd'])
    d.release()
    // a place reserved once everyone is released has its turn at once
    const e = order.reserve()
    await e.turn
    e.release()
  })

  it('runs callers one after another, in the order they called', async () => {
    const order = new Mutex()
    const log: string[] = []
    const slow = order.run(async () => {
      log.push('slow start')
      await settle()
      await settle()
      log.push('slow end')
    })
    const fast = order.run(async () => {
      log.push('fast')
    })
    await Promise.all([slow, fast])
    expect(log).toEqual(['slow start', 'slow end', 'fast'])
  })
})
