/**
 * values.schema.json and the chart README's values table: both generated from the `## @param`
 * comments of values.yaml (npm run docs:chart) and current; the schema accepts the defaults, every
 * example value set and the ci/ variants, a parent chart's `global` and `enabled`, and refuses
 * wrong types, unknown keys and adapter flags that do not exist (`config`), naming them.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { generateChartDocs } from '../../scripts/chart-docs.js'
import { CHART, VALUES, mergedValues } from './chart-lib.js'

const CI = join(CHART, 'ci')

describe('values.schema.json and the README values table', () => {
  it('are what npm run docs:chart generates from the ## @param comments (run it after changing values.yaml)', () => {
    const next = generateChartDocs()
    expect(readFileSync(join(CHART, 'values.schema.json'), 'utf8'), 'values.schema.json is stale: npm run docs:chart').toBe(next.schema)
    expect(readFileSync(join(CHART, 'README.md'), 'utf8'), 'the chart README is stale: npm run docs:chart').toBe(next.readme)
    // every value is in the table
    expect(next.readme).toMatch(/\| `image\.digest` +\|/)
    expect(next.readme).toMatch(/\| `config\.log\.enableFile` +\|/)
  }, 60_000)
})

describe('values.schema.json', () => {
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true })
  const validate = ajv.compile(JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')))

  it('accepts the defaults and every example value set', () => {
    const sets = readdirSync(VALUES).filter((x) => !x.startsWith('bad-'))
    for (const f of sets) {
      expect(validate(mergedValues(f)), `${f}: ${ajv.errorsText(validate.errors)}`).toBe(true)
    }
    expect(validate(mergedValues()), ajv.errorsText(validate.errors)).toBe(true)
  })

  it('accepts the ci/ variants, a parent chart\'s global and enabled keys', () => {
    for (const f of readdirSync(CI)) {
      expect(validate(mergedValues(join(CI, f))), `${f}: ${ajv.errorsText(validate.errors)}`).toBe(true)
    }
    const asSubchart = { ...(mergedValues() as object), enabled: true, global: { imageRegistry: 'mirror.example', imagePullSecrets: ['pull'], storageClass: 'fast', other: { any: 1 } } }
    expect(validate(asSubchart), ajv.errorsText(validate.errors)).toBe(true)
  })

  it('refuses typos: an adapter flag that does not exist in config, an unknown key, a bad digest', () => {
    const base = mergedValues() as { config: object; image: object; [k: string]: unknown }
    expect(validate({ ...base, config: { ...base.config, 'monitor.incgroupp': true } })).toBe(false)
    expect(ajv.errorsText(validate.errors)).toMatch(/config must NOT have additional properties/)
    expect(validate.errors?.some((e) => e.params.additionalProperty === 'monitor.incgroupp')).toBe(true)
    // every flag the adapter has is accepted, with its type
    expect(validate({ ...base, config: { ...base.config, 'monitor.workMemory': '256MB', 'tsdbproto_telnet.ports': [1, 2], 'pool.maxConnect': 10 } }), ajv.errorsText(validate.errors)).toBe(true)
    expect(validate({ ...base, config: { ...base.config, 'pool.maxConnect': { a: 1 } } })).toBe(false)
    expect(validate({ ...base, ingres: { enabled: true } })).toBe(false)
    expect(validate.errors?.some((e) => e.params.additionalProperty === 'ingres')).toBe(true)
    expect(validate({ ...base, image: { ...base.image, digest: 'latest' } })).toBe(false)
    expect(ajv.errorsText(validate.errors)).toMatch(/image\/digest must match pattern/)
  })

  it('rejects wrong types and values, naming them', () => {
    expect(validate(mergedValues('bad-types.yaml'))).toBe(false)
    const text = ajv.errorsText(validate.errors)
    expect(text).toMatch(/replicaCount must be integer/)
    expect(text).toMatch(/service\/port must be <= 65535/)
    expect(text).toMatch(/probes\/readiness\/enabled must be boolean/)
    expect(validate(mergedValues('bad-mode.yaml'))).toBe(false)
    expect(ajv.errorsText(validate.errors)).toMatch(/storage\/mode must be equal to one of the allowed values/)
    expect(validate(mergedValues('bad-probes.yaml'))).toBe(false)
    const probes = ajv.errorsText(validate.errors)
    expect(probes).toMatch(/probes\/liveness\/successThreshold must be <= 1/)
    expect(probes).toMatch(/probes\/readiness\/initialDelaySeconds must be integer/)
    expect(probes).toMatch(/customLivenessProbe must be object/)
  })
})

