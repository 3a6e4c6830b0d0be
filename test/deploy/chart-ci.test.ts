/**
 * The chart's ci/*-values.yaml variants (embedded with the observability objects, PostgreSQL with
 * an existing Secret and an image by digest, every receiver over split TCP/UDP LoadBalancers, a
 * NetworkPolicy, an Ingress and an HTTPRoute), each rendered and validated against the Kubernetes
 * schemas (CRDs by the fields relied on), and the optional pod parts: image registry and digest,
 * pull Secrets, init and sidecar containers, lifecycle, the grace-period check.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { dump } from 'js-yaml'
import { afterAll, describe, expect, it } from 'vitest'
import { CHART, adapterConfig, checkServices, container, one, render, renderError, renderNeed, secretEnv, svcPort, useRenderer, validateAll, workload } from './chart-lib.js'
import type { Obj } from './chart-lib.js'

useRenderer()

const CI = join(CHART, 'ci')
const ci = (name: string): Obj[] => render(join(CI, `${name}-values.yaml`))
const scratch = mkdtempSync(join(tmpdir(), 'chart-ci-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
let n = 0
/** a values file written from `values` */
const valuesFile = (values: unknown): string => {
  const f = join(scratch, `values-${n++}.yaml`)
  writeFileSync(f, dump(values))
  return f
}

describe.skipIf(renderNeed.skip)('chart: the ci/ variants', () => {
  it('each renders valid objects whose Service ports match the container', () => {
    const names = readdirSync(CI).map((f) => f.replace(/-values\.yaml$/, ''))
    expect(names.sort()).toEqual(['embedded', 'ingress', 'network-policy', 'postgres-existing-secret', 'receivers'])
    for (const name of names) {
      const objs = ci(name)
      validateAll(objs)
      checkServices(objs)
    }
  })

  it('embedded: ServiceMonitor, PrometheusRule with the runbook alerts, dashboard ConfigMap for the Grafana sidecar, priorityClassName', () => {
    const objs = ci('embedded')
    expect(workload(objs).spec.template.spec.priorityClassName).toBe('system-cluster-critical')
    const rule = one(objs, 'PrometheusRule')
    const alerts = rule.spec.groups[0].rules
    expect(alerts.map((r: { alert: string }) => r.alert)).toEqual([
      'DbAdapterScrapeAbsent',
      'DbAdapterMemoryGatePaused',
      'DbAdapterHigh503Rate',
      'DbAdapterWriteRejections',
      'DbAdapterReceiverDrops',
      'DbAdapterStorageUnreachable',
    ])
    const readme = readFileSync(join(CHART, 'README.md'), 'utf8')
    for (const r of alerts) {
      expect(r.labels).toMatchObject({ severity: expect.stringMatching(/^(warning|critical)$/), team: 'platform' })
      expect(r.annotations.runbook).toBe(`db-adapter chart README, Runbooks, ${r.alert}`)
      expect(readme, `runbook of ${r.alert}`).toContain(`### ${r.alert}\n`)
    }
    // scoped to this release's series
    expect(alerts[1].expr).toContain('namespace="default", service="release-db-adapter"')
    const dashboard = one(objs, 'ConfigMap', '-dashboard')
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe('1')
    expect(dashboard.metadata.annotations).toEqual({ grafana_folder: 'Databases' })
    const json = JSON.parse(dashboard.data['db-adapter.json'])
    expect(json).toEqual(JSON.parse(readFileSync(join(CHART, 'dashboards/db-adapter.json'), 'utf8')))
    expect(json.uid).toBe('db-adapter')
  })

  it('postgres with an existing Secret: image from the global registry by digest, pull Secrets merged, no generated Secret', () => {
    const objs = ci('postgres-existing-secret')
    const pod = workload(objs).spec.template.spec
    expect(one(objs, 'Deployment').spec.replicas).toBe(3)
    expect(container(objs).image).toBe('registry.example.com/db-adapter@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef')
    expect(pod.imagePullSecrets).toEqual([{ name: 'mirror-pull' }])
    expect(objs.some((o) => o.kind === 'Secret')).toBe(false)
    expect(container(objs).env).toContainEqual(secretEnv('DB_ADAPTER_AUTH_ROOT_PASSWORD', 'db-adapter-credentials', 'password'))
    expect(container(objs).env).toContainEqual(secretEnv('DB_ADAPTER_STORAGE_URL', 'db-adapter-credentials', 'url'))
    expect(one(objs, 'PodDisruptionBudget').spec.maxUnavailable).toBe(1)
  })

  it('every receiver on: UDP in the -udp LoadBalancer, StatsD over TCP and the telnet listeners in the main one', () => {
    const objs = ci('receivers')
    const config = adapterConfig(objs)
    expect(config.hostexporter.enable).toBe(true)
    const main = one(objs, 'Service', '-db-adapter')
    const udp = one(objs, 'Service', '-udp')
    expect(main.spec.type).toBe('LoadBalancer')
    expect(udp.spec.type).toBe('LoadBalancer')
    expect(udp.spec.ports).toEqual([svcPort('collectd', 6045, 'UDP')])
    expect(main.spec.ports).toEqual([
      svcPort('http', 6041, 'TCP'),
      svcPort('manager', 6060, 'TCP'),
      svcPort('statsd', 6044, 'TCP'),
      ...[6046, 6047, 6048, 6049].map((p, i) => svcPort(`telnet-${i}`, p, 'TCP')),
    ])
  })

  it('networkPolicy: the given peers to HTTP and the receivers\' ports', () => {
    const np = one(ci('network-policy'), 'NetworkPolicy')
    expect(np.spec.ingress[0].from).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
      { podSelector: { matchLabels: { role: 'writer' } } },
    ])
    expect(np.spec.ingress[0].ports.map((p: { port: string }) => p.port)).toEqual(['http', 'manager', 'collectd', 'statsd'])
  })

  it('ingress and httpRoute: both route to the main Service\'s HTTP port', () => {
    const objs = ci('ingress')
    const ing = one(objs, 'Ingress')
    expect(ing.spec.ingressClassName).toBe('nginx')
    expect(ing.spec.tls).toEqual([{ hosts: ['adapter.example.com'], secretName: 'adapter-tls' }])
    expect(ing.spec.rules).toEqual([
      {
        host: 'adapter.example.com',
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'release-db-adapter', port: { name: 'http' } } } }] },
      },
    ])
    const route = one(objs, 'HTTPRoute')
    expect(route.spec.parentRefs).toEqual([{ name: 'shared-gateway', namespace: 'gateway-system' }])
    expect(route.spec.hostnames).toEqual(['adapter.example.com'])
    expect(route.spec.rules).toEqual([{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: 'release-db-adapter', port: 6041 }] }])
    // off by default
    expect(render().some((o) => o.kind === 'Ingress' || o.kind === 'HTTPRoute' || o.kind === 'PrometheusRule')).toBe(false)
    expect(render().some((o) => o.metadata.name.endsWith('-dashboard'))).toBe(false)
  })
})

describe.skipIf(renderNeed.skip)('chart: pod extras', () => {
  it('image registry and tag; init and sidecar containers, volumes and a lifecycle of one\'s own', () => {
    const objs = render(valuesFile({
      image: { registry: 'quay.example', tag: '9.9.9' },
      imagePullSecrets: [{ name: 'own' }, 'own'],
      initContainers: [{ name: 'wait', image: 'busybox', command: ['true'] }],
      extraContainers: [{ name: 'shipper', image: 'fluent-bit' }],
      extraVolumes: [{ name: 'scratch', emptyDir: {} }],
      extraVolumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
      lifecycle: { preStop: { sleep: { seconds: 3 } } },
    }))
    validateAll(objs)
    const pod = workload(objs).spec.template.spec
    expect(pod.containers.map((c: { name: string }) => c.name)).toEqual(['db-adapter', 'shipper'])
    expect(container(objs).image).toBe('quay.example/db-adapter:9.9.9')
    expect(pod.imagePullSecrets).toEqual([{ name: 'own' }])
    expect(pod.initContainers).toEqual([{ name: 'wait', image: 'busybox', command: ['true'] }])
    expect(pod.volumes).toContainEqual({ name: 'scratch', emptyDir: {} })
    expect(container(objs).volumeMounts).toContainEqual({ name: 'scratch', mountPath: '/scratch' })
    expect(container(objs).lifecycle).toEqual({ preStop: { sleep: { seconds: 3 } } })
    expect(pod.priorityClassName).toBeUndefined()
    // no preStop hook at 0
    expect(container(render(valuesFile({ preStopSleepSeconds: 0 }))).lifecycle).toBeUndefined()
  })

  it('refuses a drain that cannot end before SIGKILL, and an HTTPRoute without a Gateway', () => {
    expect(renderError(valuesFile({ terminationGracePeriodSeconds: 30 }))).toMatch(
      /preStopSleepSeconds \(5s\) \+ config.shutdown.gracePeriod \(25000ms\) must stay below terminationGracePeriodSeconds \(30s\)/,
    )
    expect(renderError(valuesFile({ config: { 'shutdown.gracePeriod': '1m' } }))).toMatch(/config.shutdown.gracePeriod \(60000ms\)/)
    expect(() => render(valuesFile({ config: { 'shutdown.gracePeriod': '1m' }, terminationGracePeriodSeconds: 70 }))).not.toThrow()
    expect(renderError(valuesFile({ httpRoute: { enabled: true } }))).toMatch(/httpRoute.enabled needs httpRoute.parentRefs/)
  })
})
