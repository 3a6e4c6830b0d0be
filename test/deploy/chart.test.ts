/**
 * The Helm chart (charts/db-adapter) and the kustomize overlays (k8s/), rendered for real and
 * checked: values against values.schema.json (ajv; bad sets rejected), every object against the
 * Kubernetes API schemas (kubernetes-models), and the facts that matter: ports match the
 * adapter's config, probes hit /-/ping and /-/live, every variable in the ConfigMap is one the
 * adapter reads (the adapter's own loader parses them), the UDP Service holds only UDP ports,
 * secrets come from the (existing) Secret, checksums roll the pods on config changes.
 *
 * Rendering: `helm template` when helm is on the PATH, else the test-only Go renderer in
 * test/deploy/helm-render (Go text/template + sprig from Debian; .ci/run installs them).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import { load, loadAll } from 'js-yaml'
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2'
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1'
import { ConfigMap, PersistentVolumeClaim, Pod, Secret, Service, ServiceAccount } from 'kubernetes-models/v1'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCHEMA, loadConfig } from '../../src/config/index.js'

const REPO = join(import.meta.dirname, '../..')
const CHART = join(REPO, 'charts/db-adapter')
const VALUES = join(REPO, 'test/deploy/values')
const dir = mkdtempSync(join(tmpdir(), 'chart-test-'))
let renderer: string[] = []

type Obj = { apiVersion: string; kind: string; metadata: { name: string; annotations?: Record<string, string> }; [k: string]: any }

const MODELS: Record<string, { validate(): void } extends never ? never : new (o: any) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'v1/Pod': Pod,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
}

/** every object validates against its Kubernetes schema (CRDs: the fields we rely on) */
function validateAll(objs: Obj[]): void {
  for (const o of objs) {
    const key = `${o.apiVersion}/${o.kind}`
    if (key === 'monitoring.coreos.com/v1/ServiceMonitor') {
      expect(o.spec.endpoints[0]).toMatchObject({ port: 'http', path: '/metrics' })
      expect(o.spec.selector.matchLabels).toBeTypeOf('object')
      continue
    }
    const Model = MODELS[key]
    expect(Model, `no schema for ${key}`).toBeDefined()
    expect(() => new Model(o).validate(), `${key} ${o.metadata.name}`).not.toThrow()
  }
}

function render(...files: string[]): Obj[] {
  const args = [...renderer.slice(1), CHART, ...files.flatMap((f) => ['-f', join(VALUES, f)])]
  const out = execFileSync(renderer[0], args, { encoding: 'utf8' })
  return (loadAll(out) as Obj[]).filter((o) => o !== null && o !== undefined)
}

function renderError(...files: string[]): string {
  const r = spawnSync(renderer[0], [...renderer.slice(1), CHART, ...files.flatMap((f) => ['-f', join(VALUES, f)])], { encoding: 'utf8' })
  expect(r.status, r.stdout).not.toBe(0)
  return r.stderr
}

const one = (objs: Obj[], kind: string, suffix = ''): Obj => {
  const found = objs.filter((o) => o.kind === kind && o.metadata.name.endsWith(suffix))
  expect(found, `${kind}${suffix}`).toHaveLength(1)
  return found[0]
}
const workload = (objs: Obj[]): Obj => objs.find((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet') as Obj
const container = (objs: Obj[]) => workload(objs).spec.template.spec.containers[0]

/** The adapter's own variables: every env name its config schema reads. */
const ENV_NAMES = new Set<string>(SCHEMA.flatMap((f) => f.env))

/** The ConfigMap's variables, loaded by the adapter's real config loader. */
function adapterConfig(objs: Obj[]) {
  const data = { ...one(objs, 'ConfigMap').data } as Record<string, string>
  delete data['adapter.toml']
  for (const name of Object.keys(data)) {
    expect(ENV_NAMES.has(name), `${name} is not a variable the adapter reads`).toBe(true)
  }
  const r = loadConfig([], data, { cwd: dir, defaultConfigPath: join(dir, 'none.toml') })
  if (r.kind !== 'run') {
    throw new Error('loader did not return a config')
  }
  return r.config
}

function mergedValues(...files: string[]): unknown {
  const merge = (a: any, b: any): any => {
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      const out = { ...a }
      for (const [k, v] of Object.entries(b)) {
        out[k] = merge(a[k], v)
      }
      return out
    }
    return b === undefined ? a : b
  }
  return files.reduce((acc, f) => merge(acc, load(readFileSync(join(VALUES, f), 'utf8'))), load(readFileSync(join(CHART, 'values.yaml'), 'utf8')))
}

beforeAll(() => {
  if (spawnSync('sh', ['-c', 'command -v helm']).status === 0) {
    renderer = ['helm', 'template', 'release']
    return
  }
  if (spawnSync('sh', ['-c', 'command -v go']).status !== 0) {
    throw new Error('neither helm nor go found: install golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev (.ci/run does)')
  }
  const bin = join(dir, 'helm-render')
  execFileSync('bash', [join(REPO, 'test/deploy/helm-render/build.sh'), bin], { stdio: 'inherit' })
  renderer = [bin]
}, 180_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('values.schema.json', () => {
  const ajv = new Ajv({ allErrors: true })
  const validate = ajv.compile(JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')))

  it('accepts the defaults and every example value set', () => {
    for (const f of readdirSync(VALUES).filter((x) => !x.startsWith('bad-'))) {
      expect(validate(mergedValues(f)), `${f}: ${ajv.errorsText(validate.errors)}`).toBe(true)
    }
    expect(validate(mergedValues()), ajv.errorsText(validate.errors)).toBe(true)
  })

  it('rejects wrong types and values, naming them', () => {
    expect(validate(mergedValues('bad-types.yaml'))).toBe(false)
    const text = ajv.errorsText(validate.errors)
    expect(text).toMatch(/replicaCount must be integer/)
    expect(text).toMatch(/service\/port must be <= 65535/)
    expect(text).toMatch(/probes\/readiness\/enabled must be boolean/)
    expect(validate(mergedValues('bad-mode.yaml'))).toBe(false)
    expect(ajv.errorsText(validate.errors)).toMatch(/storage\/mode must be equal to one of the allowed values/)
  })
})

describe('chart: defaults (embedded storage)', () => {
  let objs: Obj[]
  beforeAll(() => {
    objs = render()
  })

  it('renders valid Kubernetes objects: a one-replica StatefulSet with a PVC', () => {
    validateAll(objs)
    const sts = one(objs, 'StatefulSet')
    expect(sts.spec.replicas).toBe(1)
    expect(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('10Gi')
    expect(objs.some((o) => o.kind === 'Deployment' || o.kind === 'PodDisruptionBudget' || o.kind === 'HorizontalPodAutoscaler')).toBe(false)
  })

  it('ports, probes, security context, resources and configuration', () => {
    const c = container(objs)
    const config = adapterConfig(objs)
    expect(config.monitor.incgroup).toBe(true)
    expect(c.ports).toEqual([{ name: 'http', containerPort: config.port, protocol: 'TCP' }])
    expect(one(objs, 'Service').spec.ports).toEqual([{ name: 'http', port: 6041, targetPort: 'http', protocol: 'TCP' }])
    expect(c.readinessProbe.httpGet).toEqual({ path: '/-/ping', port: 'http' })
    expect(c.livenessProbe.httpGet).toEqual({ path: '/-/live', port: 'http' })
    expect(c.startupProbe.httpGet).toEqual({ path: '/-/live', port: 'http' })
    expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } })
    const pod = workload(objs).spec.template.spec
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } })
    expect(pod.automountServiceAccountToken).toBe(false)
    expect(one(objs, 'ServiceAccount').automountServiceAccountToken).toBe(false)
    expect(pod.volumes).toContainEqual({ name: 'tmp', emptyDir: {} })
    expect(c.resources.limits.memory).toBe('1Gi')
    // the password comes from the generated Secret
    expect(c.env).toContainEqual({ name: 'DB_ADAPTER_AUTH_ROOT_PASSWORD', valueFrom: { secretKeyRef: { name: 'release-db-adapter', key: 'root-password' } } })
    expect(one(objs, 'Secret').stringData).toEqual({ 'root-password': 'taosdata' })
    expect(objs.some((o) => o.kind === 'Service' && o.metadata.name.endsWith('-udp'))).toBe(false)
  })

  it('the helm test pod pings, writes a point and reads it back; NOTES tell how to reach it', () => {
    const pod = one(objs, 'Pod')
    expect(pod.metadata.annotations?.['helm.sh/hook']).toBe('test')
    const script = pod.spec.containers[0].command.join(' ')
    expect(script).toMatch(/\/-\/ping/)
    expect(script).toMatch(/\/lineproto\/v1\/write/)
    expect(script).toMatch(/SELECT v FROM/)
    if (renderer[0] !== 'helm') {
      const notes = execFileSync(renderer[0], ['-notes', CHART], { encoding: 'utf8' })
      expect(notes).toMatch(/port-forward svc\/release-db-adapter 6041:6041/)
      expect(notes).toMatch(/helm test release/)
    }
  })

  it('a configuration change changes the checksum annotation (pods roll)', () => {
    const before = workload(objs).spec.template.metadata.annotations['checksum/config']
    const after = workload(render('receivers.yaml')).spec.template.metadata.annotations['checksum/config']
    expect(before).toMatch(/^[0-9a-f]{64}$/)
    expect(after).not.toBe(before)
  })
})

describe('chart: value sets', () => {
  it('postgres with 3 replicas: Deployment, URL from the Secret, PDB, spread, ServiceMonitor', () => {
    const objs = render('postgres-3-replicas.yaml')
    validateAll(objs)
    const d = one(objs, 'Deployment')
    expect(d.spec.replicas).toBe(3)
    expect(container(objs).env).toContainEqual({ name: 'DB_ADAPTER_STORAGE_URL', valueFrom: { secretKeyRef: { name: 'release-db-adapter', key: 'storage-url' } } })
    expect(one(objs, 'Secret').stringData['storage-url']).toMatch(/^postgres:\/\//)
    expect(one(objs, 'PodDisruptionBudget').spec.maxUnavailable).toBe(1)
    expect(d.spec.template.spec.topologySpreadConstraints[0].topologyKey).toBe('kubernetes.io/hostname')
    expect(one(objs, 'ServiceMonitor').spec.endpoints[0].port).toBe('http')
  })

  it('receivers on: UDP ports only in the UDP Service, TCP ports in the main one, all matching the config', () => {
    const objs = render('receivers.yaml')
    validateAll(objs)
    const config = adapterConfig(objs)
    expect(config.tsdbproto_telnet.ports).toEqual([6046, 6047, 6048, 6049])
    expect(config.cors.allowOrigins).toEqual(['https://grafana.example'])
    const udp = one(objs, 'Service', '-udp')
    expect(udp.spec.ports.every((p: { protocol: string }) => p.protocol === 'UDP')).toBe(true)
    expect(udp.spec.ports.map((p: { port: number }) => p.port).sort()).toEqual([config.statsagent.port, config.collagent.port].sort())
    const tcp = objs.find((o) => o.kind === 'Service' && !o.metadata.name.endsWith('-udp')) as Obj
    expect(tcp.spec.ports.every((p: { protocol: string }) => p.protocol === 'TCP')).toBe(true)
    expect(tcp.spec.ports.map((p: { port: number }) => p.port)).toEqual([6041, ...config.tsdbproto_telnet.ports])
    // every Service port targets a port the container declares with the same protocol
    const declared = new Map(container(objs).ports.map((p: { name: string; protocol: string }) => [p.name, p.protocol]))
    for (const p of [...udp.spec.ports, ...tcp.spec.ports]) {
      expect(declared.get(p.targetPort), p.name).toBe(p.protocol)
    }
    // the TOML file is mounted where the adapter reads it
    expect(container(objs).volumeMounts).toContainEqual({ name: 'config', mountPath: '/etc/db/adapter.toml', subPath: 'adapter.toml', readOnly: true })
  })

  it('existingSecret: no generated Secret, keys from the existing one; CPU-only HPA owns the replicas', () => {
    const objs = render('existing-secret.yaml')
    validateAll(objs)
    expect(objs.some((o) => o.kind === 'Secret')).toBe(false)
    const env = container(objs).env
    expect(env).toContainEqual({ name: 'DB_ADAPTER_AUTH_ROOT_PASSWORD', valueFrom: { secretKeyRef: { name: 'db-adapter-credentials', key: 'password' } } })
    expect(env).toContainEqual({ name: 'DB_ADAPTER_STORAGE_URL', valueFrom: { secretKeyRef: { name: 'db-adapter-credentials', key: 'url' } } })
    const hpa = one(objs, 'HorizontalPodAutoscaler')
    expect(hpa.spec.metrics.map((m: { resource: { name: string } }) => m.resource.name)).toEqual(['cpu'])
    expect(one(objs, 'Deployment').spec.replicas).toBeUndefined()
    expect(workload(objs).spec.template.metadata.annotations['checksum/secret']).toBeUndefined()
  })

  it('networkPolicy on: ingress to the HTTP and receiver ports from the given peers', () => {
    const objs = render('network-policy.yaml')
    validateAll(objs)
    const np = one(objs, 'NetworkPolicy')
    expect(np.spec.ingress[0].from[0].namespaceSelector.matchLabels).toEqual({ 'kubernetes.io/metadata.name': 'monitoring' })
    expect(np.spec.ingress[0].ports).toEqual([{ port: 'http', protocol: 'TCP' }, { port: 'statsd', protocol: 'TCP' }])
    // StatsD over TCP joins the main Service; no UDP Service
    expect(objs.some((o) => o.kind === 'Service' && o.metadata.name.endsWith('-udp'))).toBe(false)
  })

  it('refuses inconsistent values with a clear message', () => {
    expect(renderError('postgres-no-url.yaml')).toMatch(/storage.mode=postgres needs storage.postgres.url/)
    expect(renderError('embedded-autoscaling.yaml')).toMatch(/autoscaling needs storage.mode=postgres/)
  })
})

describe('k8s/ kustomize overlays', () => {
  const build = (overlay: string): Obj[] =>
    (loadAll(execFileSync('kubectl', ['kustomize', join(REPO, 'k8s/overlays', overlay)], { encoding: 'utf8' })) as Obj[]).filter(Boolean)

  for (const overlay of ['embedded', 'postgres']) {
    it(`${overlay}: valid objects, probes, env names the adapter reads`, () => {
      const objs = build(overlay)
      validateAll(objs)
      const c = container(objs)
      expect(c.readinessProbe.httpGet.path).toBe('/-/ping')
      expect(c.livenessProbe.httpGet.path).toBe('/-/live')
      const config = adapterConfig(objs)
      expect(c.ports[0].containerPort).toBe(config.port)
      for (const e of c.env) {
        expect(ENV_NAMES.has(e.name), e.name).toBe(true)
      }
      const d = one(objs, 'Deployment')
      if (overlay === 'embedded') {
        expect(d.spec.replicas).toBe(1)
        expect(d.spec.template.spec.volumes[0].persistentVolumeClaim.claimName).toBe(one(objs, 'PersistentVolumeClaim').metadata.name)
      } else {
        expect(d.spec.replicas).toBe(3)
        const secretName = c.env.find((e: { name: string }) => e.name === 'DB_ADAPTER_STORAGE_URL').valueFrom.secretKeyRef.name
        expect(one(objs, 'Secret').metadata.name).toBe(secretName)
        expect(one(objs, 'PodDisruptionBudget').spec.maxUnavailable).toBe(1)
      }
    })
  }
})
