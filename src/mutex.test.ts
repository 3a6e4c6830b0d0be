import { describe, expect, it } from 'vitest'
import { KeyedMutex, Mutex } from './mutex.js'

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

describe('KeyedMutex: one line per key', () => {
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

  it('runs callers of one key one after another in the order they called, and other keys beside them', async () => {
    const locks = new KeyedMutex<string>()
    const log: string[] = []
    let releaseFirst!: () => void
    const first = locks.run('a', async () => {
      log.push('a1 start')
      await new Promise<void>((resolve) => {
        releaseFirst = resolve
      })
      log.push('a1 end')
    })
    const second = locks.run('a', async () => {
      log.push('a2')
    })
    const other = locks.run('b', async () => {
      log.push('b')
    })
    await other
    await settle()
    expect(log).toEqual(['a1 start', 'b'])
    releaseFirst()
    await Promise.all([first, second])
    expect(log).toEqual(['a1 start', 'b', 'a1 end', 'a2'])
  })

  it('hands the turn on when a holder throws, and lets its error through', async () => {
    const locks = new KeyedMutex<string>()
    const failed = locks.run('a', async () => {
      await settle()
      throw new Error('ddl failed')
    })
    const next = locks.run('a', async () => 'ran')
    await expect(failed).rejects.toThrow('ddl failed')
    await expect(next).resolves.toBe('ran')
    // a key nobody waits for any more starts a fresh line
    await expect(locks.run('a', async () => 'again')).resolves.toBe('again')
  })
})
