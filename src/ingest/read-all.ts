/**
 * @module
 * Everything a Node Readable (a socket, a file) gives until it ends, under a size cap: how the
 * stream layers (src/ingest/<format>/stream.ts) take input from transports other than HTTP.
 */
import type { Readable } from 'node:stream'

/** Thrown past the cap; nothing of the input is written. */
export class InputTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`input exceeds ${limit} bytes`)
    this.name = 'InputTooLarge'
  }
}

/** The bytes of `from` until it ends; fails with InputTooLarge past `limit` bytes (0 or less: no cap). */
export async function readAll(from: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of from) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
    total += bytes.length
    if (limit > 0 && total > limit) {
      from.destroy()
      throw new InputTooLarge(limit)
    }
    chunks.push(bytes)
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total)
}
