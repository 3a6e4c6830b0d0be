import { describe, expect, it } from 'vitest'
import { FairQueue, QueueFullError } from './fair-queue.js'

/** A job that finishes when told to, recording its start. */
function gated(log: string[], name: string): { fn: () => Promise<string>; finish: () => void } {
  let finish!: () => void
  const done = new Promise<void>((r) => {
    finish = r
  })
  return {
    fn: async () => {
      log.push(name)
      await done
      return name
    },
    finish,
  }
}

describe('FairQueue', () => {
  it('runs at most `concurrency` jobs and gives turns round-robin across keys', async () => {
    const q = new FairQueue({ concurrency: 2, maxWaiting: 10, maxWaitingPerKey: 10 })
    const log: string[] = []
    const jobs = ['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'c1'].map((n) => ({ n, ...gated(log, n) }))
    const results = jobs.map((j) => q.run(j.n[0] as string, j.fn))
    expect(log).toEqual(['a1', 'a2'])
    expect(q.load).toEqual({ running: 2, waiting: 5 })
    // key a's backlog does not hold b and c back: after a's next job, b and c get their turns
    for (const j of jobs) {
      j.finish()
      await new Promise((r) => setImmediate(r))
    }
    expect(await Promise.all(results)).toEqual(jobs.map((j) => j.n))
    expect(log).toEqual(['a1', 'a2', 'a3', 'b1', 'c1', 'a4', 'a5'])
    expect(q.load).toEqual({ running: 0, waiting: 0 })
  })

  it('refuses at once beyond its bounds, per key and in total', async () => {
    const q = new FairQueue({ concurrency: 1, maxWaiting: 3, maxWaitingPerKey: 2 })
    const log: string[] = []
    const first = gated(log, 'x')
    const running = q.run('a', first.fn)
    const waiting = [q.run('a', async () => 'a2'), q.run('a', async () => 'a3')]
    await expect(q.run('a', async () => 'a4')).rejects.toEqual(new QueueFullError('key'))
    waiting.push(q.run('b', async () => 'b1'))
    await expect(q.run('c', async () => 'c1')).rejects.toEqual(new QueueFullError('total'))
    first.finish()
    expect(await running).toBe('x')
    expect(await Promise.all(waiting)).toEqual(['a2', 'a3', 'b1'])
  })

  it('keeps going after a job fails', async () => {
    const q = new FairQueue({ concurrency: 1, maxWaiting: 2, maxWaitingPerKey: 2 })
    const bad = q.run('a', () => Promise.reject(new Error('boom')))
    const good = q.run('a', async () => 'ok')
    await expect(bad).rejects.toThrow('boom')
    expect(await good).toBe('ok')
    expect(q.load).toEqual({ running: 0, waiting: 0 })
  })
})
