import fc from 'fast-check'
import { watchPing } from './ping-watch.js'

/**
 * Bodies for HTTP fuzz tests: a seed with 1-8 edits (insert, delete or replace one of `special`,
 * or duplicate a run of up to 10 characters) at random places, so most stay close to valid input
 * and reach the parser's deeper states.
 */
export function mutatedText(seeds: string[], special: string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(...seeds),
      fc.array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace', 'dup'), fc.constantFrom(...special)), { minLength: 1, maxLength: 8 }),
    )
    .map(([seed, edits]) => {
      let s = seed
      for (const [pos, op, ch] of edits) {
        const i = s.length === 0 ? 0 : pos % s.length
        if (op === 'insert') {
          s = s.slice(0, i) + ch + s.slice(i)
        } else if (op === 'delete') {
          s = s.slice(0, i) + s.slice(i + 1)
        } else if (op === 'replace') {
          s = s.slice(0, i) + ch + s.slice(i + 1)
        } else {
          s = s.slice(0, i) + s.slice(i, i + 10) + s.slice(i)
        }
      }
      return s
    })
}

/**
 * The fuzz tests' shared settings: a fixed seed, so CI runs the same few thousand bodies every
 * time (FUZZ_SEED=<n> explores others, FUZZ_RUNS=<n> runs longer; a failure prints the seed and
 * the shrunk body to replay).
 */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 33)

/** fc.assert parameters for `runs` bodies (FUZZ_RUNS overrides) from the fixed seed */
export function fuzzParams(runs: number): { numRuns: number; seed: number; endOnFailure: boolean } {
  return { numRuns: Number(process.env.FUZZ_RUNS ?? runs), seed: FUZZ_SEED, endOnFailure: true }
}

/** names storage cannot hold as given, or that mean something to it */
export const HOSTILE_NAMES = ['\ud800', 'a\udc00b', 'n\u0000ul', 'x'.repeat(300), 'back`tick', 'q"uote', "s'ingle", 'do.t', '\ufffd', '\ud83d\ude00', 'tbname', '_tid', '']

/** one of `units` repeated up to `max` times: wide lines, long chains, deep nesting */
export function repeated(units: string[], max: number): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...units), fc.nat({ max })).map(([u, n]) => u.repeat(n))
}

/**
 * What every fuzz run checks besides the answers: `/-/ping` never waits 1 s or more while the
 * bodies are processed (watched from the start to `stop()`).
 */
export async function watchStalls(base: string): Promise<{ stop(): Promise<number> }> {
  const watch = await watchPing(base, 20)
  return {
    async stop() {
      return (await watch.stop()).worstMs
    },
  }
}

/**
 * A receiver's counters on /metrics, keyed `packets.accepted`, `points.written`,
 * `connections.refused`..., plus `kernel_drops` (UDP receivers); absent ones read 0.
 */
export async function receiverCounters(base: string, receiver: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const out: Record<string, number> = { kernel_drops: 0 }
  const re = /^db_adapter_receiver_(packets|points|connections|kernel_drops)_total\{([^}]*)\} (\S+)$/gm
  for (const m of text.matchAll(re)) {
    const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]))
    if (labels.receiver !== receiver) {
      continue
    }
    out[m[1] === 'kernel_drops' ? 'kernel_drops' : `${m[1]}.${labels.result}`] = Number(m[3])
  }
  return new Proxy(out, { get: (o, k: string) => o[k] ?? 0 })
}

/** Sends each datagram to 127.0.0.1:`port` from one socket, each send awaited. */
export async function sendDatagrams(port: number, datagrams: Uint8Array[]): Promise<void> {
  const { createSocket } = await import('node:dgram')
  const s = createSocket('udp4')
  try {
    for (const d of datagrams) {
      await new Promise<void>((resolve, reject) => s.send(d, port, '127.0.0.1', (err) => (err ? reject(err) : resolve())))
    }
  } finally {
    s.close()
  }
}

/**
 * Polls `read` until `done` says yes (or `ms` passed) and answers its last value: UDP receivers
 * count a datagram only once the event loop has read it, so a test waits for the counters instead
 * of sleeping (and sends its next datagrams only then: the kernel's buffer never overflows).
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const v = await read()
    if (done(v) || Date.now() > until) {
      return v
    }
    await new Promise((r) => setTimeout(r, 5))
  }
}
