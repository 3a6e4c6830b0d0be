/**
 * Pure parsers for the textual value forms of the configuration (command line, env, .env and
 * TOML values all arrive here as text). Each returns the value or `undefined` when the text is
 * not of that form; the caller turns `undefined` into an error that names flag, value and rule.
 */

const BOOL_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True'])
const BOOL_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False'])

/** Go's strconv.ParseBool forms, which the original accepted. */
export function parseBool(text: string): boolean | undefined {
  if (BOOL_TRUE.has(text)) {
    return true
  }
  if (BOOL_FALSE.has(text)) {
    return false
  }
  return undefined
}

export function parseInteger(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) {
    return undefined
  }
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : undefined
}

export function parseFloatStrict(text: string): number | undefined {
  // Number('') is 0 and Number('0x10') is 16: accept only plain decimal notation.
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
    return undefined
  }
  const n = Number(text)
  return Number.isFinite(n) ? n : undefined
}

const DURATION_UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
}

/**
 * Go time.ParseDuration forms (`3s`, `24h0m0s`, `1m30s`, `500ms`, `1.5h`) -> milliseconds.
 * Go reads a bare number as nanoseconds, a silent trap (`30` would be 30ns); we reject it,
 * except `0`, which is unambiguous. Negative durations make no sense for any setting.
 */
export function parseDuration(text: string): number | undefined {
  if (text === '0') {
    return 0
  }
  const re = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y
  let pos = text.startsWith('+') ? 1 : 0
  if (pos === text.length) {
    return undefined
  }
  let total = 0
  while (pos < text.length) {
    re.lastIndex = pos
    const m = re.exec(text)
    if (!m) {
      return undefined
    }
    total += Number(m[1]) * DURATION_UNIT_MS[m[2]]
    pos = re.lastIndex
  }
  // Round away binary noise such as 0.1h -> 360000.00000000006.
  return Math.round(total * 1e6) / 1e6
}

/** Inverse of parseDuration for display, in Go's Duration.String style (`24h0m0s`, `3s`, `500ms`). */
export function formatDuration(ms: number): string {
  if (ms === 0) {
    return '0s'
  }
  if (ms < 1000) {
    return `${ms}ms`
  }
  const h = Math.floor(ms / 3_600_000)
  const m = Math.floor((ms % 3_600_000) / 60_000)
  const s = (ms % 60_000) / 1000
  if (h > 0) {
    return `${h}h${m}m${s}s`
  }
  if (m > 0) {
    return `${m}m${s}s`
  }
  return `${s}s`
}

const SIZE_UNIT: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }

/** `1GB`, `500MB`, `64KB`, `64K`, `4096`, `4096B` -> bytes (1024-based, unit case-insensitive). */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+)\s*([KMG]?)B?$/i.exec(text.trim())
  if (!m) {
    return undefined
  }
  const n = Number(m[1]) * SIZE_UNIT[m[2].toUpperCase()]
  return Number.isSafeInteger(n) ? n : undefined
}

/** Largest exact unit for display: 1073741824 -> `1GB`, 65536 -> `64KB`, 1500 -> `1500B`. */
export function formatSize(bytes: number): string {
  for (const [unit, factor] of [['GB', 1024 ** 3], ['MB', 1024 ** 2], ['KB', 1024]] as const) {
    if (bytes !== 0 && bytes % factor === 0) {
      return `${bytes / factor}${unit}`
    }
  }
  return `${bytes}B`
}

/** List text from the environment: the original split on whitespace, users expect commas; accept both. */
export function splitEnvList(text: string): string[] {
  return text.split(/[\s,]+/).filter((s) => s !== '')
}

/** List text from the command line or a TOML string: comma-separated, items trimmed. */
export function splitCommaList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}
