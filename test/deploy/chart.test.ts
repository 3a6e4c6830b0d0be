/**
 * The Helm chart (charts/db-adapter) and the kustomize overlays (k8s/), rendered for real and
 * checked: values against values.schema.json (ajv; bad sets rejected), every object against the
 * Kubernetes API schemas (kubernetes-models), and the facts that matter: ports match the
 * adapter's config, probes hit /-/ping and /-/live (or the custom ones given), every variable in
 * the env ConfigMap is one the adapter reads (the adapter's own loader parses them) and numbers
 * are printed as integers, the TOML file is in a ConfigMap of its own, each enabled receiver's
 * port is in the container, the NetworkPolicy and the Service of its protocol (collectd and StatsD
 * over UDP, on by default as in the adapter, in the -udp one; OpenTSDB telnet and StatsD over TCP
 * in the main one) and absent when it is off, values the adapter would refuse are refused,
 * passwords (root, receivers, monitor) and exporter credentials come from the (existing) Secret,
 * checksums roll the pods on config changes.
 *
 * Rendering: `helm template` when helm is on the PATH, else the test-only Go renderer in
 * test/deploy/helm-render (Go text/template + sprig from Debian, installed by
 * test/lib/debian-package.ts when they can be, else the rendering tests are skipped), which types
 * values as Helm does (every number a float64). The overlays need kubectl (not from Debian 12:
 * its kubernetes-client 1.20 is too old for them), skipped without it.
 *
 * Value sets: the files in test/deploy/values, some of them overlays rendered over another
 * (collectd-port.yaml over receivers.yaml, telnet-on.yaml over both, existing-secret-monitor-key.yaml over
 * existing-secret.yaml, custom-probes.yaml over probes.yaml); the schema must reject the bad-* ones.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
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

type Port = { name: string; port?: number; containerPort?: number; targetPort?: string; protocol: string }

/** Every Service port targets a port the container declares, with the same protocol; the -udp
 * Service holds only UDP ports and the main one only TCP ports; port names are unique IANA
 * service names (at most 15 characters); no two container ports share a number and protocol. */
function checkServices(objs: Obj[]): void {
  const ports: Port[] = container(objs).ports
  const declared = new Map(ports.map((p) => [p.name, p.protocol]))
  expect(declared.size, 'container port names are unique').toBe(ports.length)
  expect(new Set(ports.map((p) => `${p.protocol}/${p.containerPort}`)).size, 'one listener per port').toBe(ports.length)
  for (const svc of objs.filter((o) => o.kind === 'Service')) {
    const want = svc.metadata.name.endsWith('-udp') ? 'UDP' : 'TCP'
    expect(svc.spec.ports.length, svc.metadata.name).toBeGreaterThan(0)
    expect(new Set(svc.spec.ports.map((p: Port) => p.name)).size, `${svc.metadata.name}: unique port names`).toBe(svc.spec.ports.length)
    for (const p of svc.spec.ports as Port[]) {
      expect(p.name, svc.metadata.name).toMatch(/^(?=.{1,15}$)[a-z0-9]+(-[a-z0-9]+)*$/)
      expect(p.protocol, `${svc.metadata.name} ${p.name}`).toBe(want)
      expect(declared.get(p.targetPort as string), `${svc.metadata.name} ${p.name}`).toBe(p.protocol)
    }
  }
}

/** the receivers' ports everywhere they appear: container, main (TCP) Service, -udp Service (none:
 * undefined), NetworkPolicy ingress (none: undefined), HTTP and the management server left out */
function receiverPorts(objs: Obj[]) {
  const services = objs.filter((o) => o.kind === 'Service')
  const main = services.find((s) => !s.metadata.name.endsWith('-udp')) as Obj
  const udp = services.find((s) => s.metadata.name.endsWith('-udp'))
  const policy = objs.find((o) => o.kind === 'NetworkPolicy')
  const notHttp = (p: { name?: string; port?: unknown }) => !['http', 'manager'].includes(String(p.port)) && !['http', 'manager'].includes(String(p.name))
  return {
    container: (container(objs).ports as Port[]).filter(notHttp),
    tcp: (main.spec.ports as Port[]).filter(notHttp),
    udp: udp ? (udp.spec.ports as Port[]) : undefined,
    policy: policy ? policy.spec.ingress[0].ports.filter(notHttp) : undefined,
  }
}

const svcPort = (name: string, port: number, protocol: string) => ({ name, port, targetPort: name, protocol })
const ctrPort = (name: string, containerPort: number, protocol: string) => ({ name, containerPort, protocol })
const COLLECTD_UDP = svcPort('collectd', 6045, 'UDP')
const STATSD_UDP = svcPort('statsd', 6044, 'UDP')

/** the variables of every database password the chart passes from the Secret */
const RECEIVER_PASSWORDS = [
  'DB_ADAPTER_AUTH_ROOT_PASSWORD',
  'DB_ADAPTER_COLLAGENT_PASSWORD',
  'DB_ADAPTER_MONITOR_PASSWORD',
  'DB_ADAPTER_STATSAGENT_PASSWORD',
  'DB_ADAPTER_TSDBPROTO_TELNET_PASSWORD',
  'DB_ADAPTER_HOSTEXPORTER_PASSWORD',
]

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

describe('Dockerfile', () => {
  it('EXPOSEs exactly the ports something listens on with the adapter\'s defaults', () => {
    const expose = readFileSync(join(REPO, 'Dockerfile'), 'utf8').match(/^EXPOSE (.+)$/gm)
    expect(expose, 'one EXPOSE line').toHaveLength(1)
    const declared = (expose as string[])[0].slice('EXPOSE '.length).trim().split(/\s+/).sort()
    const d = loadConfig([], {}, { cwd: dir, defaultConfigPath: join(dir, 'none.toml') })
    if (d.kind !== 'run') {
      throw new Error('loader did not return a config')
    }
    const c = d.config
    const listening = [`${c.port}/tcp`]
    if (c.manager.enable) {
      listening.push(`${c.manager.port}/tcp`)
    }
    if (c.collagent.enable) {
      listening.push(`${c.collagent.port}/udp`)
    }
    if (c.statsagent.enable) {
      listening.push(`${c.statsagent.port}/${c.statsagent.protocol}`)
    }
    if (c.tsdbproto_telnet.enable) {
      listening.push(...c.tsdbproto_telnet.ports.map((p: number) => `${p}/tcp`))
    }
    expect(declared).toEqual(listening.sort())
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

  it('collectd and StatsD are on, as in the adapter: 6045/UDP and 6044/UDP in the container and in the -udp Service only; telnet off', () => {
    const c = container(objs)
    const config = adapterConfig(objs)
    expect(config.collagent.enable).toBe(true)
    expect(config.collagent.port).toBe(6045)
    expect(config.statsagent).toMatchObject({ enable: true, port: 6044, protocol: 'udp' })
    expect(config.tsdbproto_telnet.enable).toBe(false)
    expect(config.hostexporter.enable).toBe(false)
    expect(c.ports).toEqual([
      ctrPort('http', config.port, 'TCP'),
      ctrPort('manager', config.manager.port, 'TCP'),
      ctrPort('collectd', config.collagent.port, 'UDP'),
      ctrPort('statsd', config.statsagent.port, 'UDP'),
    ])
    expect(one(objs, 'Service', '-db-adapter').spec.ports).toEqual([svcPort('http', 6041, 'TCP'), svcPort('manager', 6060, 'TCP')])
    expect(one(objs, 'Service', '-udp').spec.ports).toEqual([COLLECTD_UDP, STATSD_UDP])
    checkServices(objs)
  })

  it('root, receiver and monitor passwords all come from the Secret\'s root-password key; no exporter credentials', () => {
    const env = container(objs).env
    for (const name of RECEIVER_PASSWORDS) {
      expect(env).toContainEqual(secretEnv(name, 'release-db-adapter', 'root-password'))
    }
    expect(env.map((e: { name: string }) => e.name).filter((n: string) => /HOSTEXPORTER_HTTP/.test(n))).toEqual([])
    expect(one(objs, 'Secret').stringData).toEqual({ 'root-password': 'taosdata' })
    expect(Object.keys(envConfigMap(objs).data).filter((k) => /PASSWORD|TOKEN/.test(k))).toEqual([])
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
    expect(notes).toMatch(/StatsD: release-db-adapter-udp.default:6044 \(UDP\)/)
    expect(notes).not.toMatch(/OpenTSDB telnet|node_exporter/)
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
    expect(one(objs, 'Service', '-udp').spec.ports).toEqual([svcPort('collectd', 25826, 'UDP'), STATSD_UDP])
    expect(container(objs).ports).toContainEqual({ name: 'collectd', containerPort: 25826, protocol: 'UDP' })
    // telnet ports configured but the receivers off: no port anywhere
    expect(receiverPorts(objs).tcp).toEqual([])
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

  it('collectd off: only StatsD in the UDP Service; collectd and StatsD off: no UDP Service, no receiver port anywhere', () => {
    let objs = render('no-collectd.yaml')
    validateAll(objs)
    checkServices(objs)
    expect(adapterConfig(objs).collagent.enable).toBe(false)
    expect(receiverPorts(objs)).toEqual({
      container: [ctrPort('statsd', 6044, 'UDP')],
      tcp: [],
      udp: [STATSD_UDP],
      policy: [{ port: 'statsd', protocol: 'UDP' }],
    })
    objs = render('no-collectd.yaml', 'statsagent-off.yaml')
    validateAll(objs)
    checkServices(objs)
    expect(adapterConfig(objs).statsagent.enable).toBe(false)
    expect(objs.some((o) => o.kind === 'Service' && o.metadata.name.endsWith('-udp'))).toBe(false)
    expect(container(objs).ports).toEqual([ctrPort('http', 6041, 'TCP'), ctrPort('manager', 6060, 'TCP')])
    expect(one(objs, 'NetworkPolicy').spec.ingress[0].ports).toEqual([{ port: 'http', protocol: 'TCP' }, { port: 'manager', protocol: 'TCP' }])
  })

  it('StatsD: on unless turned off (null leaves the adapter\'s default, "1" is on); off: its port nowhere', () => {
    for (const f of ['statsagent-null.yaml', 'statsagent-on-as-1.yaml']) {
      const objs = render(f)
      validateAll(objs)
      expect(adapterConfig(objs).statsagent.enable, f).toBe(true)
      expect(receiverPorts(objs).udp, f).toEqual([COLLECTD_UDP, STATSD_UDP])
    }
    const objs = render('statsagent-off.yaml')
    validateAll(objs)
    checkServices(objs)
    expect(adapterConfig(objs).statsagent.enable).toBe(false)
    expect(receiverPorts(objs)).toEqual({
      container: [ctrPort('collectd', 6045, 'UDP')],
      tcp: [],
      udp: [COLLECTD_UDP],
      policy: [{ port: 'collectd', protocol: 'UDP' }],
    })
  })

  it('StatsD over TCP: its port in the main Service and the container as TCP, not in the -udp Service', () => {
    const objs = render('statsagent-tcp.yaml')
    validateAll(objs)
    checkServices(objs)
    const config = adapterConfig(objs)
    expect(config.statsagent).toMatchObject({ enable: true, port: 8125, protocol: 'tcp' })
    expect(receiverPorts(objs)).toEqual({
      container: [ctrPort('collectd', 6045, 'UDP'), ctrPort('statsd', 8125, 'TCP')],
      tcp: [svcPort('statsd', 8125, 'TCP')],
      udp: [COLLECTD_UDP],
      policy: [{ port: 'collectd', protocol: 'UDP' }, { port: 'statsd', protocol: 'TCP' }],
    })
  })

  it('OpenTSDB telnet on: each of its ports a TCP port (telnet-0..3) of the container, the main Service and the NetworkPolicy', () => {
    const objs = render('telnet-on.yaml')
    validateAll(objs)
    checkServices(objs)
    const config = adapterConfig(objs)
    expect(config.tsdbproto_telnet.enable).toBe(true)
    expect(config.tsdbproto_telnet.ports).toEqual([6046, 6047, 6048, 6049])
    const names = ['telnet-0', 'telnet-1', 'telnet-2', 'telnet-3']
    const ports = receiverPorts(objs)
    expect(ports.tcp).toEqual(names.map((n, i) => svcPort(n, config.tsdbproto_telnet.ports[i], 'TCP')))
    expect(ports.container).toEqual([ctrPort('collectd', 6045, 'UDP'), ctrPort('statsd', 6044, 'UDP'), ...names.map((n, i) => ctrPort(n, 6046 + i, 'TCP'))])
    expect(ports.udp).toEqual([COLLECTD_UDP, STATSD_UDP])
    expect(ports.policy).toEqual([{ port: 'collectd', protocol: 'UDP' }, { port: 'statsd', protocol: 'UDP' }, ...names.map((port) => ({ port, protocol: 'TCP' }))])
    // ports from the config (a list of two, paired with two databases)
    const two = render('receivers.yaml', 'collectd-port.yaml', 'telnet-on.yaml')
    checkServices(two)
    expect(receiverPorts(two).tcp).toEqual([svcPort('telnet-0', 16046, 'TCP'), svcPort('telnet-1', 16047, 'TCP')])
  })

  it.skipIf(HELM)('NOTES name the enabled receivers\' endpoints and databases', () => {
    const notes = (...files: string[]) => execFileSync(renderer[0], ['-notes', CHART, ...files.flatMap((f) => ['-f', valuesPath(f)])], { encoding: 'utf8' })
    const telnet = notes('telnet-on.yaml')
    expect(telnet).toMatch(/release-db-adapter.default:6046 \(TCP, no client authentication\); points land in database tsdbproto_telnet/)
    expect(telnet).toMatch(/release-db-adapter.default:6049 \(TCP, no client authentication\); points land in database agentc_tsdb/)
    expect(notes('statsagent-tcp.yaml')).toMatch(/StatsD: release-db-adapter.default:8125 \(TCP\)/)
    expect(notes('statsagent-off.yaml')).not.toMatch(/StatsD/)
    expect(notes('hostexporter-on.yaml')).toMatch(/node_exporter scraper: every 5s from https:\/\/node-exporter.monitoring:9100,unix:\/\/\/run\/node-exporter\/ne.sock into database hostexporter/)
  })

  it('node_exporter scraper on: no port, exporter credentials from the Secret, the certificate Secret and extra volumes mounted', () => {
    const objs = render('hostexporter-on.yaml')
    validateAll(objs)
    checkServices(objs)
    const config = adapterConfig(objs)
    expect(config.hostexporter).toMatchObject({ enable: true, httpUsername: 'scraper', insecureSkipVerify: false })
    expect(config.hostexporter.urls).toEqual(['https://node-exporter.monitoring:9100', 'unix:///run/node-exporter/ne.sock'])
    // the same receiver ports as the defaults
    expect(receiverPorts(objs).container).toEqual(receiverPorts(render()).container)
    expect(one(objs, 'Secret').stringData).toEqual({
      'root-password': 'taosdata',
      'hostexporter-http-password': 'ne-pw',
      'hostexporter-http-bearer-token': 'ne-token',
    })
    const c = container(objs)
    expect(c.env).toContainEqual(secretEnv('DB_ADAPTER_HOSTEXPORTER_HTTP_PASSWORD', 'release-db-adapter', 'hostexporter-http-password'))
    expect(c.env).toContainEqual(secretEnv('DB_ADAPTER_HOSTEXPORTER_HTTP_BEARER_TOKEN_STRING', 'release-db-adapter', 'hostexporter-http-bearer-token'))
    expect(c.env).toContainEqual(secretEnv('DB_ADAPTER_HOSTEXPORTER_PASSWORD', 'release-db-adapter', 'root-password'))
    for (const e of c.env) {
      expect(ENV_NAMES.has(e.name), e.name).toBe(true)
    }
    // the CA file the config names is in the mounted Secret
    const tls = c.volumeMounts.find((m: { name: string }) => m.name === 'hostexporter-tls')
    expect(tls).toEqual({ name: 'hostexporter-tls', mountPath: '/etc/db-adapter/hostexporter-tls', readOnly: true })
    expect(config.hostexporter.caCertFile.startsWith(`${tls.mountPath}/`)).toBe(true)
    const volumes = workload(objs).spec.template.spec.volumes
    expect(volumes).toContainEqual({ name: 'hostexporter-tls', secret: { secretName: 'node-exporter-ca', defaultMode: 0o440 } })
    expect(volumes).toContainEqual({ name: 'ne-socket', hostPath: { path: '/run/node-exporter', type: 'Directory' } })
    expect(c.volumeMounts).toContainEqual({ name: 'ne-socket', mountPath: '/run/node-exporter', readOnly: true })
  })

  it('refuses what the adapter would refuse at start: a StatsD protocol other than udp/tcp, unpaired telnet ports, two listeners on one port', () => {
    expect(renderError('statsagent-bad-protocol.yaml')).toMatch(/config.statsagent.protocol is "sctp": it must be udp or tcp/)
    expect(renderError('telnet-unpaired.yaml')).toMatch(
      /config.tsdbproto_telnet.ports \(2: 7001,7002\) and config.tsdbproto_telnet.dbs \(4: tsdbproto_telnet,collagent_tsdb,agentb_tsdb,agentc_tsdb\) pair by position/,
    )
    expect(renderError('port-clash.yaml')).toMatch(/config.statsagent.port and config.tsdbproto_telnet.ports both use TCP port 6047/)
  })

  it('passwords: rootPassword carries the receivers\' and monitor\'s passwords; each can have its own', () => {
    let objs = render('root-password.yaml')
    expect(one(objs, 'Secret').stringData).toEqual({ 'root-password': 's3cret' })
    for (const name of RECEIVER_PASSWORDS) {
      expect(container(objs).env).toContainEqual(secretEnv(name, 'release-db-adapter', 'root-password'))
    }
    objs = render('own-passwords.yaml')
    validateAll(objs)
    expect(one(objs, 'Secret').stringData).toEqual({
      'root-password': 's3cret',
      'collagent-password': 'collectd-pw',
      'monitor-password': 'monitor-pw',
      'statsagent-password': 'statsd-pw',
      'tsdbproto-telnet-password': 'telnet-pw',
      'hostexporter-password': 'hostexporter-pw',
    })
    const env = container(objs).env
    const keys = ['root-password', 'collagent-password', 'monitor-password', 'statsagent-password', 'tsdbproto-telnet-password', 'hostexporter-password']
    RECEIVER_PASSWORDS.forEach((name, i) => expect(env).toContainEqual(secretEnv(name, 'release-db-adapter', keys[i])))
    // an existing Secret: its root key unless a key of their own is named; exporter credentials
    // only when a key is named
    objs = render('existing-secret.yaml', 'existing-secret-monitor-key.yaml')
    expect(objs.some((o) => o.kind === 'Secret')).toBe(false)
    const existing = container(objs).env
    expect(existing).toContainEqual(secretEnv('DB_ADAPTER_COLLAGENT_PASSWORD', 'creds', 'password'))
    expect(existing).toContainEqual(secretEnv('DB_ADAPTER_STATSAGENT_PASSWORD', 'creds', 'password'))
    expect(existing).toContainEqual(secretEnv('DB_ADAPTER_MONITOR_PASSWORD', 'creds', 'monitor'))
    expect(existing).toContainEqual(secretEnv('DB_ADAPTER_TSDBPROTO_TELNET_PASSWORD', 'creds', 'telnet'))
    expect(existing).toContainEqual(secretEnv('DB_ADAPTER_HOSTEXPORTER_HTTP_BEARER_TOKEN_STRING', 'creds', 'ne-token'))
    expect(existing.some((e: { name: string }) => e.name === 'DB_ADAPTER_HOSTEXPORTER_HTTP_PASSWORD')).toBe(false)
    // a password or token in config would land in the ConfigMap
    expect(renderError('password-in-config.yaml')).toMatch(
      /config.collagent.password is a secret and would land in the ConfigMap: set auth.collagentPassword \(stored in the generated Secret\), or its key in auth.existingSecret \(auth.secretKeys.collagentPassword\)/,
    )
    expect(renderError('token-in-config.yaml')).toMatch(/config.hostexporter.httpBearerTokenString is a secret and would land in the ConfigMap: set auth.hostexporterHttpBearerToken/)
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
    expect(env).toContainEqual(secretEnv('DB_ADAPTER_HOSTEXPORTER_PASSWORD', 'db-adapter-credentials', 'password'))
    expect(env).toContainEqual(secretEnv('DB_ADAPTER_STORAGE_URL', 'db-adapter-credentials', 'url'))
    const hpa = one(objs, 'HorizontalPodAutoscaler')
    expect(hpa.spec.metrics.map((m: { resource: { name: string } }) => m.resource.name)).toEqual(['cpu'])
    expect(one(objs, 'Deployment').spec.replicas).toBeUndefined()
    expect(workload(objs).spec.template.metadata.annotations['checksum/secret']).toBeUndefined()
  })

  it('networkPolicy on: ingress to the HTTP, management, collectd and StatsD ports from the given peers', () => {
    const objs = render('network-policy.yaml')
    validateAll(objs)
    const np = one(objs, 'NetworkPolicy')
    expect(np.spec.ingress[0].from[0].namespaceSelector.matchLabels).toEqual({ 'kubernetes.io/metadata.name': 'monitoring' })
    expect(np.spec.ingress[0].ports).toEqual([{ port: 'http', protocol: 'TCP' }, { port: 'manager', protocol: 'TCP' }, { port: 'collectd', protocol: 'UDP' }, { port: 'statsd', protocol: 'UDP' }])
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
    it(`${overlay}: valid objects, probes, env names the adapter reads, collectd and StatsD on 6045/6044 UDP in the -udp Service`, () => {
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
      // the collectd and StatsD receivers, on as in the adapter, are declared and exposed over UDP
      // only; the telnet receivers and the scraper are off
      expect(config.collagent).toMatchObject({ enable: true, port: 6045 })
      expect(config.statsagent).toMatchObject({ enable: true, port: 6044, protocol: 'udp' })
      expect(config.tsdbproto_telnet.enable).toBe(false)
      expect(config.hostexporter.enable).toBe(false)
      expect(receiverPorts(objs)).toEqual({
        container: [ctrPort('collectd', 6045, 'UDP'), ctrPort('statsd', 6044, 'UDP')],
        tcp: [],
        udp: [COLLECTD_UDP, STATSD_UDP],
        policy: undefined,
      })
      checkServices(objs)
      // root, receiver and monitor passwords from the same Secret key
      const auth = c.env.find((e: { name: string }) => e.name === 'DB_ADAPTER_AUTH_ROOT_PASSWORD').valueFrom.secretKeyRef
      expect(one(objs, 'Secret').metadata.name).toBe(auth.name)
      for (const name of RECEIVER_PASSWORDS) {
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

  /** an overlay in a temporary directory: the given overlay plus components of k8s/components
   * (kustomize wants relative paths) */
  const withComponents = (overlay: string, components: string[]): Obj[] => {
    const at = mkdtempSync(join(dir, 'overlay-'))
    const rel = (p: string) => relative(at, join(REPO, 'k8s', p))
    const kustomization = { resources: [rel(`overlays/${overlay}`)], components: components.map((c) => rel(`components/${c}`)) }
    writeFileSync(join(at, 'kustomization.yaml'), JSON.stringify(kustomization))
    return (loadAll(execFileSync('kubectl', ['kustomize', at], { encoding: 'utf8' })) as Obj[]).filter(Boolean)
  }

  it('components: OpenTSDB telnet on TCP 6046-6049 and StatsD over TCP in the main Service, the node_exporter scraper on', () => {
    const objs = withComponents('postgres', ['opentsdb-telnet', 'statsd-tcp', 'hostexporter'])
    validateAll(objs)
    checkServices(objs)
    const config = adapterConfig(objs)
    expect(config.tsdbproto_telnet).toMatchObject({ enable: true, ports: [6046, 6047, 6048, 6049] })
    expect(config.statsagent).toMatchObject({ enable: true, port: 6044, protocol: 'tcp' })
    expect(config.hostexporter).toMatchObject({ enable: true, urls: ['http://node-exporter.monitoring:9100'] })
    const telnet = config.tsdbproto_telnet.ports.map((port: number, i: number) => [`telnet-${i}`, port] as const)
    expect(receiverPorts(objs)).toEqual({
      container: [ctrPort('collectd', 6045, 'UDP'), ctrPort('statsd', 6044, 'TCP'), ...telnet.map(([n, p]) => ctrPort(n, p, 'TCP'))],
      tcp: [...telnet.map(([n, p]) => svcPort(n, p, 'TCP')), svcPort('statsd', 6044, 'TCP')],
      udp: [COLLECTD_UDP],
      policy: undefined,
    })
    // each component alone on the other overlay
    const telnetOnly = withComponents('embedded', ['opentsdb-telnet'])
    checkServices(telnetOnly)
    expect(receiverPorts(telnetOnly).udp).toEqual([COLLECTD_UDP, STATSD_UDP])
    expect(receiverPorts(telnetOnly).tcp.map((p) => p.name)).toEqual(['telnet-0', 'telnet-1', 'telnet-2', 'telnet-3'])
    const tcpStatsd = withComponents('embedded', ['statsd-tcp'])
    checkServices(tcpStatsd)
    expect(receiverPorts(tcpStatsd).tcp).toEqual([svcPort('statsd', 6044, 'TCP')])
    expect(adapterConfig(withComponents('embedded', ['hostexporter'])).hostexporter.enable).toBe(true)
  })
})
