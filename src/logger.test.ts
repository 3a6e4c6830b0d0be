import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { defaultConfig } from './config/index.js'
import type { AppConfig } from './config/types.js'
import { createLogger, logFileName, pinoLevel, rotationInterval } from './logger.js'

describe('pinoLevel', () => {
  it.each([
    ['panic', 'fatal'],
    ['fatal', 'fatal'],
    ['error', 'error'],
    ['warn', 'warn'],
    ['warning', 'warn'],
    ['info', 'info'],
    ['debug', 'debug'],
    ['trace', 'trace'],
  ] as const)('%s -> %s', (from, to) => {
    expect(pinoLevel(from)).toBe(to)
  })
})

describe('logFileName', () => {
  const DAY = 86_400_000
  // 2023-06-02T13:47:10.500Z
  const t = Date.UTC(2023, 5, 2, 13, 47, 10, 500)

  it.each([
    // UTC, 24 h: midnight of the day
    [0, DAY, 0, 'db-adapter_2023_06_02_00_00.log'],
    // UTC+8 (offset -480): local 21:47, still June 2
    [-480, DAY, 0, 'db-adapter_2023_06_02_00_00.log'],
    // UTC+11 (offset -660): local 00:47 on June 3
    [-660, DAY, 0, 'db-adapter_2023_06_03_00_00.log'],
    // UTC-5 (offset 300): local 08:47, 1 h periods
    [300, 3_600_000, 0, 'db-adapter_2023_06_02_08_00.log'],
    // 15 min periods: 13:45
    [0, 900_000, 0, 'db-adapter_2023_06_02_13_45.log'],
    // 90 min periods counted from the epoch: 13:30 (13.5 h = 9 * 1.5 h)
    [0, 5_400_000, 0, 'db-adapter_2023_06_02_13_30.log'],
    // size generations
    [0, DAY, 2, 'db-adapter_2023_06_02_00_00.2.log'],
  ])('offset %i, period %i, generation %i -> %s', (offset, period, gen, expected) => {
    expect(logFileName('db-adapter', t, offset, period, gen)).toBe(expected)
  })
})

describe('rotationInterval', () => {
  it.each([
    [86_400_000, '1d'],
    [2 * 86_400_000, '2d'],
    [3_600_000, '1h'],
    [6 * 3_600_000, '6h'],
    [5 * 3_600_000, '1h'],
    [90 * 60_000, '30m'],
    [60_000, '1m'],
    [45_000, '15s'],
    [12_000, '12s'],
    [7_000, '1s'],
    [1_500, '1s'],
    [0, undefined],
  ])('%i ms -> %s', (ms, expected) => {
    expect(rotationInterval(ms)).toBe(expected)
  })
})

function memoryStdout(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString('utf8'))
      cb()
    },
  })
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  }
}

function configWith(logPath: string, log: Partial<AppConfig['log']> = {}, logLevel: AppConfig['logLevel'] = 'info'): AppConfig {
  const config = defaultConfig()
  config.logLevel = logLevel
  config.log = { ...config.log, path: logPath, ...log }
  return config
}

function readLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

describe('createLogger', () => {
  const handles: Array<{ flush(): Promise<void> }> = []
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.flush()))
  })

  it('writes JSON lines to stdout and to a file named for the current period', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logger-'))
    const out = memoryStdout()
    const handle = createLogger(configWith(dir), { stdout: out.stream })
    handles.push(handle)
    handle.logger.info({ a: 1 }, 'hello')
    handle.logger.debug('hidden at info')
    await handle.flush()

    expect(out.lines().map((l) => l.msg)).toEqual(['hello'])
    const expectedName = logFileName('db-adapter', Date.now(), new Date().getTimezoneOffset(), 86_400_000)
    const files = readdirSync(dir).filter((f) => f.endsWith('.log'))
    expect(files).toEqual([expectedName])
    const fileLines = readLines(join(dir, expectedName))
    expect(fileLines).toHaveLength(1)
    expect(fileLines[0]).toMatchObject({ level: 'info', msg: 'hello', a: 1, pid: process.pid })
    expect(out.lines()[0].level).toBe('info')
    expect(handle.sqlLogger).toBeUndefined()
  })

  it('applies logLevel, mapping warning to warn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logger-'))
    const out = memoryStdout()
    const handle = createLogger(configWith(dir, {}, 'warning'), { stdout: out.stream })
    handles.push(handle)
    handle.logger.info('no')
    handle.logger.warn('yes')
    await handle.flush()
    expect(out.lines().map((l) => l.msg)).toEqual(['yes'])
  })

  it('keeps a separate SQL log when enableRecordHttpSql is on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logger-'))
    const out = memoryStdout()
    const handle = createLogger(configWith(dir, { enableRecordHttpSql: true }), { stdout: out.stream })
    handles.push(handle)
    expect(handle.sqlLogger).toBeDefined()
    handle.sqlLogger?.info({ reqId: 'r1', sql: 'select 1' }, 'sql')
    await handle.flush()
    const sqlFiles = readdirSync(dir).filter((f) => f.startsWith('httpsql_'))
    expect(sqlFiles).toHaveLength(1)
    expect(sqlFiles[0]).toMatch(/^httpsql_\d{4}_\d{2}_\d{2}_\d{2}_\d{2}\.log$/)
    expect(readLines(join(dir, sqlFiles[0]))[0]).toMatchObject({ reqId: 'r1', sql: 'select 1' })
    // SQL lines stay out of stdout
    expect(out.lines()).toHaveLength(0)
  })

  it('log.enableFile false: stdout only, no file (not even the directory); the SQL log goes to stdout, marked', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'logger-')), 'log')
    const out = memoryStdout()
    const handle = createLogger(configWith(dir, { enableFile: false, enableRecordHttpSql: true }), { stdout: out.stream })
    handles.push(handle)
    handle.logger.warn({ a: 1 }, 'hello')
    handle.sqlLogger?.info({ reqId: 'r1', sql: 'select 1' }, 'sql')
    await handle.flush()
    expect(existsSync(dir)).toBe(false)
    expect(out.lines()).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'hello', a: 1 }),
      expect.objectContaining({ level: 'info', log: 'httpsql', sql: 'select 1' }),
    ])
  })

  it('rotates by size and keeps at most rotationCount files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logger-'))
    const out = memoryStdout()
    const handle = createLogger(configWith(dir, { rotationSize: 300, rotationCount: 3 }), { stdout: out.stream })
    handles.push(handle)
    // each line is ~120 bytes, so ~3 lines per file and 30 lines make ~10 files before pruning
    for (let i = 0; i < 30; i++) {
      handle.logger.info({ i, pad: 'x'.repeat(40) }, 'line')
      await new Promise((r) => setTimeout(r, 2))
    }
    await handle.flush()
    const files = readdirSync(dir).filter((f) => f.endsWith('.log'))
    expect(files.length).toBeGreaterThan(1)
    expect(files.length).toBeLessThanOrEqual(3)
    for (const f of files) {
      expect(f).toMatch(/^db-adapter_\d{4}_\d{2}_\d{2}_\d{2}_\d{2}(\.\d+)?\.log$/)
    }
    // the newest line survived pruning
    const all = files.flatMap((f) => readLines(join(dir, f)))
    expect(all.some((l) => l.i === 29)).toBe(true)
    expect(all.some((l) => l.i === 0)).toBe(false)
  })

  it('rotates by time: a write after the period boundary goes to a new file', async () => {
    // Only Date is faked: the library's timers stay real, so its boundary timer really fires.
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(new Date(2030, 0, 1, 12, 0, 59, 500))
      const dir = mkdtempSync(join(tmpdir(), 'logger-'))
      const out = memoryStdout()
      const handle = createLogger(configWith(dir, { rotationTime: 60_000, rotationCount: 10 }), { stdout: out.stream })
      handles.push(handle)
      handle.logger.info('first period')
      await new Promise((r) => setTimeout(r, 100))
      // the clock crosses 12:01:00; the rotation timer was armed for 500 ms (real) from the start
      vi.setSystemTime(new Date(2030, 0, 1, 12, 1, 0, 100))
      await new Promise((r) => setTimeout(r, 900))
      handle.logger.info('second period')
      await handle.flush()
      const files = readdirSync(dir).filter((f) => f.endsWith('.log')).sort()
      expect(files).toEqual(['db-adapter_2030_01_01_12_00.log', 'db-adapter_2030_01_01_12_01.log'])
      expect(files.map((f) => readLines(join(dir, f)).map((l) => l.msg))).toEqual([['first period'], ['second period']])
    } finally {
      vi.useRealTimers()
    }
  })

  it('an unwritable log.path is reported once on stdout and logging goes on to stdout', async () => {
    const base = mkdtempSync(join(tmpdir(), 'logger-'))
    // a path below a regular file can never be created, even by root
    writeFileSync(join(base, 'not-a-dir'), 'x')
    const out = memoryStdout()
    const handle = createLogger(configWith(join(base, 'not-a-dir', 'logs'), { enableRecordHttpSql: true }), {
      stdout: out.stream,
    })
    handles.push(handle)
    handle.logger.info('still here')
    handle.logger.info('and here')
    handle.sqlLogger?.info('dropped sql line')
    await handle.flush()
    const lines = out.lines()
    const reports = lines.filter((l) => String(l.msg).includes('cannot be written under log.path'))
    // one report for the main log and one for the SQL log, each once
    expect(reports.map((r) => r.msg)).toEqual([
      expect.stringMatching(/^log files cannot be written under log\.path .*not-a-dir\/logs: .*ENOTDIR/),
      expect.stringMatching(/^the HTTP SQL log cannot be written/),
    ])
    expect(lines.filter((l) => l.msg === 'still here' || l.msg === 'and here')).toHaveLength(2)
  })
})
