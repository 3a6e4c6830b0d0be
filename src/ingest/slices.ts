/**
 * Large bodies are parsed a slice at a time with a turn of the event loop in between, so one
 * 5000-line write does not hold up other requests for ~10 ms: the readiness probe (`/-/ping`)
 * must answer in a few milliseconds while ingest runs at full speed.
 */
import { yieldToEventLoop } from '../event-loop.js'

/** ~0.5 ms of line-protocol parsing and schemaless bookkeeping at ~70 bytes a line */
export const SLICE_CHARS = 8 * 1024

/**
 * Calls `fn` on consecutive slices of `body` that end at a newline (the last may not), with the
 * number of lines before each slice, yielding to the event loop between slices. A body of one
 * slice is passed as it is.
 */
export async function forEachLineSlice(
  body: string,
  fn: (slice: string, lineOffset: number) => void,
  sliceChars = SLICE_CHARS,
): Promise<void> {
  let start = 0
  let lineOffset = 0
  while (start < body.length) {
    let end = start + sliceChars >= body.length ? -1 : body.indexOf('\n', start + sliceChars)
    end = end < 0 ? body.length : end + 1
    const slice = start === 0 && end === body.length ? body : body.slice(start, end)
    fn(slice, lineOffset)
    if (end >= body.length) {
      return
    }
    for (let nl = slice.indexOf('\n'); nl >= 0; nl = slice.indexOf('\n', nl + 1)) {
      lineOffset++
    }
    start = end
    await yieldToEventLoop()
  }
}
