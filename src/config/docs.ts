/**
 * Text generated from the schema: `--help`, `.env.example` and the README flag table, so the
 * documentation cannot drift from what the loader accepts (tests compare the committed files).
 */
import { SCHEMA, tomlLocation, type FlagDef } from './schema.js'

const DEFS: readonly FlagDef[] = SCHEMA

export const README_START = '<!-- flags:start -->'
export const README_END = '<!-- flags:end -->'

/** Default as a user would type it: lists comma-joined, durations and sizes in spec form. */
export function defaultText(def: FlagDef): string {
  return Array.isArray(def.default) ? def.default.join(',') : String(def.default)
}

function flagLabel(def: FlagDef): string {
  const shorts = (def.short ?? []).map((s) => `-${s}, `).join('')
  return `${shorts}--${def.name}`
}

function typeLabel(def: FlagDef): string {
  return def.choices ? `${def.type} (${def.choices.join('|')})` : def.type
}

export function renderHelp(version: string): string {
  const lines = [
    `Usage of db-adapter v${version}:`,
    '  db-adapter [flags]',
    '',
    'Precedence: command line > environment > TOML file (-c) > .env in the working directory > default.',
    'Forms: --name=value, --name value, -P 6041, -P=6041; bool flags: --debug, --debug=false.',
    'Lists: repeat the flag or separate with commas; in the environment commas or spaces.',
    '',
  ]
  for (const def of DEFS) {
    const env = def.env.length > 0 ? `; env ${def.env.join(' or ')}` : ''
    const shown =
      def.type === 'string' ? JSON.stringify(def.default) : Array.isArray(def.default) ? `[${defaultText(def)}]` : defaultText(def)
    lines.push(`  ${flagLabel(def)} ${typeLabel(def)}`)
    lines.push(`        ${def.description} (default ${shown}${env})`)
  }
  lines.push('  -h, --help')
  lines.push('        print this help and exit')
  lines.push('  --version')
  lines.push('        print the version and exit')
  return lines.join('\n') + '\n'
}

export function renderEnvExample(): string {
  const lines = [
    '# Every DB_ADAPTER_* variable with its default. Generated from src/config/schema.ts by',
    '# `npm run docs:config`; do not edit by hand. Lists: commas or spaces.',
    '# Precedence: command line > environment > TOML file > this .env file > default.',
  ]
  for (const def of DEFS) {
    if (def.env.length === 0) {
      continue
    }
    const [primary, ...alternatives] = def.env
    lines.push('')
    lines.push(`# --${def.name} (${typeLabel(def)}): ${def.description}`)
    if (alternatives.length > 0) {
      lines.push(`# also read from ${alternatives.join(', ')} (${primary} wins)`)
    }
    lines.push(`${primary}=${defaultText(def)}`)
  }
  return lines.join('\n') + '\n'
}

const cell = (text: string): string => text.replace(/\|/g, '\\|')

export function renderFlagTable(): string {
  const rows = [
    '| Flag | Type | Default | Environment | TOML | Description |',
    '|---|---|---|---|---|---|',
  ]
  for (const def of DEFS) {
    const { section, key } = tomlLocation(def.name)
    const toml = def.cliOnly ? '-' : section === '' ? `\`${key}\`` : `\`[${section}]\` \`${key}\``
    const env = def.env.length > 0 ? def.env.map((e) => `\`${e}\``).join(' or ') : '-'
    const dflt = defaultText(def)
    rows.push(
      `| ${cell(flagLabel(def))} | ${cell(typeLabel(def))} | ${dflt === '' ? '""' : `\`${cell(dflt)}\``} | ${env} | ${toml} | ${cell(def.description)} |`,
    )
  }
  rows.push('| -h, --help | | | | | print help and exit |')
  rows.push('| --version | | | | | print the version and exit |')
  return rows.join('\n') + '\n'
}

/** README text with the region between the flag markers replaced by the generated table. */
export function replaceFlagSection(readme: string, table: string = renderFlagTable()): string {
  const start = readme.indexOf(README_START)
  const end = readme.indexOf(README_END)
  if (start < 0 || end < start) {
    throw new Error(`README has no ${README_START} ... ${README_END} region`)
  }
  return `${readme.slice(0, start + README_START.length)}\n${table}${readme.slice(end)}`
}
