import { readFileSync } from 'node:fs'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { README_END, README_START, renderEnvExample, renderFlagTable, replaceFlagSection } from './docs.js'
import { SCHEMA, type SchemaConfig } from './schema.js'
import type { AppConfig } from './types.js'

const root = new URL('../../', import.meta.url)
const envNames = SCHEMA.flatMap((d) => [...d.env])

describe('generated documentation is committed in sync with the schema', () => {
  it('.env.example equals the generated text (run npm run docs:config)', () => {
    expect(readFileSync(new URL('.env.example', root), 'utf8')).toBe(renderEnvExample())
  })

  it('README flag table equals the generated text (run npm run docs:config)', () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8')
    expect(replaceFlagSection(readme)).toBe(readme)
  })
})

describe('.env.example', () => {
  const text = renderEnvExample()
  it('assigns every DB_ADAPTER_* variable once, with its default', () => {
    const assigned = text.split('\n').filter((l) => /^[A-Za-z_]+=/.test(l)).map((l) => l.split('=')[0])
    expect(assigned).toEqual(envNames.filter((n) => n.startsWith('DB_ADAPTER_')))
    expect(text).toContain('\nDB_ADAPTER_PORT=6041\n')
    expect(text).toContain('\nDB_ADAPTER_LOG_ROTATION_SIZE=1GB\n')
    expect(text).toContain('\nDB_ADAPTER_TSDBPROTO_TELNET_PORTS=6046,6047,6048,6049\n')
    expect(text).toContain('\nDB_ADAPTER_CORS_ALLOW_Credentials=false\n')
  })
  it('mentions the DB_MONITOR_* alternatives in comments only', () => {
    expect(text).toContain('# also read from DB_MONITOR_INCGROUP (DB_ADAPTER_MONITOR_INCGROUP wins)')
    expect(text).not.toMatch(/^DB_MONITOR_/m)
  })
})

describe('README flag table', () => {
  it('has one row per flag plus help and version, with TOML locations', () => {
    const table = renderFlagTable()
    const rows = table.trim().split('\n').slice(2)
    expect(rows).toHaveLength(SCHEMA.length + 2)
    expect(table).toContain('| -P, -p, --port | int | `6041` | `DB_ADAPTER_PORT` | `port` | HTTP port |')
    expect(table).toContain('| `[tsdbproto_telnet]` `ports` |')
  })
  it('replaces only the marked region', () => {
    const before = `# T\n\n${README_START}\nold\n${README_END}\ntail\n`
    expect(replaceFlagSection(before, 'NEW\n')).toBe(`# T\n\n${README_START}\nNEW\n${README_END}\ntail\n`)
    expect(() => replaceFlagSection('no markers')).toThrow('README has no')
  })
})

describe('schema', () => {
  it('derives exactly AppConfig (also enforced at compile time in schema.ts)', () => {
    expectTypeOf<SchemaConfig>().toMatchTypeOf<AppConfig>()
    expectTypeOf<AppConfig>().toMatchTypeOf<SchemaConfig>()
  })
  it('flag names and env names are unique', () => {
    expect(new Set(SCHEMA.map((d) => d.name)).size).toBe(SCHEMA.length)
    expect(new Set(envNames).size).toBe(envNames.length)
  })
  it('every env name is DB_ADAPTER_- or DB_MONITOR_-prefixed', () => {
    for (const name of envNames) {
      expect(name).toMatch(/^DB_(ADAPTER|MONITOR)_/)
    }
  })
})
