/**
 * Clients that send more than a server accepts, over real sockets: a body declared larger than
 * it is (Content-Length), and a chunked body written as fast as the socket takes it until the
 * server answers. Each resolves with the answer, how long it took and how much was sent.
 */
import { request, type IncomingHttpHeaders } from 'node:http'

export interface OversizeAnswer {
  status: number
  text: string
  json: Record<string, unknown> | undefined
  headers: IncomingHttpHeaders
  /** ms from the request's start to the complete answer */
  ms: number
  /** body bytes written before the answer came */
  sent: number
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/**
 * POSTs to `url` with `headers`; `declared`: a Content-Length of that many bytes of which only
 * 64 KB are sent; otherwise a chunked body of `chunk` repeated up to `max` bytes (then ended).
 */
export function sendOversize(
  url: string,
  headers: Record<string, string>,
  body: { declared: number } | { chunk: Buffer; max: number },
  timeoutMs = 20_000,
): Promise<OversizeAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    let sent = 0
    let answered = false
    const req = request(url, {
      method: 'POST',
      headers: 'declared' in body ? { ...headers, 'Content-Length': String(body.declared) } : { ...headers, 'Transfer-Encoding': 'chunked' },
    })
    const timer = setTimeout(() => {
      req.destroy()
      reject(new Error(`no answer from ${url} within ${timeoutMs} ms (${sent} bytes sent)`))
    }, timeoutMs)
    req.on('response', (res) => {
      answered = true
      const sentBefore = sent
      const parts: Buffer[] = []
      res.on('data', (d: Buffer) => parts.push(d))
      res.on('end', () => {
        clearTimeout(timer)
        const text = Buffer.concat(parts).toString('utf8')
        resolve({ status: res.statusCode ?? 0, text, json: parse(text), headers: res.headers, ms: Date.now() - started, sent: sentBefore })
        req.destroy()
      })
      res.on('error', () => undefined)
    })
    // the server may close the connection while the rest of the body is still being written
    req.on('error', (err) => {
      if (!answered) {
        clearTimeout(timer)
        reject(err)
      }
    })
    if ('declared' in body) {
      const part = Buffer.alloc(Math.min(64 * 1024, body.declared), 0x20)
      req.write(part)
      sent += part.length
      return
    }
    const { chunk, max } = body
    const pump = (): void => {
      while (!answered && !req.destroyed && sent < max) {
        sent += chunk.length
        if (!req.write(chunk)) {
          req.once('drain', pump)
          return
        }
      }
      if (!answered && !req.destroyed) {
        req.end()
      }
    }
    pump()
  })
}
