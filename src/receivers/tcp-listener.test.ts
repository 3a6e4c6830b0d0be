import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { startTcpLineListener, type TcpCloseReason, type TcpLineListener, type TcpLineListenerOptions } from './tcp-listener.js'

interface Seen {
  lines: string[]
  closes: TcpCloseReason[]
  overlong: number
}

const listeners: TcpLineListener[] = []
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((l) => l.close()))
})

async function listen(opts: Partial<TcpLineListenerOptions> & { consume?: (lines: string[]) => void | Promise<void> } = {}): Promise<{ l: TcpLineListener; seen: Seen }> {
  const seen: Seen = { lines: [], closes: [], overlong: 0 }
  const l = await startTcpLineListener({
    host: '127.0.0.1',
    port: 0,
    maxConnections: 10,
    maxLineBytes: 64,
    onConnection: () => ({
      onLines: (lines) => {
        seen.lines.push(...lines)
        return opts.consume?.(lines)
      },
      onOverlong: () => {
        seen.overlong++
      },
      onClose: (reason) => {
        seen.closes.push(reason)
      },
    }),
    ...opts,
  })
  listeners.push(l)
  return { l, seen }
}

function client(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s))
    s.once('error', reject)
  })
}

/** resolves when the server side closed the socket (or at `ms`, whichever first: false then) */
function closedByServer(s: Socket, ms = 5000): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms)
    s.on('error', () => undefined)
    s.once('close', () => {
      clearTimeout(t)
      resolve(true)
    })
    s.resume()
  })
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) {
      throw new Error('condition not met in time')
    }
    await new Promise((r) => setTimeout(r, 5))
  }
}

describe('startTcpLineListener', () => {
  it('splits bytes into lines across reads, \\r\\n and empty lines, and delivers a final fragment on end', async () => {
    const { l, seen } = await listen()
    const s = await client(l.port)
    s.write('alpha\r\nbe')
    await new Promise((r) => setTimeout(r, 20))
    s.write('ta\n\n\r\ngamma\ndel')
    s.end('ta')
    await until(() => seen.closes.length === 1)
    expect(seen.lines).toEqual(['alpha', 'beta', 'gamma', 'delta'])
    expect(seen.closes).toEqual(['end'])
  })

  it('drops a final fragment when told to', async () => {
    const { l, seen } = await listen({ finalFragment: 'drop' })
    const s = await client(l.port)
    s.end('one\ntwo')
    await until(() => seen.closes.length === 1)
    expect(seen.lines).toEqual(['one'])
  })

  it('skips an over-long line (split over reads or not) and keeps the later lines', async () => {
    const { l, seen } = await listen({ maxLineBytes: 10 })
    const s = await client(l.port)
    s.write('short\n' + 'x'.repeat(11) + '\nok1\n' + 'y'.repeat(8))
    await new Promise((r) => setTimeout(r, 20))
    // the second long line arrives in three reads, far beyond the limit in total
    s.write('y'.repeat(100_000))
    await new Promise((r) => setTimeout(r, 20))
    s.write('yyy\nok2\n0123456789\n')
    s.end()
    await until(() => seen.closes.length === 1)
    expect(seen.lines).toEqual(['short', 'ok1', 'ok2', '0123456789'])
    expect(seen.overlong).toBe(2)
    expect(l.stats.overlong).toBe(2)
  })

  it('delivers in order and pauses reading while the consumer is busy', async () => {
    let release: (() => void) | undefined
    let calls = 0
    const { l, seen } = await listen({
      maxLineBytes: 1024,
      consume: () => {
        calls++
        if (calls === 1) {
          return new Promise<void>((r) => {
            release = r
          })
        }
        return undefined
      },
    })
    const s = await client(l.port)
    const line = 'z'.repeat(1000) + '\n'
    s.write('first\n')
    await until(() => release !== undefined)
    // while the first batch is held, the socket is paused: a lot of writing reaches the kernel
    // buffers at most, and the client sees backpressure (write() returns false)
    let backpressure = false
    for (let i = 0; i < 20_000 && !backpressure; i++) {
      backpressure = !s.write(`${i}:${line}`)
    }
    expect(backpressure).toBe(true)
    expect(seen.lines).toEqual(['first'])
    release?.()
    s.end('last\n')
    await until(() => seen.closes.length === 1, 10_000)
    const numbered = seen.lines.slice(1, -1).map((x) => Number(x.slice(0, x.indexOf(':'))))
    expect(numbered).toEqual(numbered.map((_, i) => i))
    expect(seen.lines.at(-1)).toBe('last')
  })

  it('calls onClose after the last pending batch settled', async () => {
    const order: string[] = []
    const l = await startTcpLineListener({
      host: '127.0.0.1',
      port: 0,
      maxConnections: 1,
      maxLineBytes: 100,
      onConnection: () => ({
        onLines: async (lines) => {
          await new Promise((r) => setTimeout(r, 30))
          order.push(...lines)
        },
        onClose: () => {
          order.push('closed')
        },
      }),
    })
    listeners.push(l)
    const s = await client(l.port)
    s.write('a\n')
    await new Promise((r) => setTimeout(r, 5))
    s.end('b\n')
    await until(() => order.includes('closed'))
    expect(order).toEqual(['a', 'b', 'closed'])
  })

  it('closes connections beyond maxConnections at once and counts them', async () => {
    let refused = 0
    const { l, seen } = await listen({ maxConnections: 2, onRefused: () => refused++ })
    const a = await client(l.port)
    const b = await client(l.port)
    await until(() => l.stats.active === 2)
    const c = await client(l.port)
    expect(await closedByServer(c)).toBe(true)
    expect(l.stats.refused).toBe(1)
    expect(refused).toBe(1)
    // the admitted ones still work; once one leaves, a new one is admitted
    a.end('from-a\n')
    await until(() => l.stats.active === 1)
    const d = await client(l.port)
    d.write('from-d\n')
    b.write('from-b\n')
    await until(() => seen.lines.length === 3)
    expect(seen.lines.sort()).toEqual(['from-a', 'from-b', 'from-d'])
    expect(l.stats.refused).toBe(1)
    b.destroy()
    d.destroy()
  })

  it('closes a connection idle for idleTimeoutMs, not a busy one', async () => {
    const { l, seen } = await listen({ idleTimeoutMs: 200 })
    const quiet = await client(l.port)
    const chatty = await client(l.port)
    const talking = setInterval(() => chatty.write('tick\n'), 50)
    try {
      expect(await closedByServer(quiet, 5000)).toBe(true)
      expect(seen.closes).toEqual(['idle'])
      expect(chatty.destroyed).toBe(false)
      expect(l.stats.idleClosed).toBe(1)
    } finally {
      clearInterval(talking)
    }
    expect(await closedByServer(chatty, 5000)).toBe(true)
    expect(l.stats.idleClosed).toBe(2)
  })

  it('sets keep-alive when asked (the connection works)', async () => {
    const { l, seen } = await listen({ keepAlive: true })
    const s = await client(l.port)
    s.end('k\n')
    await until(() => seen.closes.length === 1)
    expect(seen.lines).toEqual(['k'])
  })

  it('lets a handler answer on its connection', async () => {
    const l = await startTcpLineListener({
      host: '127.0.0.1',
      port: 0,
      maxConnections: 1,
      maxLineBytes: 100,
      onConnection: (conn) => ({
        onLines: (lines) => {
          for (const x of lines) {
            conn.write(`${x.toUpperCase()};`)
          }
        },
        onClose: () => undefined,
      }),
    })
    listeners.push(l)
    const s = await client(l.port)
    let got = ''
    s.on('data', (d: Buffer) => (got += d.toString()))
    s.write('ab\ncd\n')
    await until(() => got === 'AB;CD;')
  })

  it('close() stops accepting, delivers what was read, calls onClose, ends the sockets', async () => {
    let release: (() => void) | undefined
    const { l, seen } = await listen({
      consume: (lines) =>
        lines.includes('hold')
          ? new Promise<void>((r) => {
              release = r
            })
          : undefined,
    })
    const a = await client(l.port)
    const b = await client(l.port)
    a.write('hold\nqueued-after-hold\n')
    b.write('b1\npartial-without-newline')
    await until(() => release !== undefined && seen.lines.includes('b1'))
    const aClosed = closedByServer(a)
    const bClosed = closedByServer(b)
    const closing = l.close()
    let done = false
    void closing.then(() => (done = true))
    await new Promise((r) => setTimeout(r, 50))
    // still waiting for the held batch
    expect(done).toBe(false)
    release?.()
    await closing
    // a's lines came in one read (one batch): all of it was read, so all of it is delivered
    expect([...seen.lines].sort()).toEqual(['b1', 'hold', 'queued-after-hold'])
    expect(seen.lines).not.toContain('partial-without-newline')
    expect(seen.closes).toEqual(['shutdown', 'shutdown'])
    expect(await aClosed).toBe(true)
    expect(await bClosed).toBe(true)
    await expect(client(l.port)).rejects.toThrow()
  })

  it('rejects when the port is taken', async () => {
    const { l } = await listen()
    await expect(startTcpLineListener({ host: '127.0.0.1', port: l.port, maxConnections: 1, maxLineBytes: 10, onConnection: () => ({ onLines: () => undefined, onClose: () => undefined }) })).rejects.toThrow(/EADDRINUSE/)
  })
})
