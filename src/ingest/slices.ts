/**
 * Large bodies are parsed a slice at a time with a turn of the event loop in between, so one
 * 5000-line write does not hold up other requests for ~10 ms: the readiness probe (`/-/ping`)
 * must answer in a few milliseconds while ingest runs at full speed.
 */
import { yieldToEventLoop } from '../event-loop.js'

/** ~0.5 ms of line-protocol parsing and schemaless bookkeeping at ~70 bytes a line */
const SLICE_BYTES = 8 * 1024

/**
 * Consecutive slices of the UTF-8 `body` that end after a newline (the last may not), each
 * decoded to text, with the number of lines before it; an empty body yields nothing.
 *
 * Each slice is decoded from its own bytes rather than cut from the decoded body: V8 makes a cut
 * of a long string a view of it (a sliced string), and the parsers read such a view markedly
 * slower (figures: bench/README.md). A newline byte never occurs inside a UTF-8
 * sequence, so the slices decode to exactly the whole body's text.
 */
export function* lineSlices(body: Uint8Array, sliceBytes = SLICE_BYTES): Generator<{ slice: string; lineOffset: number; last: boolean }> {
  const buf = asBuffer(body)
  const len = buf.length
  let start = 0
  let lineOffset = 0
  while (start < len) {
    let end = start + sliceBytes >= len ? -1 : buf.indexOf(NEWLINE, start + sliceBytes)
    end = end < 0 ? len : end + 1
    const last = end >= len
    yield { slice: buf.toString('utf8', start, end), lineOffset, last }
    if (last) {
      return
    }
    for (let nl = buf.indexOf(NEWLINE, start); nl >= 0 && nl < end; nl = buf.indexOf(NEWLINE, nl + 1)) {
      lineOffset++
    }
    start = end
  }
}

const NEWLINE = 10

/** Calls `fn` on each of `lineSlices(body)`, yielding to the event loop between slices. */
export async function forEachLineSlice(
  body: Uint8Array,
  fn: (slice: string, lineOffset: number) => void,
  sliceBytes = SLICE_BYTES,
): Promise<void> {
  for (const { slice, lineOffset, last } of lineSlices(body, sliceBytes)) {
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
