/**
 * Parse errors of the ingestion wire formats. One error per rejected line (or JSON item), so the
 * caller can write the good lines and report the bad ones: which format, which line, which field,
 * why, and a short quote of the input.
 */

export type IngestFormat = 'lineproto' | 'tsdb-telnet' | 'tsdb-json' | 'statsd'

/** Longest quote of the offending line kept in a message, in UTF-8 bytes. */
export const MAX_QUOTE_BYTES = 256

export interface IngestParseErrorInit {
  format: IngestFormat
  /** 1-based physical line number in the body (0 when the whole body is bad, e.g. invalid JSON) */
  line: number
  /** 0-based array index for OpenTSDB JSON items */
  index?: number
  /** field (or tag / JSON member) name when the problem is about one; the reason names it too */
  field?: string
  reason: string
  /** the offending line or JSON text; quoted truncated to MAX_QUOTE_BYTES */
  input?: string
  /** a known likely cause, appended to the message */
  hint?: string
  cause?: unknown
}

/**
 * Thrown inside one line's parse by the line-oriented parsers; their per-line loop turns it into
 * an IngestParseError with the format, line number and quote.
 */
export class LineFailure {
  constructor(
    readonly reason: string,
    readonly field?: string,
    readonly hint?: string,
  ) {}
}

export class IngestParseError extends Error {
  override readonly name = 'IngestParseError'
  readonly format: IngestFormat
  readonly line: number
  readonly index: number | undefined
  readonly field: string | undefined
  readonly reason: string
  /** the truncated quote of the input ('' when none) */
  readonly quote: string
  readonly hint: string | undefined

  constructor(init: IngestParseErrorInit) {
    const quote = init.input === undefined ? '' : truncateUtf8(init.input, MAX_QUOTE_BYTES)
    super(formatMessage(init, quote), init.cause === undefined ? undefined : { cause: init.cause })
    this.format = init.format
    this.line = init.line
    this.index = init.index
    this.field = init.field
    this.reason = init.reason
    this.quote = quote
    this.hint = init.hint
  }
}

function formatMessage(init: IngestParseErrorInit, quote: string): string {
  let where: string
  if (init.index !== undefined) {
    where = `${init.format} item ${init.index}`
  } else if (init.line > 0) {
    where = `${init.format} line ${init.line}`
  } else {
    where = init.format
  }
  // The reason already names the field in words ("cannot parse field value for "usage": ...");
  // `field` is kept as structured data for callers.
  let msg = where + ': ' + init.reason
  if (init.input !== undefined) {
    msg += ` in ${JSON.stringify(quote)}`
  }
  if (init.hint !== undefined) {
    msg += ` (hint: ${init.hint})`
  }
  return msg
}

/**
 * Cuts `s` to at most `maxBytes` UTF-8 bytes without splitting a character, marking the cut with
 * an ellipsis (counted in the budget).
 */
function truncateUtf8(s: string, maxBytes: number): string {
  // Fast exit: every UTF-16 unit is at most 3 UTF-8 bytes.
  if (s.length * 3 <= maxBytes) {
    return s
  }
  if (Buffer.byteLength(s, 'utf8') <= maxBytes) {
    return s
  }
  const ELLIPSIS = '…' // 3 bytes
  const budget = maxBytes - 3
  let bytes = 0
  let i = 0
  while (i < s.length) {
    const c = s.codePointAt(i) as number
    const n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4
    if (bytes + n > budget) {
      break
    }
    bytes += n
    i += c >= 0x10000 ? 2 : 1
  }
  return s.slice(0, i) + ELLIPSIS
}

/** Hints for mistakes seen in real traffic. */
export const HINT_RAW_NEWLINE =
  'a quoted string field value cannot span lines; escape or remove raw newlines inside quotes'
export const HINT_HTTP_ON_TELNET =
  'this looks like an HTTP request; send HTTP to the /tsdbproto/v1/put/telnet/<db> endpoint, not to the telnet port'

/** True when a line looks like an HTTP request line (`GET / HTTP/1.1`) or header sent to a telnet port. */
export function looksLikeHttpRequest(line: string): boolean {
  return /^(?:GET|POST|PUT|HEAD|DELETE|OPTIONS|PATCH|CONNECT|TRACE) \S+ HTTP\/\d/.test(line)
}
