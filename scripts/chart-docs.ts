/**
 * The chart's README values table and values.schema.json, generated from the `## @param` comments
 * of charts/db-adapter/values.yaml by @bitnami/readme-generator-for-helm, then completed here
 * where the generator cannot know: typos are refused (objects closed), `global` and a parent
 * chart's `enabled` are accepted (the chart works as a subchart), numbers that must be whole are
 * integers, the few ranges and enums the chart relies on, and `config`'s keys are the adapter's
 * own flag names (from its config schema), so `monitor.incgroupp` is refused.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { SCHEMA } from '../src/config/index.js'
import type { FlagDef } from '../src/config/index.js'

type Json = { [k: string]: unknown }
type Node = { type?: string | string[]; properties?: Record<string, Node>; default?: unknown; [k: string]: unknown }

const ROOT = path.join(import.meta.dirname, '..')
export const CHART = path.join(ROOT, 'charts/db-adapter')
const GENERATOR = path.join(ROOT, 'node_modules/.bin/readme-generator')

/** objects whose keys are Kubernetes' or the user's, not the chart's: left open */
const OPEN = new Set(['global', 'resources', 'resources.requests', 'resources.limits', 'podSecurityContext', 'podSecurityContext.seccompProfile', 'securityContext', 'securityContext.capabilities'])

const PROBE_FIELDS = ['initialDelaySeconds', 'periodSeconds', 'timeoutSeconds', 'successThreshold', 'failureThreshold']
const PORT = { minimum: 1, maximum: 65535 }
const CUSTOM_PROBE = { type: 'object', description: 'a Kubernetes Probe, used verbatim' }

/** what the generator cannot read from a default value: keyword additions by dotted path */
const REFINE: Record<string, Json> = {
  'image.repository': { minLength: 1 },
  'image.digest': { pattern: '^(sha256:[0-9a-f]{64})?$' },
  'image.pullPolicy': { enum: ['Always', 'IfNotPresent', 'Never'] },
  'storage.mode': { enum: ['embedded', 'postgres'] },
  'storage.embedded.size': { pattern: '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$' },
  replicaCount: { minimum: 1 },
  'hostexporter.tlsMountPath': { pattern: '^/' },
  'service.type': { enum: ['ClusterIP', 'NodePort', 'LoadBalancer'] },
  'service.udp.type': { enum: ['ClusterIP', 'NodePort', 'LoadBalancer'] },
  'service.port': PORT,
  'ingress.pathType': { enum: ['Prefix', 'Exact', 'ImplementationSpecific'] },
  preStopSleepSeconds: { minimum: 0 },
  terminationGracePeriodSeconds: { minimum: 1 },
  'prometheusRule.errorRatio': { exclusiveMinimum: 0, maximum: 1 },
  'prometheusRule.for': { pattern: '^([0-9]+(ms|s|m|h|d|w|y))+$' },
  'podDisruptionBudget.maxUnavailable': { type: ['integer', 'string'] },
  'autoscaling.minReplicas': { minimum: 1 },
  'autoscaling.maxReplicas': { minimum: 1 },
  'autoscaling.targetCPUUtilizationPercentage': { minimum: 1, maximum: 100 },
  'probes.liveness.successThreshold': { maximum: 1 },
  'probes.startup.successThreshold': { maximum: 1 },
  customReadinessProbe: CUSTOM_PROBE,
  customLivenessProbe: CUSTOM_PROBE,
  customStartupProbe: CUSTOM_PROBE,
  extraVolumes: { items: { type: 'object', required: ['name'] } },
  extraVolumeMounts: { items: { type: 'object', required: ['name', 'mountPath'] } },
  initContainers: { items: { type: 'object', required: ['name'] } },
  extraContainers: { items: { type: 'object', required: ['name'] } },
  'httpRoute.parentRefs': { items: { type: 'object', required: ['name'] } },
}
for (const probe of ['readiness', 'liveness', 'startup']) {
  for (const field of PROBE_FIELDS) {
    const key = `probes.${probe}.${field}`
    REFINE[key] = { ...REFINE[key], minimum: field.endsWith('Threshold') ? 1 : 0 }
  }
}

/** a flag's value as the chart may write it: its own type, or a string the adapter parses */
function flagSchema(f: FlagDef): Json {
  const described = { description: f.description }
  switch (f.type) {
    case 'bool':
      return { type: ['boolean', 'string'], ...described }
    case 'int':
    case 'uint':
      return { type: ['integer', 'string'], ...described }
    case 'float':
      return { type: ['number', 'string'], ...described }
    case 'duration':
    case 'size':
      return { type: ['string', 'integer'], ...described }
    case 'strings':
    case 'ints':
    case 'stringArray':
      return { type: ['array', 'string'], items: { type: ['string', 'number'] }, ...described }
    default:
      return { type: 'string', ...described }
  }
}

function refine(node: Node, at: string): void {
  if (node.type === 'number' && Number.isInteger(node.default)) {
    node.type = 'integer'
  }
  Object.assign(node, REFINE[at] ?? {})
  if (node.type === 'object' && node.properties) {
    if (!OPEN.has(at)) {
      node.additionalProperties = false
    }
    for (const [k, child] of Object.entries(node.properties)) {
      refine(child, at ? `${at}.${k}` : k)
    }
  }
}

/** the generator's schema, completed (see the module comment) */
export function completeSchema(generated: Node): Node {
  const schema: Node = { $schema: 'http://json-schema.org/draft-07/schema#', ...generated }
  refine(schema, '')
  const props = schema.properties as Record<string, Node>
  // a parent chart's condition key (`db-adapter.enabled`) arrives in the values
  props.enabled = { type: 'boolean', description: 'the parent chart\'s condition, when db-adapter is a subchart' }
  const config = props.config
  config.properties = Object.fromEntries([...SCHEMA].sort((a, b) => a.name.localeCompare(b.name)).map((f) => [f.name, flagSchema(f)]))
  config.additionalProperties = false
  config.description = 'adapter flags by their names in db-adapter --help'
  return schema
}

/** The README (its `## Parameters` section regenerated) and values.schema.json, as they should be. */
export function generateChartDocs(chart = CHART): { readme: string; schema: string } {
  const work = mkdtempSync(path.join(tmpdir(), 'chart-docs-'))
  try {
    const readme = path.join(work, 'README.md')
    const schema = path.join(work, 'schema.json')
    copyFileSync(path.join(chart, 'README.md'), readme)
    execFileSync(GENERATOR, ['-v', path.join(chart, 'values.yaml'), '-r', readme, '-s', schema], { stdio: 'pipe' })
    const completed = completeSchema(JSON.parse(readFileSync(schema, 'utf8')) as Node)
    return { readme: readFileSync(readme, 'utf8'), schema: `${JSON.stringify(completed, null, 2)}\n` }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
