/**
 * The Helm chart (charts/db-adapter) and the kustomize overlays (k8s/), rendered for real and
 * checked: values against values.schema.json (ajv; bad sets rejected), every object against the
 * Kubernetes API schemas (kubernetes-models), and the facts that matter: ports match the
 * adapter's config, probes hit /-/ping and /-/live (or the custom ones given), every variable in
 * the env ConfigMap is one the adapter reads (the adapter's own loader parses them) and numbers
 * are printed as integers, the TOML file is in a ConfigMap of its own, the UDP Service holds only
 * UDP ports (the collectd receiver, on by default as in the adapter), receivers this version lacks
 * are refused, passwords (root, collectd, monitor) come from the (existing) Secret, checksums
 * roll the pods on config changes.
 *
 * Rendering: `helm template` when helm is on the PATH, else the test-only Go renderer in
 * test/deploy/helm-render (Go text/template + sprig from Debian, installed by
 * test/lib/debian-package.ts when they can be, else the rendering tests are skipped), which types
 * values as Helm does (every number a float64). The overlays need kubectl (not from Debian 12:
 * its kubernetes-client 1.20 is too old for them), skipped without it.
 *
 * Value sets: the files in test/deploy/values, some of them overlays rendered over another
 * (collectd-port.yaml over receivers.yaml, existing-secret-monitor-key.yaml over
 * existing-secret.yaml, custom-probes.yaml over probes.yaml); the schema must reject the bad-* ones.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
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
import { file, needDebianPackages, onPath, program } from '../lib/debian-package.js'

const REPO = join(import.meta.dirname, '../..')
const CHART = join(REPO, 'charts/db-adapter')
const VALUES = join(REPO, 'test/deploy/values')
const dir = mkdtempSync(join(tmpdir(), 'chart-test-'))
/** `helm template` when helm is on the PATH (it does not print NOTES.txt), else the Go renderer */
const HELM = onPath('helm')
const GOCODE = '/usr/share/gocode/src'
const renderNeed = HELM
  ? { skip: false }
  : needDebianPackages('chart rendering (no helm: the Go renderer)', [
      { pkg: 'golang-go', present: program('go') },
      { pkg: 'golang-github-masterminds-sprig-dev', present: file(join(GOCODE, 'github.com/Masterminds/sprig')) },
      { pkg: 'golang-gopkg-yaml.v3-dev', present: file(join(GOCODE, 'gopkg.in/yaml.v3')) },
    ])
const kubectlNeed = needDebianPackages('k8s/ kustomize overlays', [
  { pkg: 'kubectl', apt: false, present: program('kubectl'), hint: 'for `kubectl kustomize`, 1.21 or later: Debian 12 ships only 1.20' },
])
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

/** a value file in test/deploy/values */
const valuesPath = (f: string): string => join(VALUES, f)

function renderText(...files: string[]): string {
  const args = [...renderer.slice(1), CHART, ...files.flatMap((f) => ['-f', valuesPath(f)])]
  return execFileSync(renderer[0], args, { encoding: 'utf8' })
}

function render(...files: string[]): Obj[] {
  return (loadAll(renderText(...files)) as Obj[]).filter((o) => o !== null && o !== undefined)
}

function renderError(...files: string[]): string {
  const r = spawnSync(renderer[0], [...renderer.slice(1), CHART, ...files.flatMap((f) => ['-f', valuesPath(f)])], { encoding: 'utf8' })
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

/** the ConfigMap the container projects with envFrom */
function envConfigMap(objs: Obj[]): Obj {
  const refs = container(objs).envFrom.filter((e: { configMapRef?: unknown }) => e.configMapRef)
  expect(refs).toHaveLength(1)
  const found = objs.filter((o) => o.kind === 'ConfigMap' && o.metadata.name === refs[0].configMapRef.name)
  expect(found).toHaveLength(1)
  return found[0]
}

/** The env ConfigMap's variables, loaded by the adapter's real config loader. */
function adapterConfig(objs: Obj[]) {
  const data = { ...envConfigMap(objs).data } as Record<string, string>
  for (const name of Object.keys(data)) {
    expect(ENV_NAMES.has(name), `${name} is not a variable the adapter reads`).toBe(true)
  }
  const r = loadConfig([], data, { cwd: dir, defaultConfigPath: join(dir, 'none.toml') })
  if (r.kind !== 'run') {
    throw new Error('loader did not return a config')
  }
  return r.config
}

/** Every Service port targets a port the container declares, with the same protocol; the -udp
 * Service holds only UDP ports and the main one only TCP ports. */
function checkServices(objs: Obj[]): void {
  const declared = new Map(container(objs).ports.map((p: { name: string; protocol: string }) => [p.name, p.protocol]))
  for (const svc of objs.filter((o) => o.kind === 'Service')) {
    const want = svc.metadata.name.endsWith('-udp') ? 'UDP' : 'TCP'
    expect(svc.spec.ports.length, svc.metadata.name).toBeGreaterThan(0)
    for (const p of svc.spec.ports) {
      expect(p.protocol, `${svc.metadata.name} ${p.name}`).toBe(want)
      expect(declared.get(p.targetPort), `${svc.metadata.name} ${p.name}`).toBe(p.protocol)
    }
  }
}

/** the receivers this version has no implementation of are off (the adapter would only warn) */
function noPhantomReceivers(objs: Obj[]): void {
  const config = adapterConfig(objs)
  expect(config.statsagent.enable).toBe(false)
  expect(config.tsdbproto_telnet.enable).toBe(false)
  expect(config.hostexporter.enable).toBe(false)
  const names = [...container(objs).ports, ...objs.filter((o) => o.kind === 'Service').flatMap((s) => s.spec.ports)].map((p: { name: string }) => p.name)
  expect(names.filter((n: string) => /statsd|telnet|node/.test(n))).toEqual([])
}

const secretEnv = (name: string, secret: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: secret, key } } })

/** the chart's values with the files over them, merged as Helm does (a null removes the key) */
function mergedValues(...files: string[]): unknown {
  const merge = (a: any, b: any): any => {
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      const out = { ...a }
      for (const [k, v] of Object.entries(b)) {
        if (v === null) {
          delete out[k]
        } else {
          out[k] = merge(a[k], v)
        }
      }
      return out
    }
    return b === undefined ? a : b
  }
  return files.reduce((acc, f) => merge(acc, load(readFileSync(valuesPath(f), 'utf8'))), load(readFileSync(join(CHART, 'values.yaml'), 'utf8')))
}

beforeAll(() => {
  if (HELM) {
    renderer = ['helm', 'template', 'release']
    return
  }
  if (renderNeed.skip) {
    return
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
    const sets = readdirSync(VALUES).filter((x) => !x.startsWith('bad-'))
    for (const f of sets) {
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
    expect(validate(mergedValues('bad-probes.yaml'))).toBe(false)
    const probes = ajv.errorsText(validate.errors)
    expect(probes).toMatch(/probes\/liveness\/successThreshold must be <= 1/)
    expect(probes).toMatch(/probes\/readiness\/initialDelaySeconds must be integer/)
    expect(probes).toMatch(/customLivenessProbe must be object/)
  })
})

describe.skipIf(renderNeed.skip)('the renderer types values as Helm does', () => {
  it('a number from a values file is a float64: toString prints 1000000 as 1e+06', () => {
    const chart = join(dir, 'typing-chart')
    mkdirSync(join(chart, 'templates'), { recursive: true })
    writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: typing\nversion: 0.1.0\n')
    writeFileSync(join(chart, 'values.yaml'), 'n: 1000000\n')
    writeFileSync(join(chart, 'templates/cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: typing}\ndata:\n  n: {{ toString .Values.n | quote }}\n  kind: {{ kindOf .Values.n | quote }}\n')
    const out = loadAll(execFileSync(renderer[0], [...renderer.slice(1), chart], { encoding: 'utf8' })).filter(Boolean) as Obj[]
    expect(out[0].data).toEqual({ n: '1e+06', kind: 'float64' })
  })
})

describe.skipIf(renderNeed.skip)('chart: defaults (embedded storage)', () => {
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
    expect(config.smlAutoCreateDB).toBe(false)
    expect(config.rest.queryTimeout).toBe(60_000)
    // the drain ends before the kubelet's SIGKILL
    expect(config.shutdown.gracePeriod).toBe(25_000)
    expect(config.shutdown.gracePeriod).toBeLessThan(workload(objs).spec.template.spec.terminationGracePeriodSeconds * 1000)
    expect(c.readinessProbe).toEqual({ httpGet: { path: '/-/ping', port: 'http' }, periodSeconds: 5, timeoutSeconds: 2, successThreshold: 1, failureThreshold: 3 })
    expect(c.livenessProbe.httpGet).toEqual({ path: '/-/live', port: 'http' })
    expect(c.startupProbe.httpGet).toEqual({ path: '/-/live', port: 'http' })
    expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } })
    const pod = workload(objs).spec.template.spec
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } })
    expect(pod.automountServiceAccountToken).toBe(false)
    expect(one(objs, 'ServiceAccount').automountServiceAccountToken).toBe(false)
    expect(pod.volumes).toContainEqual({ name: 'tmp', emptyDir: {} })
    expect(c.resources.limits.memory).toBe('1Gi')
    for (const e of c.env) {
      expect(ENV_NAMES.has(e.name), e.name).toBe(true)
    }
    // no TOML file by default: one ConfigMap, no config volume
    expect(objs.filter((o) => o.kind === 'ConfigMap')).toHaveLength(1)
    expect(pod.volumes.some((v: { name: string }) => v.name === 'config')).toBe(false)
  })

  it('the collectd receiver is on, as in the adapter: 6045/UDP in the container and in the -udp Service only', () => {
    const c = container(objs)
    const config = adapterConfig(objs)
    expect(config.collagent.enable).toBe(true)
    expect(config.collagent.port).toBe(6045)
    expect(c.ports).toEqual([
      { name: 'http', containerPort: config.port, protocol: 'TCP' },
      { name: 'collectd', containerPort: config.collagent.port, protocol: 'UDP' },
    ])
    expect(one(objs, 'Service', '-db-adapter').spec.ports).toEqual([{ name: 'http', port: 6041, targetPort: 'http', protocol: 'TCP' }])
    expect(one(objs, 'Service', '-udp').spec.ports).toEqual([{ name: 'collectd', port: 6045, targetPort: 'collectd', protocol: 'UDP' }])
    checkServices(objs)
    // StatsD is on by default in the adapter and not in this version: the chart turns it off
    expect(envConfigMap(objs).data.DB_ADAPTER_STATSAGENT_ENABLE).toBe('false')
    noPhantomReceivers(objs)
  })

  it('root, collectd and monitor passwords all come from the Secret\'s root-password key', () => {
    const env = container(objs).env
    for (const name of ['DB_ADAPTER_AUTH_ROOT_PASSWORD', 'DB_ADAPTER_COLLAGENT_PASSWORD', 'DB_ADAPTER_MONITOR_PASSWORD']) {
      expect(env).toContainEqual(secretEnv(name, 'release-db-adapter', 'root-password'))
    }
    expect(one(objs, 'Secret').stringData).toEqual({ 'root-password': 'taosdata' })
    expect(Object.keys(envConfigMap(objs).data).filter((k) => /PASSWORD/.test(k))).toEqual([])
  })

  it('the helm test pod pings, writes a point and reads it back', () => {
    const pod = one(objs, 'Pod')
    expect(pod.metadata.annotations?.['helm.sh/hook']).toBe('test')
    const script = pod.spec.containers[0].command.join(' ')
    expect(script).toMatch(/\/-\/ping/)
    expect(script).toMatch(/\/lineproto\/v1\/write/)
    expect(script).toMatch(/SELECT v FROM/)
  })

  it.skipIf(HELM)('NOTES tell how to reach it (Go renderer only: helm template prints no NOTES)', () => {
    const notes = execFileSync(renderer[0], ['-notes', CHART], { encoding: 'utf8' })
    expect(notes).toMatch(/port-forward svc\/release-db-adapter 6041:6041/)
    expect(notes).toMatch(/CREATE DATABASE prom/)
    expect(notes).toMatch(/Server "release-db-adapter-udp.default" "6045" \(UDP\)/)
    expect(notes).toMatch(/helm test release/)
  })

  it('a configuration change changes the checksum annotation (pods roll)', () => {
    const before = workload(objs).spec.template.metadata.annotations['checksum/config']
    const after = workload(render('receivers.yaml', 'collectd-port.yaml')).spec.template.metadata.annotations['checksum/config']
    expect(before).toMatch(/^[0-9a-f]{64}$/)
    expect(after).not.toBe(before)
  })
})

describe.skipIf(renderNeed.skip)('chart: value sets', () => {
  it('postgres with 3 replicas: Deployment, URL from the Secret, PDB, spread, ServiceMonitor', () => {
    const objs = render('postgres-3-replicas.yaml')
    validateAll(objs)
    checkServices(objs)
    const d = one(objs, 'Deployment')
    expect(d.spec.replicas).toBe(3)
    expect(container(objs).env).toContainEqual(secretEnv('DB_ADAPTER_STORAGE_URL', 'release-db-adapter', 'storage-url'))
    expect(one(objs, 'Secret').stringData['storage-url']).toMatch(/^postgres:\/\//)
    expect(one(objs, 'PodDisruptionBudget').spec.maxUnavailable).toBe(1)
    expect(d.spec.template.spec.topologySpreadConstraints[0].topologyKey).toBe('kubernetes.io/hostname')
    expect(one(objs, 'ServiceMonitor').spec.endpoints[0].port).toBe('http')
  })

  it('collectd on another port: the UDP Service follows the config; numbers print as integers; the TOML file has a ConfigMap of its own', () => {
    const text = renderText('receivers.yaml', 'collectd-port.yaml')
    expect(text).not.toMatch(/\de[+-]\d/)
    const objs = render('receivers.yaml', 'collectd-port.yaml')
    validateAll(objs)
    checkServices(objs)
    const config = adapterConfig(objs)
    expect(config.collagent.port).toBe(25826)
    expect(config.collagent.db).toBe('collectd')
    expect(config.restfulRowLimit).toBe(1000000)
    expect(config.pool.maxConnect).toBe(4000000)
    expect(config.monitor.pauseQueryMemoryThreshold).toBe(65.5)
    expect(config.tsdbproto_telnet.ports).toEqual([16046, 16047])
    expect(config.cors.allowOrigins).toEqual(['https://grafana.example'])
    const env = envConfigMap(objs).data
    expect(env.DB_ADAPTER_RESTFUL_ROW_LIMIT).toBe('1000000')
    expect(env.DB_ADAPTER_POOL_MAX_CONNECT).toBe('4000000')
    expect(env.DB_ADAPTER_TSDBPROTO_TELNET_PORTS).toBe('16046,16047')
    expect(env.DB_ADAPTER_MONITOR_PAUSE_QUERY_MEMORY_THRESHOLD).toBe('65.5')
    expect(one(objs, 'Service', '-udp').spec.ports).toEqual([{ name: 'collectd', port: 25826, targetPort: 'collectd', protocol: 'UDP' }])
    expect(container(objs).ports).toContainEqual({ name: 'collectd', containerPort: 25826, protocol: 'UDP' })
    noPhantomReceivers(objs)
    // the TOML file: not in the env ConfigMap (envFrom would make it a variable), in its own, mounted
    expect(Object.keys(env).every((k) => k.startsWith('DB_ADAPTER_'))).toBe(true)
    const toml = one(objs, 'ConfigMap', '-toml')
    expect(toml.data).toEqual({ 'adapter.toml': '[log]\npath = "/var/lib/db-adapter/log"\n' })
    expect(toml.metadata.name).not.toBe(envConfigMap(objs).metadata.name)
    expect(container(objs).volumeMounts).toContainEqual({ name: 'config', mountPath: '/etc/db/adapter.toml', subPath: 'adapter.toml', readOnly: true })
    expect(workload(objs).spec.template.spec.volumes).toContainEqual({
      name: 'config',
      configMap: { name: toml.metadata.name, items: [{ key: 'adapter.toml', path: 'adapter.toml' }] },
    })
  })

  it('collectd off: no UDP Service, no receiver port anywhere', () => {
    const objs = render('no-collectd.yaml')
    validateAll(objs)
    checkServices(objs)
    expect(adapterConfig(objs).collagent.enable).toBe(false)
    expect(objs.some((o) => o.kind === 'Service' && o.metadata.name.endsWith('-udp'))).toBe(false)
    expect(container(objs).ports).toEqual([{ name: 'http', containerPort: 6041, protocol: 'TCP' }])
    expect(one(objs, 'NetworkPolicy').spec.ingress[0].ports).toEqual([{ port: 'http', protocol: 'TCP' }])
  })

  it('receivers this version lacks (StatsD, OpenTSDB telnet, node_exporter) are refused, not rendered as ports', () => {
    expect(renderError('statsagent-on.yaml')).toMatch(/config.statsagent.enable is on, but this version of db-adapter has no StatsD receiver/)
    expect(renderError('statsagent-on-as-1.yaml')).toMatch(/config.statsagent.enable is on/)
    // null: Helm drops the key, leaving the adapter's default, which is on
    expect(renderError('statsagent-null.yaml')).toMatch(/config.statsagent.enable is on/)
    expect(renderError('telnet-on.yaml')).toMatch(/config.tsdbproto_telnet.enable is on, but this version of db-adapter has no OpenTSDB telnet TCP receivers/)
    expect(renderError('hostexporter-on.yaml')).toMatch(/config.hostexporter.enable is on, but this version of db-adapter has no node_exporter scraper/)
  })

  it('passwords: rootPassword carries the collectd and monitor passwords; each can have its own', () => {
    let objs = render('root-password.yaml')
    expect(one(objs, 'Secret').stringData).toEqual({ 'root-password': 's3cret' })
    for (const name of ['DB_ADAPTER_AUTH_ROOT_PASSWORD', 'DB_ADAPTER_COLLAGENT_PASSWORD', 'DB_ADAPTER_MONITOR_PASSWORD']) {
      expect(container(objs).env).toContainEqual(secretEnv(name, 'release-db-adapter', 'root-password'))
    }
    objs = render('own-passwords.yaml')
    validateAll(objs)
    expect(one(objs, 'Secret').stringData).toEqual({ 'root-password': 's3cret', 'collagent-password': 'collectd-pw', 'monitor-password': 'monitor-pw' })
    const env = container(objs).env
    expect(env).toContainEqual(secretEnv('DB_ADAPTER_AUTH_ROOT_PASSWORD', 'release-db-adapter', 'root-password'))
    expect(env).toContainEqual(secretEnv('DB_ADAPTER_COLLAGENT_PASSWORD', 'release-db-adapter', 'collagent-password'))
    expect(env).toContainEqual(secretEnv('DB_ADAPTER_MONITOR_PASSWORD', 'release-db-adapter', 'monitor-password'))
    // an existing Secret: its root key unless a key of their own is named
    objs = render('existing-secret.yaml', 'existing-secret-monitor-key.yaml')
    expect(objs.some((o) => o.kind === 'Secret')).toBe(false)
    expect(container(objs).env).toContainEqual(secretEnv('DB_ADAPTER_COLLAGENT_PASSWORD', 'creds', 'password'))
    expect(container(objs).env).toContainEqual(secretEnv('DB_ADAPTER_MONITOR_PASSWORD', 'creds', 'monitor'))
    // a password in config would land in the ConfigMap
    expect(renderError('password-in-config.yaml')).toMatch(/config.collagent.password is a password: passwords come from the Secret/)
  })

  it('probes: initialDelaySeconds and successThreshold, switchable, and custom probes used verbatim', () => {
    const objs = render('probes.yaml', 'custom-probes.yaml')
    validateAll(objs)
    const c = container(objs)
    expect(c.readinessProbe).toEqual({ tcpSocket: { port: 'http' }, periodSeconds: 3, successThreshold: 2 })
    expect(c.livenessProbe).toEqual({ httpGet: { path: '/-/live', port: 'http' }, initialDelaySeconds: 30, periodSeconds: 10, timeoutSeconds: 2, successThreshold: 1, failureThreshold: 6 })
    // a custom probe wins even over enabled: false
    expect(c.startupProbe).toEqual({ exec: { command: ['node', '-e', 'process.exit(0)'] }, failureThreshold: 30 })
    // without the custom readiness probe, the tuned one
    const tuned = container(render('probes.yaml'))
    expect(tuned.readinessProbe).toEqual({ httpGet: { path: '/-/ping', port: 'http' }, initialDelaySeconds: 5, periodSeconds: 5, timeoutSeconds: 2, successThreshold: 2, failureThreshold: 3 })
    expect(tuned.startupProbe).toBeUndefined()
  })

  it('existingSecret: no generated Secret, keys from the existing one; CPU-only HPA owns the replicas', () => {
    const objs = render('existing-secret.yaml')
    validateAll(objs)
    expect(objs.some((o) => o.kind === 'Secret')).toBe(false)
    const env = container(objs).env
    expect(env).toContainEqual(secretEnv('DB_ADAPTER_AUTH_ROOT_PASSWORD', 'db-adapter-credentials', 'password'))
    expect(env).toContainEqual(secretEnv('DB_ADAPTER_COLLAGENT_PASSWORD', 'db-adapter-credentials', 'password'))
    expect(env).toContainEqual(secretEnv('DB_ADAPTER_MONITOR_PASSWORD', 'db-adapter-credentials', 'password'))
    expect(env).toContainEqual(secretEnv('DB_ADAPTER_STORAGE_URL', 'db-adapter-credentials', 'url'))
    const hpa = one(objs, 'HorizontalPodAutoscaler')
    expect(hpa.spec.metrics.map((m: { resource: { name: string } }) => m.resource.name)).toEqual(['cpu'])
    expect(one(objs, 'Deployment').spec.replicas).toBeUndefined()
    expect(workload(objs).spec.template.metadata.annotations['checksum/secret']).toBeUndefined()
  })

  it('networkPolicy on: ingress to the HTTP and collectd ports from the given peers', () => {
    const objs = render('network-policy.yaml')
    validateAll(objs)
    const np = one(objs, 'NetworkPolicy')
    expect(np.spec.ingress[0].from[0].namespaceSelector.matchLabels).toEqual({ 'kubernetes.io/metadata.name': 'monitoring' })
    expect(np.spec.ingress[0].ports).toEqual([{ port: 'http', protocol: 'TCP' }, { port: 'collectd', protocol: 'UDP' }])
  })

  it('refuses inconsistent values with a clear message', () => {
    expect(renderError('postgres-no-url.yaml')).toMatch(/storage.mode=postgres needs storage.postgres.url/)
    expect(renderError('embedded-autoscaling.yaml')).toMatch(/autoscaling needs storage.mode=postgres/)
  })
})

describe.skipIf(kubectlNeed.skip)('k8s/ kustomize overlays', () => {
  const build = (overlay: string): Obj[] =>
    (loadAll(execFileSync('kubectl', ['kustomize', join(REPO, 'k8s/overlays', overlay)], { encoding: 'utf8' })) as Obj[]).filter(Boolean)

  for (const overlay of ['embedded', 'postgres']) {
    it(`${overlay}: valid objects, probes, env names the adapter reads, collectd on 6045/UDP in the -udp Service`, () => {
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
      // the collectd receiver, on as in the adapter, is declared and exposed over UDP only
      expect(config.collagent.enable).toBe(true)
      expect(c.ports).toContainEqual({ name: 'collectd', containerPort: config.collagent.port, protocol: 'UDP' })
      expect(config.collagent.port).toBe(6045)
      expect(one(objs, 'Service', '-udp').spec.ports).toEqual([{ name: 'collectd', port: 6045, targetPort: 'collectd', protocol: 'UDP' }])
      checkServices(objs)
      noPhantomReceivers(objs)
      // root, collectd and monitor passwords from the same Secret key
      const auth = c.env.find((e: { name: string }) => e.name === 'DB_ADAPTER_AUTH_ROOT_PASSWORD').valueFrom.secretKeyRef
      expect(one(objs, 'Secret').metadata.name).toBe(auth.name)
      for (const name of ['DB_ADAPTER_COLLAGENT_PASSWORD', 'DB_ADAPTER_MONITOR_PASSWORD']) {
        expect(c.env).toContainEqual({ name, valueFrom: { secretKeyRef: auth } })
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
