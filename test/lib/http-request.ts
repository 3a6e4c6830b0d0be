import { request, type Agent } from 'node:http'

export interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  /** milliseconds from sending to the end of the body */
  ms: number
}

export interface RequestOptions {
  method?: string
  headers?: Record<string, string>
  body?: string
  /** the source address of the connection (any 127.x.y.z on Linux loopback) */
  localAddress?: string
  /** keep-alive agent; default a new connection */
  agent?: Agent
}

/** One HTTP request with node:http (fetch cannot choose the source address). */
export function httpRequest(url: string, opts: RequestOptions = {}): Promise<Reply> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: opts.headers,
        ...(opts.localAddress === undefined ? {} : { localAddress: opts.localAddress }),
        agent: opts.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (d: Buffer) => chunks.push(d))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(opts.body)
  })
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
}

/** p50 and max of some latencies, rounded to 0.1 ms. */
export function summary(ms: number[]): { n: number; p50: number; max: number } {
  const s = [...ms].sort((a, b) => a - b)
  const r = (x: number): number => Math.round(x * 10) / 10
  return { n: s.length, p50: r(s[Math.floor((s.length - 1) / 2)] ?? 0), max: r(s[s.length - 1] ?? 0) }
}
