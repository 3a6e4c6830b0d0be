/**
 * Loads the configuration from its sources, highest precedence first:
 * command line > environment > TOML file > `.env` in the working directory > schema defaults.
 *
 * Every source is reduced to raw text per flag (a "setting"), the highest one present wins, and
 * one generic path types and validates it. Only the DB_ADAPTER_-style names listed in the schema
 * are read from the environment, so stray variables such as PORT or DEBUG change nothing
 * (the original's viper AutomaticEnv let them, which the reference flags as a bug).
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse as parseDotenv } from 'dotenv'
import { parse as parseToml, TomlError } from 'smol-toml'
import { parseArgv } from './argv.js'
import { renderHelp } from './docs.js'
import { ConfigError } from './errors.js'
import { DEFAULT_CONFIG_PATH, LIST_TYPES, SCHEMA, tomlLocation, type FlagDef, type FlagType } from './schema.js'
import type { AppConfig } from './types.js'
import {
  parseBool,
  parseDuration,
  parseFloatStrict,
  parseInteger,
  parseSize,
  splitCommaList,
  splitEnvList,
} from './values.js'

export { ConfigError } from './errors.js'

export type LoadResult =
  /** `given`: the flags set by the command line, environment, TOML or .env (not left at their default) */
  | { kind: 'run'; config: AppConfig; warnings: string[]; given: ReadonlySet<string> }
  | { kind: 'help'; text: string }
  | { kind: 'version'; text: string }

export interface LoadOptions {
  /** directory of `.env` and base of a relative `-c` path; default process.cwd() */
  cwd?: string
  /** config file read when `-c` is not given; default /etc/db/adapter.toml (tests point it elsewhere) */
  defaultConfigPath?: string
}

/** Raw value of one flag from one source; lists arrive already split into items. */
interface Setting {
  raw: string | string[]
  /** where it came from, for error messages: `env DB_ADAPTER_PORT`, `command line`, ... */
  where: string
}
type Layer = Map<string, Setting>

const DEFS: readonly FlagDef[] = SCHEMA

export function loadConfig(
  argv: string[],
  env: Record<string, string | undefined>,
  opts: LoadOptions = {},
): LoadResult {
  const parsed = parseArgv(argv)
  if (parsed.kind === 'help') {
    return { kind: 'help', text: renderHelp(packageVersion()) }
  }
  if (parsed.kind === 'version') {
    return { kind: 'version', text: `db-adapter v${packageVersion()}` }
  }
  const cwd = opts.cwd ?? process.cwd()
  const warnings: string[] = []

  const cli = cliLayer(parsed.values)
  const explicitFile = cli.get('config')?.raw as string | undefined
  const file = explicitFile ?? opts.defaultConfigPath ?? DEFAULT_CONFIG_PATH
  const filePath = path.resolve(cwd, file)
  let toml: Layer = new Map()
  let configRead = ''
  if (existsSync(filePath)) {
    toml = tomlLayer(filePath, warnings)
    configRead = filePath
  } else if (explicitFile !== undefined) {
    throw new ConfigError(`config file "${filePath}" given by -c/--config does not exist`)
  } else {
    warnings.push(`config file ${filePath} not found; using command line, environment, .env and defaults`)
  }

  const dotenvPath = path.join(cwd, '.env')
  const dotenv = existsSync(dotenvPath)
    ? envLayer(parseDotenv(readText(dotenvPath, '.env file')), (name) => `${name} in ${dotenvPath}`, warnings)
    : new Map<string, Setting>()
  const environment = envLayer(env, (name) => `env ${name}`, warnings)

  const given = new Set<string>()
  const config = resolve([cli, environment, toml, dotenv], given)
  config.config = configRead
  return { kind: 'run', config, warnings, given }
}

/** The configuration with every flag at its schema default (no file, env or command line). */
export function defaultConfig(): AppConfig {
  const config = resolve([])
  config.config = ''
  return config
}

// ---- sources -----------------------------------------------------------------------------------

function readText(file: string, what: string): string {
  try {
    if (!statSync(file).isFile()) {
      throw new ConfigError(`${what} "${file}" is not a regular file`)
    }
    return readFileSync(file, 'utf8')
  } catch (err) {
    if (err instanceof ConfigError) {
      throw err
    }
    throw new ConfigError(`cannot read ${what} "${file}": ${(err as Error).message}`)
  }
}

function cliLayer(values: Map<string, string[]>): Layer {
  const layer: Layer = new Map()
  for (const [name, occurrences] of values) {
    const def = DEFS.find((d) => d.name === name) as FlagDef
    // Lists: repeated flags append and each may hold commas; scalars: the last one wins (pflag).
    const raw = LIST_TYPES.has(def.type) ? occurrences.flatMap(splitCommaList) : occurrences[occurrences.length - 1]
    layer.set(name, { raw, where: 'command line' })
  }
  return layer
}

const KNOWN_ENV = new Set(DEFS.flatMap((d) => d.env))
const KNOWN_ENV_BY_LOWER = new Map([...KNOWN_ENV].map((n) => [n.toLowerCase(), n]))

/** The process environment or a parsed `.env`; an empty value counts as unset (as in viper). */
function envLayer(source: Record<string, string | undefined>, where: (name: string) => string, warnings: string[]): Layer {
  // A misspelt variable would otherwise be ignored silently; the CORS names' mixed case makes this likely.
  for (const name of Object.keys(source)) {
    if (/^DB_(ADAPTER|MONITOR)_/i.test(name) && !KNOWN_ENV.has(name)) {
      const near = KNOWN_ENV_BY_LOWER.get(name.toLowerCase())
      warnings.push(`unknown variable ${where(name)} is ignored${near ? ` (did you mean ${near}?)` : ''}`)
    }
  }
  const layer: Layer = new Map()
  for (const def of DEFS) {
    const present = def.env.filter((name) => (source[name] ?? '') !== '')
    if (present.length === 0) {
      continue
    }
    const [name, ...shadowed] = present
    for (const other of shadowed) {
      if (source[other] !== source[name]) {
        warnings.push(`${other} is ignored because ${name} is also set (${where(name)})`)
      }
    }
    const text = source[name] as string
    layer.set(def.name, { raw: LIST_TYPES.has(def.type) ? splitEnvList(text) : text, where: where(name) })
  }
  return layer
}

const BY_TOML_KEY = new Map<string, FlagDef>(
  DEFS.filter((d) => !d.cliOnly).map((d) => [d.name.toLowerCase(), d]),
)

function tomlLayer(filePath: string, warnings: string[]): Layer {
  const text = readText(filePath, 'config file')
  let doc: Record<string, unknown>
  try {
    doc = parseToml(text)
  } catch (err) {
    if (err instanceof TomlError) {
      const reason = err.message.split('\n')[0].replace(/^Invalid TOML document: /, '')
      throw new ConfigError(`invalid TOML in ${filePath} at line ${err.line}, column ${err.column}: ${reason}`)
    }
    throw err
  }

  const layer: Layer = new Map()
  const take = (key: string, value: unknown, label: string): void => {
    // Keys are case-insensitive, as viper lower-cases them (`SMLAutoCreateDB` works).
    const def = BY_TOML_KEY.get(key.toLowerCase())
    if (!def) {
      warnings.push(`unknown key ${label} in ${filePath} is ignored`)
      return
    }
    layer.set(def.name, { raw: tomlRaw(value, def, label, filePath), where: `${label} in ${filePath}` })
  }
  for (const [key, value] of Object.entries(doc)) {
    if (isTable(value)) {
      for (const [sub, subValue] of Object.entries(value)) {
        take(`${key}.${sub}`, subValue, `[${key}] ${sub}`)
      }
    } else {
      take(key, value, key)
    }
  }
  return layer
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
}

/** TOML scalars become their text so that every source shares one parser; arrays become items. */
function tomlRaw(value: unknown, def: FlagDef, label: string, filePath: string): string | string[] {
  const text = (v: unknown): string => {
    if (isTable(v) || Array.isArray(v)) {
      throw new ConfigError(`invalid value for --${def.name} (${label} in ${filePath}): must be a ${def.type}, not a table or nested array`)
    }
    return v instanceof Date ? v.toISOString() : String(v)
  }
  if (Array.isArray(value)) {
    return value.map(text)
  }
  const scalar = text(value)
  return LIST_TYPES.has(def.type) ? splitEnvList(scalar) : scalar
}

// ---- typing and validation ---------------------------------------------------------------------

const TYPE_RULE: Record<FlagType, string> = {
  bool: 'must be a boolean (true, false, 1, 0, t, f)',
  int: 'must be an integer',
  uint: 'must be an integer >= 0',
  float: 'must be a number',
  string: '',
  duration: 'must be a duration with a unit, like 500ms, 3s, 1m30s or 24h0m0s',
  size: 'must be a size like 64KB, 500MB or 1GB',
  strings: '',
  ints: 'must be an integer',
  stringArray: '',
}

type Scalar = boolean | number | string

function parseScalar(type: FlagType, text: string): Scalar | undefined {
  switch (type) {
    case 'bool':
      return parseBool(text.trim())
    case 'int':
    case 'ints':
      return parseInteger(text.trim())
    case 'uint': {
      const n = parseInteger(text.trim())
      return n !== undefined && n >= 0 ? n : undefined
    }
    case 'float':
      return parseFloatStrict(text.trim())
    case 'duration':
      return parseDuration(text.trim())
    case 'size':
      return parseSize(text)
    default:
      return text
  }
}

function invalid(def: FlagDef, shown: string, where: string, rule: string): ConfigError {
  return new ConfigError(`invalid value ${shown} for --${def.name} (${where}): ${rule}`)
}

function parseItem(def: FlagDef, text: string, where: string): Scalar {
  let value = parseScalar(def.type, text)
  if (value === undefined) {
    throw invalid(def, JSON.stringify(text), where, TYPE_RULE[def.type])
  }
  if (def.choices) {
    const lower = String(value).toLowerCase()
    if (!def.choices.includes(lower)) {
      throw invalid(def, JSON.stringify(text), where, `must be one of ${def.choices.join(', ')}`)
    }
    value = lower
  }
  if (def.rule && typeof value !== 'boolean' && !def.rule.test(value)) {
    throw invalid(def, JSON.stringify(text), where, def.rule.text)
  }
  return value
}

function parseSetting(def: FlagDef, setting: Setting): Scalar | Scalar[] {
  if (LIST_TYPES.has(def.type)) {
    const items = Array.isArray(setting.raw) ? setting.raw : [setting.raw]
    return items.map((item) => parseItem(def, item, setting.where))
  }
  if (Array.isArray(setting.raw)) {
    throw invalid(def, JSON.stringify(setting.raw), setting.where, `must be a single ${def.type}, not a list`)
  }
  return parseItem(def, setting.raw, setting.where)
}

function defaultSetting(def: FlagDef): Setting {
  const raw = Array.isArray(def.default) ? def.default.map(String) : String(def.default)
  return { raw, where: 'default' }
}

/** Picks the highest layer that sets each flag (noted in `given`), parses it and nests `section.key` flags. */
function resolve(layers: Layer[], given?: Set<string>): AppConfig {
  const out: Record<string, unknown> = {}
  const where = new Map<string, string>()
  for (const def of DEFS) {
    const found = layers.map((l) => l.get(def.name)).find((s) => s !== undefined)
    if (found !== undefined) {
      given?.add(def.name)
    }
    const setting = found ?? defaultSetting(def)
    where.set(def.name, setting.where)
    const value = parseSetting(def, setting)
    const { section, key } = tomlLocation(def.name)
    if (section === '') {
      out[key] = value
    } else {
      const table = (out[section] ??= {}) as Record<string, unknown>
      table[key] = value
    }
  }
  const config = out as unknown as AppConfig
  checkTelnetPairs(config, where)
  return config
}

function checkTelnetPairs(config: AppConfig, where: Map<string, string>): void {
  const { ports, dbs } = config.tsdbproto_telnet
  if (ports.length !== dbs.length) {
    throw new ConfigError(
      `invalid value for --tsdbproto_telnet.ports [${ports.join(',')}] (${where.get('tsdbproto_telnet.ports')}) ` +
        `and --tsdbproto_telnet.dbs [${dbs.join(',')}] (${where.get('tsdbproto_telnet.dbs')}): ` +
        `ports and dbs pair by position and must have the same length (${ports.length} ports, ${dbs.length} dbs)`,
    )
  }
}

// ---- version -----------------------------------------------------------------------------------

let cachedVersion: string | undefined

/** Version from the project's package.json, found upwards from this file (works from src/ and dist/). */
export function packageVersion(): string {
  if (cachedVersion === undefined) {
    let dir = path.dirname(fileURLToPath(import.meta.url))
    for (;;) {
      const candidate = path.join(dir, 'package.json')
      if (existsSync(candidate)) {
        const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string }
        if (pkg.name === 'db-adapter' && pkg.version) {
          cachedVersion = pkg.version
          break
        }
      }
      const parent = path.dirname(dir)
      if (parent === dir) {
        cachedVersion = '0.0.0'
        break
      }
      dir = parent
    }
  }
  return cachedVersion
}
