import { TD, TdError } from '../td-error.js'

/**
 * ALTER DATABASE's options (TDengine 3: the database page's alter_database_option list, plus the
 * later KEEP_TIME_OFFSET, S3_* and COMPACT_* ones), with the ranges TDengine checks. The others
 * (PRECISION, VGROUPS, PAGESIZE ...) are fixed at creation: the parser refuses them as TDengine's
 * grammar does (9728). REPLICA: this service has one dnode, so only REPLICA 1 is accepted.
 */
export const ALTERABLE_DB_OPTIONS: ReadonlySet<string> = new Set([
  'cachemodel',
  'cachesize',
  'buffer',
  'pages',
  'replica',
  'stt_trigger',
  'wal_level',
  'wal_fsync_period',
  'keep',
  'wal_retention_period',
  'wal_retention_size',
  'minrows',
  'keep_time_offset',
  's3_keeplocal',
  's3_compact',
  'compact_interval',
  'compact_time_range',
  'compact_time_offset',
])

/** inclusive integer ranges of the numeric options (TDengine's limits) */
const RANGES: Readonly<Record<string, [number, number]>> = {
  cachesize: [1, 65536],
  buffer: [3, 16384],
  pages: [64, 2147483647],
  stt_trigger: [1, 16],
  wal_level: [1, 2],
  wal_fsync_period: [0, 180000],
  wal_retention_period: [-1, 2147483647],
  wal_retention_size: [-1, 2147483647],
  minrows: [10, 1000000],
  keep_time_offset: [0, 23],
  s3_compact: [0, 1],
}

const CACHEMODELS = new Set(['none', 'last_row', 'last_value', 'both'])

/** KEEP: one to three durations (m, h, d; bare numbers are days) of 1 to 365000 days, not decreasing */
function validKeep(text: string): boolean {
  const parts = text.split(',')
  if (parts.length > 3) {
    return false
  }
  let last = 0
  for (const part of parts) {
    const m = /^\s*(\d+)\s*([mhd]?)\s*$/i.exec(part)
    if (!m) {
      return false
    }
    const n = Number(m[1])
    const unit = m[2].toLowerCase()
    const days = unit === 'm' ? n / 1440 : unit === 'h' ? n / 24 : n
    if (days < 1 || days > 365000 || days < last) {
      return false
    }
    last = days
  }
  return true
}

function invalid(name: string, v: string | number): TdError {
  return new TdError(TD.PAR_INVALID_DB_OPTION, `Invalid option ${name}: ${String(v)}`)
}

/** Checks ALTER DATABASE values: 9753 out of range, 820 a replica count above 1. */
export function checkAlterOptions(options: Record<string, string | number>): void {
  for (const [name, v] of Object.entries(options)) {
    if (name === 'cachemodel' && !CACHEMODELS.has(String(v))) {
      throw invalid(name, v)
    }
    if (name === 'replica') {
      if (v !== 1 && v !== 3) {
        throw invalid(name, v)
      }
      if (v === 3) {
        throw new TdError(TD.MND_NO_ENOUGH_DNODES, 'Out of dnodes')
      }
    }
    if (name === 'keep' && !validKeep(String(v))) {
      throw invalid(name, v)
    }
    const range = RANGES[name]
    if (range !== undefined && (typeof v !== 'number' || v < range[0] || v > range[1])) {
      throw invalid(name, v)
    }
  }
}
