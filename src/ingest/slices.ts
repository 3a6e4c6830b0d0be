/**
 * Large bodies are parsed a slice at a time with a turn of the event loop in between, so one
 * 5000-line write does not hold up other requests for ~10 ms: the readiness probe (`/-/ping`)
 * must answer in a few milliseconds while ingest runs at full speed.
 */
import { yieldToEventLoop } from '../event-loop.js'

/** ~0.5 ms of line-protocol parsing and schemaless bookkeeping at ~70 bytes a line */
export const SLICE_CHARS = 8 * 1024

/**
 * Consecutive slices of `body` that end at a newline (the last may not), each with the number of
 * lines before it. A body of one slice is yielded as it is; an empty body yields nothing.
 */
export function* lineSlices(body: string, sliceChars = SLICE_CHARS): Generator<{ slice: string; lineOffset: number; last: boolean }> {
  let start = 0
  let lineOffset = 0
  while (start < body.length) {
    let end = start + sliceChars >= body.length ? -1 : body.indexOf('\n', start + sliceChars)
    end = end < 0 ? body.length : end + 1
    const slice = start === 0 && end === body.length ? body : body.slice(start, end)
    const last = end >= body.length
    yield { slice, lineOffset, last }
    if (last) {
      return
    }
    for (let nl = slice.indexOf('\n'); nl >= 0; nl = slice.indexOf('\n', nl + 1)) {
      lineOffset++
    }
    start = end
  }
}

/** Calls `fn` on each of `lineSlices(body)`, yielding to the event loop between slices. */
export async function forEachLineSlice(
  body: string,
  fn: (slice: string, lineOffset: number) => void,
  sliceChars = SLICE_CHARS,
): Promise<void> {
  for (const { slice, lineOffset, last } of lineSlices(body, sliceChars)) {
    fn(slice, lineOffset)
    if (!last) {
      await yieldToEventLoop()
    }
  }
}

/** The bytes as a Buffer over the same memory (no copy). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
