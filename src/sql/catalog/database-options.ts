import type { Precision } from '../../storage/td-types.js'
import { durationTicks } from '../time.js'

/** Defaults shown by ins_databases / SHOW CREATE DATABASE when an option is not given. */
export const DEFAULT_DB_OPTIONS: Readonly<Record<string, string | number>> = {
  vgroups: 2,
  replica: 1,
  strict: 'off',
  duration: '10d',
  keep: '3650d,3650d,3650d',
  buffer: 256,
  pagesize: 4,
  pages: 256,
  minrows: 100,
  maxrows: 4096,
  comp: 2,
  precision: 'ms',
  single_stable: 0,
  cachemodel: 'none',
  cachesize: 1,
  wal_level: 1,
  wal_fsync_period: 3000,
  wal_retention_period: 3600,
  wal_retention_size: 0,
  stt_trigger: 1,
  table_prefix: 0,
  table_suffix: 0,
  tsdb_pagesize: 4,
  keep_time_offset: 0,
}

export const PRECISIONS: readonly Precision[] = ['ms', 'us', 'ns']

export function optionValue(v: unknown): string | number {
  if (typeof v === 'number' || typeof v === 'string') {
    return v
  }
  if (typeof v === 'bigint') {
    return Number(v)
  }
  if (Array.isArray(v)) {
    return v.map(String).join(',')
  }
  return String(v)
}

/**
 * DURATION option (e.g. `10d`, `1440m`, `24h`; a bare number is days, as TDengine reads it) as ticks
 * of the database precision, for the hypertable chunk interval; undefined when unparsable.
 */
export function chunkIntervalTicks(duration: string | number | undefined, precision: Precision): bigint | undefined {
  const m = /^\s*(\d+)\s*([mhd]?)\s*$/i.exec(String(duration ?? ''))
  if (!m) {
    return undefined
  }
  const ticks = durationTicks(Number(m[1]), m[2] || 'd', precision)
  return ticks > 0n ? ticks : undefined
}
