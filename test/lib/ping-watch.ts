/**
 * Watches an adapter's event loop from outside: `/-/ping` every few ms, keeping the slowest answer.
 * A request that blocks the adapter's main thread shows as one slow ping, however it is spread.
 */
export interface PingWatch {
  /** stops and returns the slowest ping in ms (and how many were sent) */
  stop(): Promise<{ worstMs: number; pings: number }>
}

export async function watchPing(base: string, everyMs = 5): Promise<PingWatch> {
  // a warm connection first: the first fetch of a process includes its own set-up
  for (let i = 0; i < 5; i++) {
    await (await fetch(`${base}/-/ping`)).arrayBuffer()
  }
  let stopped = false
  let worstMs = 0
  let pings = 0
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now()
      const res = await fetch(`${base}/-/ping`)
      await res.arrayBuffer()
      worstMs = Math.max(worstMs, performance.now() - t0)
      pings++
      await new Promise((r) => setTimeout(r, everyMs))
    }
  })()
  return {
    async stop() {
      stopped = true
      await loop
      return { worstMs, pings }
    },
  }
}
