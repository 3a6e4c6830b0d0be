/**
 * @module
 * One scrape of an exporter, as the original's node_exporter scraper makes it (adapter-behaviour
 * 10): GET over http, https (CA file, client certificate, insecureSkipVerify) or a unix socket,
 * a bearer token or basic auth, no keep-alive, bounded by `hostexporter.responseTimeout`; any
 * status but 200 is a failure. The body is bounded too (`http.maxBodySize`, counted after gzip
 * is undone), so an exporter cannot make the adapter hold more than a write request could.
 */
import { readFileSync } from 'node:fs'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest, type RequestOptions as HttpsRequestOptions } from 'node:https'
import { createGunzip } from 'node:zlib'
import type { PromFormat } from '../ingest/promtext/parse.js'

export interface ScrapeTarget {
  /** as configured: the `url` tag and the metrics' label (a password in it is masked) */
  label: string
  kind: 'http' | 'https' | 'unix'
  options: HttpsRequestOptions
}

export interface ScrapeClientConfig {
  urls: string[]
  caCertFile: string
  certFile: string
  keyFile: string
  insecureSkipVerify: boolean
  httpBearerTokenString: string
  httpUsername: string
  httpPassword: string
  responseTimeout: number
}

export interface ScrapeClient {
  targets: ScrapeTarget[]
  timeoutMs: number
  maxBytes: number
}

export interface ScrapeBody {
  text: string
  format: PromFormat
}

// the text format first: it is what the original reads; OpenMetrics is understood too
const ACCEPT = 'text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1'

/** The targets and TLS material of `hostexporter.*`; throws naming the flag for anything unusable. */
export function scrapeClient(c: ScrapeClientConfig, maxBytes: number): ScrapeClient {
  if (c.urls.length === 0) {
    throw new Error('hostexporter.urls is empty: name at least one exporter URL, e.g. http://localhost:9100')
  }
  if ((c.certFile === '') !== (c.keyFile === '')) {
    throw new Error('hostexporter.certFile and hostexporter.keyFile go together: set both for a client certificate, or neither')
  }
  const tls = {
    rejectUnauthorized: !c.insecureSkipVerify,
    ...(c.caCertFile !== '' ? { ca: readFlagFile('hostexporter.caCertFile', c.caCertFile) } : {}),
    ...(c.certFile !== '' ? { cert: readFlagFile('hostexporter.certFile', c.certFile), key: readFlagFile('hostexporter.keyFile', c.keyFile) } : {}),
  }
  let auth: string | undefined
  if (c.httpBearerTokenString !== '') {
    auth = `Bearer ${c.httpBearerTokenString}`
  } else if (c.httpUsername !== '') {
    auth = `Basic ${Buffer.from(`${c.httpUsername}:${c.httpPassword}`).toString('base64')}`
  }
  const seen = new Set<string>()
  const targets = c.urls.map((raw) => {
    if (seen.has(raw)) {
      throw new Error(`hostexporter.urls: "${raw}" is listed twice`)
    }
    seen.add(raw)
    return target(raw, auth, tls)
  })
  return { targets, timeoutMs: c.responseTimeout, maxBytes }
}

function readFlagFile(flag: string, path: string): Buffer {
  try {
    return readFileSync(path)
  } catch (err) {
    throw new Error(`${flag} ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err })
  }
}

function target(raw: string, auth: string | undefined, tls: HttpsRequestOptions): ScrapeTarget {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new Error(`hostexporter.urls: "${raw}" is not a URL (http://host:port[/path], https://..., unix:///socket[?path=/metrics])`)
  }
  const headers: Record<string, string> = { Accept: ACCEPT, 'Accept-Encoding': 'gzip', 'User-Agent': 'db-adapter-hostexporter' }
  let label = raw
  if (u.username !== '' || u.password !== '') {
    // credentials in the URL: sent as basic auth unless a token or httpUsername is set, never stored
    auth ??= `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`
    if (u.password !== '') {
      label = raw.replace(`:${u.password}@`, ':xxxxx@')
    }
  }
  if (auth !== undefined) {
    headers.Authorization = auth
  }
  if (u.protocol === 'unix:') {
    if (u.pathname === '' || u.pathname === '/') {
      throw new Error(`hostexporter.urls: "${raw}" names no socket (unix:///path/to/socket[?path=/metrics])`)
    }
    const path = u.searchParams.get('path') ?? '/metrics'
    return { label, kind: 'unix', options: { socketPath: decodeURIComponent(u.pathname), path, headers: { ...headers, Host: 'localhost' } } }
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new Error(`hostexporter.urls: "${raw}" has scheme ${u.protocol.slice(0, -1)}; use http, https or unix`)
  }
  // an empty path is the exporters' usual /metrics
  const path = (u.pathname === '/' && !raw.replace(/[?#].*$/, '').endsWith('/') ? '/metrics' : u.pathname) + u.search
  const options: HttpsRequestOptions = {
    hostname: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port === '' ? undefined : Number(u.port),
    path,
    headers,
    ...(u.protocol === 'https:' ? tls : {}),
  }
  return { label, kind: u.protocol === 'https:' ? 'https' : 'http', options }
}

/** GETs one target; rejects with a one-line reason (status, timeout, size, network error). */
export function scrape(client: ScrapeClient, t: ScrapeTarget, signal: AbortSignal): Promise<ScrapeBody> {
  return new Promise((resolve, reject) => {
    const send = t.kind === 'https' ? httpsRequest : httpRequest
    // agent false: a fresh connection per scrape, as the original (keep-alives off)
    const req = send({ ...t.options, method: 'GET', agent: false, signal })
    const timer = setTimeout(() => req.destroy(new Error(`no complete answer within ${client.timeoutMs} ms (hostexporter.responseTimeout)`)), client.timeoutMs)
    const fail = (err: Error): void => {
      clearTimeout(timer)
      reject(err)
    }
    req.on('error', (err) => fail(err.name === 'AbortError' ? new Error('stopped') : err))
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        req.destroy()
        fail(new Error(`HTTP ${res.statusCode ?? '?'} ${res.statusMessage ?? ''}`.trim()))
        return
      }
      readBody(res, client.maxBytes).then(
        (buf) => {
          clearTimeout(timer)
          const type = String(res.headers['content-type'] ?? '')
          resolve({ text: buf.toString('utf8'), format: type.startsWith('application/openmetrics-text') ? 'openmetrics' : 'text' })
        },
        (err: Error) => {
          req.destroy()
          fail(err)
        },
      )
    })
    req.end()
  })
}

function readBody(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers['content-length'] ?? NaN)
  const tooLarge = (): Error => new Error(`answer larger than ${maxBytes} bytes (http.maxBodySize)`)
  if (declared > maxBytes && res.headers['content-encoding'] === undefined) {
    res.resume()
    return Promise.reject(tooLarge())
  }
  const gzip = res.headers['content-encoding'] === 'gzip'
  const stream = gzip ? res.pipe(createGunzip()) : res
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (err: Error | undefined): void => {
      if (done) {
        return
      }
      done = true
      if (err !== undefined) {
        if (gzip) {
          ;(stream as NodeJS.ReadableStream & { destroy(): void }).destroy()
        }
        reject(err)
        return
      }
      resolve(Buffer.concat(chunks, size))
    }
    stream.on('data', (c: Buffer) => {
      size += c.length
      if (size > maxBytes) {
        // counted as it inflates: a gzip bomb is refused before it is held
        finish(tooLarge())
        return
      }
      chunks.push(c)
    })
    stream.on('end', () => finish(undefined))
    stream.on('error', (err: Error) => finish(err))
    res.on('error', (err: Error) => finish(err))
    res.on('aborted', () => finish(new Error('the exporter closed the connection mid-answer')))
  })
}
