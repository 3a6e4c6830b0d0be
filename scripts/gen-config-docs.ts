/**
 * Regenerates `.env.example` and the README flag table (between the flags markers) from the
 * config schema. `--check` writes nothing and exits 1 when either file is out of date (for CI);
 * `--root=<dir>` works on another checkout (the tests use a scratch copy).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderEnvExample, replaceFlagSection } from '../src/config/docs.js'

const rootArg = process.argv.find((a) => a.startsWith('--root='))
const root = rootArg ? path.resolve(rootArg.slice('--root='.length)) : fileURLToPath(new URL('..', import.meta.url))
const check = process.argv.includes('--check')
const targets = [
  { file: path.join(root, '.env.example'), render: (_old: string) => renderEnvExample() },
  { file: path.join(root, 'README.md'), render: (old: string) => replaceFlagSection(old) },
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
