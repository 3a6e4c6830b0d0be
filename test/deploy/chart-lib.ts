/**
 * Shared by the chart and overlay tests (test/deploy/*.test.ts): rendering (`helm template` when
 * helm is on the PATH, else the test-only Go renderer in test/deploy/helm-render, built from
 * Debian's Go packages), validation against the Kubernetes API schemas (kubernetes-models; the
 * CRDs by the fields the chart relies on), and the facts several files check (ports, Services,
 * the env ConfigMap read by the adapter's own loader).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join } from 'node:path'
import { load, loadAll } from 'js-yaml'
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2'
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1'
import { ConfigMap, PersistentVolumeClaim, Pod, Secret, Service, ServiceAccount } from 'kubernetes-models/v1'
import { afterAll, beforeAll, expect } from 'vitest'
import { SCHEMA, loadConfig } from '../../src/config/index.js'
import { file, needDebianPackages, onPath, program } from '../lib/debian-package.js'

export const REPO = join(import.meta.dirname, '../..')
export const CHART = join(REPO, 'charts/db-adapter')
export const VALUES = join(REPO, 'test/deploy/values')
export const dir = mkdtempSync(join(tmpdir(), 'chart-test-'))
/** `helm template` when helm is on the PATH (it does not print NOTES.txt), else the Go renderer */
export const HELM = onPath('helm')
export const GOCODE = '/usr/share/gocode/src'
export const renderNeed = HELM
  ? { skip: false }
  : needDebianPackages('chart rendering (no helm: the Go renderer)', [
      { pkg: 'golang-go', present: program('go') },
      { pkg: 'golang-github-masterminds-sprig-dev', present: file(join(GOCODE, 'github.com/Masterminds/sprig')) },
      { pkg: 'golang-gopkg-yaml.v3-dev', present: file(join(GOCODE, 'gopkg.in/yaml.v3')) },
    ])
export const kubectlNeed = needDebianPackages('k8s/ kustomize overlays', [
  { pkg: 'kubectl', apt: false, present: program('kubectl'), hint: 'for `kubectl kustomize`, 1.21 or later: Debian 12 ships only 1.20' },
])
/** the renderer's command (set by useRenderer) */
export const renderer: string[] = []

export type Obj = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; [k: string]: any }

export const MODELS: Record<string, { validate(): void } extends never ? never : new (o: any) => { validate(): void }> = {
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
  'networking.k8s.io/v1/Ingress': Ingress,
}

/** every object validates against its Kubernetes schema (CRDs, which kubernetes-models lacks:
 * the fields we rely on) */
export function validateAll(objs: Obj[]): void {
  for (const o of objs) {
    const key = `${o.apiVersion}/${o.kind}`
    if (key === 'monitoring.coreos.com/v1/ServiceMonitor') {
      expect(o.spec.endpoints[0]).toMatchObject({ port: 'http', path: '/metrics' })
      expect(o.spec.selector.matchLabels).toBeTypeOf('object')
      continue
    }
    if (key === 'monitoring.coreos.com/v1/PrometheusRule') {
      for (const g of o.spec.groups) {
        expect(g.name).toBeTypeOf('string')
        for (const r of g.rules) {
          expect(r.alert ?? r.record, JSON.stringify(r)).toBeTypeOf('string')
          expect(r.expr, r.alert).toBeTypeOf('string')
        }
      }
      continue
    }
    if (key === 'gateway.networking.k8s.io/v1/HTTPRoute') {
      expect(o.spec.parentRefs.length).toBeGreaterThan(0)
      for (const ref of o.spec.parentRefs) {
        expect(ref.name).toBeTypeOf('string')
      }
      for (const rule of o.spec.rules) {
        expect(rule.backendRefs[0]).toMatchObject({ name: expect.any(String), port: expect.any(Number) })
      }
      continue
    }
    const Model = MODELS[key]
    expect(Model, `no schema for ${key}`).toBeDefined()
    expect(() => new Model(o).validate(), `${key} ${o.metadata.name}`).not.toThrow()
  }
}

/** a value file in test/deploy/values */
export const valuesPath = (f: string): string => (isAbsolute(f) ? f : join(VALUES, f))

export function renderText(...files: string[]): string {
  const args = [...renderer.slice(1), CHART, ...files.flatMap((f) => ['-f', valuesPath(f)])]
  return execFileSync(renderer[0], args, { encoding: 'utf8' })
}

export function render(...files: string[]): Obj[] {
  return (loadAll(renderText(...files)) as Obj[]).filter((o) => o !== null && o !== undefined)
}

export function renderError(...files: string[]): string {
  const r = spawnSync(renderer[0], [...renderer.slice(1), CHART, ...files.flatMap((f) => ['-f', valuesPath(f)])], { encoding: 'utf8' })
  expect(r.status, r.stdout).not.toBe(0)
  return r.stderr
}

export const one = (objs: Obj[], kind: string, suffix = ''): Obj => {
  const found = objs.filter((o) => o.kind === kind && o.metadata.name.endsWith(suffix))
  expect(found, `${kind}${suffix}`).toHaveLength(1)
  return found[0]
}
export const workload = (objs: Obj[]): Obj => objs.find((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet') as Obj
export const container = (objs: Obj[]) => workload(objs).spec.template.spec.containers[0]

/** The adapter's own variables: every env name its config schema reads. */
export const ENV_NAMES = new Set<string>(SCHEMA.flatMap((f) => f.env))

/** the ConfigMap the container projects with envFrom */
export function envConfigMap(objs: Obj[]): Obj {
  const refs = container(objs).envFrom.filter((e: { configMapRef?: unknown }) => e.configMapRef)
  expect(refs).toHaveLength(1)
  const found = objs.filter((o) => o.kind === 'ConfigMap' && o.metadata.name === refs[0].configMapRef.name)
  expect(found).toHaveLength(1)
  return found[0]
}

/** The env ConfigMap's variables, loaded by the adapter's real config loader. */
export function adapterConfig(objs: Obj[]) {
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

export type Port = { name: string; port?: number; containerPort?: number; targetPort?: string; protocol: string }

/** Every Service port targets a port the container declares, with the same protocol; the -udp
 * Service holds only UDP ports and the main one only TCP ports; port names are unique IANA
 * service names (at most 15 characters); no two container ports share a number and protocol. */
export function checkServices(objs: Obj[]): void {
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

/** the receivers' ports everywhere they appear: container, main (TCP) Service (not the headless one), -udp Service (none:
 * undefined), NetworkPolicy ingress (none: undefined), HTTP left out */
export function receiverPorts(objs: Obj[]) {
  const services = objs.filter((o) => o.kind === 'Service' && !o.metadata.name.endsWith('-headless'))
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

export const svcPort = (name: string, port: number, protocol: string) => ({ name, port, targetPort: name, protocol })
export const ctrPort = (name: string, containerPort: number, protocol: string) => ({ name, containerPort, protocol })
export const COLLECTD_UDP = svcPort('collectd', 6045, 'UDP')
export const STATSD_UDP = svcPort('statsd', 6044, 'UDP')

/** the variables of every database password the chart passes from the Secret */
export const RECEIVER_PASSWORDS = [
  'DB_ADAPTER_AUTH_ROOT_PASSWORD',
  'DB_ADAPTER_COLLAGENT_PASSWORD',
  'DB_ADAPTER_MONITOR_PASSWORD',
  'DB_ADAPTER_STATSAGENT_PASSWORD',
  'DB_ADAPTER_TSDBPROTO_TELNET_PASSWORD',
  'DB_ADAPTER_HOSTEXPORTER_PASSWORD',
]

export const secretEnv = (name: string, secret: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: secret, key } } })

/** the chart's values with the files over them, merged as Helm does (a null removes the key) */
export function mergedValues(...files: string[]): unknown {
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

/** Registers the hooks that build the renderer before a file's tests (helm when on the PATH) and
 * remove the scratch directory after them. Call once at the top level of each chart test file. */
export function useRenderer(): void {
  beforeAll(() => {
    if (HELM) {
      renderer.splice(0, renderer.length, 'helm', 'template', 'release')
      return
    }
    if (renderNeed.skip) {
      return
    }
    const bin = join(dir, 'helm-render')
    execFileSync('bash', [join(REPO, 'test/deploy/helm-render/build.sh'), bin], { stdio: 'inherit' })
    renderer.splice(0, renderer.length, bin)
  }, 180_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
}

