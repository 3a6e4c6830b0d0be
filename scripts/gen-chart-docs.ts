/**
 * Regenerates the chart README's values table and values.schema.json from the `## @param`
 * comments of charts/db-adapter/values.yaml (scripts/chart-docs.ts). `--check` writes nothing and
 * exits 1 when either file is out of date (test/deploy/chart-docs.test.ts checks the same).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { CHART, generateChartDocs } from './chart-docs.js'

const check = process.argv.includes('--check')
const next = generateChartDocs()
let stale = 0
for (const [file, text] of [
  [path.join(CHART, 'README.md'), next.readme],
  [path.join(CHART, 'values.schema.json'), next.schema],
] as const) {
  if (readFileSync(file, 'utf8') === text) {
    continue
  }
  stale++
  if (check) {
    console.error(`${file} is out of date; run npm run docs:chart`)
  } else {
    writeFileSync(file, text)
    console.log(`wrote ${file}`)
  }
}
process.exitCode = check && stale > 0 ? 1 : 0
