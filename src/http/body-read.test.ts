import { describe, expect, it } from 'vitest'
import { createServer, type IncomingMessage } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { BodyTooLarge, declaredTooLarge, directLength, readBodyBytes, readIncomingInto } from './body-read.js'

const readBodyText = async (req: Request, limit: number): Promise<string> => (await readBodyBytes(req, limit)).toString('utf8')

describe('body limits', () => {
  it('declaredTooLarge reads Content-Length only', () => {
    const req = (cl?: string): Request => new Request('http://x/', { method: 'POST', headers: cl === undefined ? {} : { 'Content-Length': cl } })
    expect(declaredTooLarge(req('11'), 10)).toBe(true)
    expect(declaredTooLarge(req('10'), 10)).toBe(false)
    expect(declaredTooLarge(req(), 10)).toBe(false)
    expect(declaredTooLarge(req('11'), 0)).toBe(false)
  })
  it('readBodyText stops past the cap and decodes UTF-8 across chunks', async () => {
    const enc = new TextEncoder().encode('héllo wörld')
    const stream = (parts: Uint8Array[]): ReadableStream<Uint8Array> =>
      new ReadableStream({
        start(c) {
          for (const p of parts) {
            c.enqueue(p)
          }
          c.close()
        },
      })
    const mk = (parts: Uint8Array[]): Request =>
      new Request('http://x/', { method: 'POST', body: stream(parts), duplex: 'half' } as RequestInit)
    // split inside the two-byte é
    expect(await readBodyText(mk([enc.slice(0, 2), enc.slice(2)]), 100)).toBe('héllo wörld')
    await expect(readBodyText(mk([enc, enc]), enc.length + 1)).rejects.toBeInstanceOf(BodyTooLarge)
    expect(await readBodyText(mk([enc, enc]), 0)).toBe('héllo wörldhéllo wörld')
    expect(await readBodyText(new Request('http://x/', { method: 'POST' }), 10)).toBe('')
  })
})

describe('reading a body from Node request stream', () => {
  /** A node:http server whose handler reads each body with readIncomingInto; outcomes in order. */
  async function server(): Promise<{ port: number; outcomes: Array<Promise<string>>; close: () => Promise<void> }> {
    const outcomes: Array<Promise<string>> = []
    const srv = createServer((incoming, res) => {
      const req = new Request('http://x/', { method: 'POST', headers: incoming.headers as Record<string, string> })
      const n = directLength(req, incoming, 1 << 20)
      const into = Buffer.alloc(n ?? 0)
      const read = n === undefined ? Promise.resolve('not direct') : readIncomingInto(incoming, into).then(() => into.toString(), (err: Error) => `error: ${err.message}`)
      outcomes.push(read)
      void read.then(() => res.end('ok'))
    })
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
    const port = (srv.address() as AddressInfo).port
    return { port, outcomes, close: () => new Promise((resolve) => srv.close(() => resolve())) }
  }

  it('gets exactly the declared bytes, sent in pieces; a client gone half-way fails the read and nothing else', async () => {
    const s = await server()
    try {
      const sock = connect(s.port, '127.0.0.1')
      sock.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello')
      await new Promise((r) => setTimeout(r, 30))
      sock.write(' world')
      await new Promise((r) => sock.once('data', r))
      sock.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part')
      // the server is reading the second body when the client goes
      while (s.outcomes.length < 2) {
        await new Promise((r) => setTimeout(r, 5))
      }
      sock.destroy()
      expect(s.outcomes).toHaveLength(2)
      expect(await s.outcomes[0]).toBe('hello world')
      expect(await s.outcomes[1]).toMatch(/^error: client connection (reset|closed) after 9 of the body's 100 bytes$/)
      // the server still serves
      const res = await fetch(`http://127.0.0.1:${s.port}/`, { method: 'POST', body: 'again' })
      expect(await res.text()).toBe('ok')
      expect(await s.outcomes[2]).toBe('again')
    } finally {
      await s.close()
    }
  })

  it('leaves bodies without a usable Content-Length, or compressed, to the stream reader', () => {
    const incoming = { headers: { 'content-length': '5' }, readableDidRead: false } as unknown as IncomingMessage
    const req = (headers: Record<string, string>): Request => new Request('http://x/', { method: 'POST', headers })
    expect(directLength(req({ 'Content-Length': '5' }), incoming, 10)).toBe(5)
    expect(directLength(req({ 'Content-Length': '5' }), incoming, 4)).toBeUndefined()
    expect(directLength(req({ 'Content-Length': '5' }), undefined, 10)).toBeUndefined()
    expect(directLength(req({ 'Content-Length': '5', 'Content-Encoding': 'gzip' }), incoming, 10)).toBeUndefined()
    // gunzip replaced the request: no Content-Length any more
    expect(directLength(req({}), incoming, 10)).toBeUndefined()
    expect(directLength(req({ 'Content-Length': '5' }), { ...incoming, readableDidRead: true } as IncomingMessage, 10)).toBeUndefined()
  })
})
