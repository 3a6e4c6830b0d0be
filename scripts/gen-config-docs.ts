/**
 * Regenerates `.env.example` and the README flag table (between the flags markers) from the
 * config schema. `--check` writes nothing and exits 1 when either file is out of date (for CI).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { renderEnvExample, replaceFlagSection } from '../src/config/docs.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const check = process.argv.includes('--check')
const targets = [
  { file: `${root}.env.example`, render: (_old: string) => renderEnvExample() },
  { file: `${root}README.md`, render: (old: string) => replaceFlagSection(old) },
]

let stale = 0
for (const { file, render } of targets) {
  let old = ''
  try {
    old = readFileSync(file, 'utf8')
  } catch {
    // .env.example may not exist yet; it is created below.
  }
  const next = render(old)
  if (next === old) {
    continue
  }
  stale++
  if (check) {
    console.error(`${file} is out of date; run npm run docs:config`)
  } else {
    writeFileSync(file, next)
    console.log(`wrote ${file}`)
  }
}
process.exitCode = check && stale > 0 ? 1 : 0
