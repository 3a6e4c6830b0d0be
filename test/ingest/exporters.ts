/**
 * Test exporters for the hostexporter scraper: an HTTP, HTTPS or unix-socket server that answers
 * a fixed exposition, optionally after a delay or only with the right Authorization header, and
 * records what it was asked; plus a self-signed certificate made with the openssl CLI.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

export interface ExporterOptions {
  body: string
  contentType?: string
  /** the Authorization header required (else 401) */
  auth?: string
  /** ms before answering */
  delayMs?: number
  tls?: { cert: Buffer; key: Buffer; ca?: Buffer; requestCert?: boolean }
  /** listen on this unix socket instead of a loopback port */
  socketPath?: string
  /** answer gzip-compressed (as node_exporter does when asked) */
  gzip?: boolean
}

export interface Exporter {
  /** the base URL (http://127.0.0.1:port, https://localhost:port or unix:///path) */
  url: string
  /** requests answered or refused */
  requests: number
  /** most requests in progress at once */
  maxConcurrent: number
  /** the Authorization headers received */
  authSeen: Array<string | undefined>
  close(): Promise<void>
}

export async function startExporter(o: ExporterOptions): Promise<Exporter> {
  let active = 0
  const ex: Exporter = { url: '', requests: 0, maxConcurrent: 0, authSeen: [], close: async () => {} }
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    ex.requests++
    ex.authSeen.push(req.headers.authorization)
    active++
    ex.maxConcurrent = Math.max(ex.maxConcurrent, active)
    // answered or cut off by the client (a scrape that timed out)
    res.on('close', () => active--)
    const answer = (): void => {
      if (o.auth !== undefined && req.headers.authorization !== o.auth) {
        res.writeHead(401, { 'Content-Type': 'text/plain' }).end('Unauthorized\n')
        return
      }
      if (req.url !== '/metrics') {
        res.writeHead(404).end()
        return
      }
      const type = o.contentType ?? 'text/plain; version=0.0.4; charset=utf-8'
      if (o.gzip === true) {
        res.writeHead(200, { 'Content-Type': type, 'Content-Encoding': 'gzip' }).end(gzipSync(o.body))
        return
      }
      res.writeHead(200, { 'Content-Type': type }).end(o.body)
    }
    if (o.delayMs !== undefined) {
      const t = setTimeout(answer, o.delayMs)
      res.on('close', () => clearTimeout(t))
    } else {
      answer()
    }
  }
  const server: Server = o.tls !== undefined ? createHttpsServer({ ...o.tls, rejectUnauthorized: o.tls.requestCert === true }, handler) : createHttpServer(handler)
  await new Promise<void>((resolve) => (o.socketPath !== undefined ? server.listen(o.socketPath, resolve) : server.listen(0, '127.0.0.1', resolve)))
  if (o.socketPath !== undefined) {
    ex.url = `unix://${o.socketPath}`
  } else {
    const port = (server.address() as AddressInfo).port
    ex.url = o.tls !== undefined ? `https://localhost:${port}` : `http://127.0.0.1:${port}`
  }
  ex.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return ex
}

export interface TestCerts {
  dir: string
  /** the server's self-signed certificate (its own CA), for localhost and 127.0.0.1 */
  serverCert: string
  serverKey: string
  /** a client certificate, self-signed too (the server trusts it as its CA) */
  clientCert: string
  clientKey: string
}

/** Two self-signed EC certificates made by the openssl CLI in a fresh folder. */
export function makeCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'hostexporter-tls-'))
  const make = (name: string, cn: string, san: string): void => {
    const r = spawnSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${cn}`, '-addext', san, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`)],
      { encoding: 'utf8' },
    )
    if (r.status !== 0) {
      throw new Error(`openssl req failed: ${r.stderr}`)
    }
  }
  make('server', 'localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1')
  make('client', 'scraper', 'extendedKeyUsage=clientAuth')
  return { dir, serverCert: join(dir, 'server.crt'), serverKey: join(dir, 'server.key'), clientCert: join(dir, 'client.crt'), clientKey: join(dir, 'client.key') }
}

export const read = (path: string): Buffer => readFileSync(path)
