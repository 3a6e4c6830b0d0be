/**
 * Command-line parsing in pflag's style: `--name=value`, `--name value`, `-P 6041`, `-P=6041`,
 * bool flags as `--debug` or `--debug=false` (a bool never consumes the next argument).
 * Returns the raw text of every occurrence; typing and validation happen in load.ts, the same
 * way for every source.
 */
import { ConfigError } from './errors.js'
import { SCHEMA, type FlagDef } from './schema.js'

export type ArgvResult =
  | { kind: 'help' }
  | { kind: 'version' }
  /** flag name -> the text of each occurrence, in command-line order */
  | { kind: 'flags'; values: Map<string, string[]> }

const BY_NAME = new Map<string, FlagDef>(SCHEMA.map((d) => [d.name, d]))
const BY_SHORT = new Map<string, FlagDef>(
  SCHEMA.flatMap((d: FlagDef) => (d.short ?? []).map((s) => [s, d] as const)),
)

function suggestion(name: string): string {
  const lower = name.toLowerCase()
  const near = SCHEMA.find((d) => d.name.toLowerCase() === lower)
  return near ? ` (did you mean --${near.name}?)` : ''
}

export function parseArgv(argv: readonly string[]): ArgvResult {
  const values = new Map<string, string[]>()
  let previousBool: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') {
      // npm and tsx wrappers sometimes pass the separator through; it carries no meaning here.
      continue
    }
    let def: FlagDef | undefined
    let inline: string | undefined
    let shown: string
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=')
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq)
      inline = eq < 0 ? undefined : arg.slice(eq + 1)
      if (name === 'help' && inline === undefined) {
        return { kind: 'help' }
      }
      if (name === 'version' && inline === undefined) {
        return { kind: 'version' }
      }
      def = BY_NAME.get(name)
      shown = `--${name}`
      if (!def) {
        throw new ConfigError(`unknown flag ${shown}${suggestion(name)}; see --help`)
      }
    } else if (arg.startsWith('-') && arg.length > 1) {
      const eq = arg.indexOf('=')
      const name = eq < 0 ? arg.slice(1) : arg.slice(1, eq)
      inline = eq < 0 ? undefined : arg.slice(eq + 1)
      if (name === 'h' && inline === undefined) {
        return { kind: 'help' }
      }
      def = BY_SHORT.get(name)
      shown = `-${name}`
      if (!def) {
        throw new ConfigError(`unknown flag ${shown}${suggestion(name)}; see --help`)
      }
    } else {
      const hint = previousBool
        ? ` (a bool flag takes its value attached: --${previousBool}=${arg})`
        : ''
      throw new ConfigError(`unexpected argument "${arg}"${hint}; flags look like --name=value`)
    }

    let value: string
    if (inline !== undefined) {
      value = inline
    } else if (def.type === 'bool') {
      value = 'true'
    } else if (i + 1 < argv.length) {
      // Like pflag, take the next argument even when it starts with '-' (`--restfulRowLimit -1`).
      value = argv[++i]
    } else {
      throw new ConfigError(`flag ${shown} needs a value (${def.type})`)
    }
    previousBool = def.type === 'bool' && inline === undefined ? def.name : undefined
    const list = values.get(def.name) ?? []
    list.push(value)
    values.set(def.name, list)
  }
  return { kind: 'flags', values }
}
