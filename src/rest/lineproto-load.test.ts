import { describe, expect, it } from 'vitest'
import { ArrivalOrder, WriteLoad } from './lineproto.js'

describe('WriteLoad: whether a line-protocol write runs alone', () => {
  it('is alone without other writes, not while another runs, nor within OVERLAP_MS of the last overlap', () => {
    let now = 0
    const load = new WriteLoad(() => now)
    expect(load.start()).toBe(true)
    load.end()
    expect(load.start()).toBe(true)
    // a second write while the first runs
    expect(load.start()).toBe(false)
    load.end()
    load.end()
    // back to back on two connections: a moment with one write in flight is still concurrent load
    now += WriteLoad.OVERLAP_MS / 2
    expect(load.start()).toBe(false)
    load.end()
    now += WriteLoad.OVERLAP_MS + 1
    expect(load.start()).toBe(true)
    load.end()
  })
})

describe('ArrivalOrder: lane writes take turns in the order they took places', () => {
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

  it('gives each place its turn once every earlier place is done, whatever order they finish in', async () => {
    const order = new ArrivalOrder()
    const [a, b, c, d] = [order.take(), order.take(), order.take(), order.take()]
    const turns: number[] = []
    const waits = [d, b].map((t) => order.turn(t).then(() => void turns.push(t)))
    await order.turn(a)
    await settle()
    expect(turns).toEqual([])
    // c is done before its turn (its body failed while being parsed): b is still next
    order.done(c)
    await settle()
    expect(turns).toEqual([])
    order.done(a)
    await settle()
    expect(turns).toEqual([b])
    // c is done already, so b's end is d's turn
    order.done(b)
    await Promise.all(waits)
    expect(turns).toEqual([b, d])
    order.done(d)
    // a place taken once everyone is done has its turn at once
    const e = order.take()
    await order.turn(e)
    order.done(e)
  })
})
