/**
 * The Helm chart (charts/db-adapter) with its default values (embedded storage), rendered for real
 * (chart-lib.ts) and checked: every object against the Kubernetes API schemas, ports against the
 * adapter's config, probes, security context, the env ConfigMap read by the adapter's own loader,
 * the generated root password, the headless Service, the drain fitting in the grace period, NOTES;
 * plus the Dockerfile's EXPOSE line and the renderer's Helm-like typing. The value sets are in
 * chart-values.test.ts, the ci/ variants and the optional objects in chart-ci.test.ts, the schema
 * in chart-schema.test.ts, the kustomize overlays in kustomize.test.ts.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadAll } from 'js-yaml'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/index.js'
import { CHART, COLLECTD_UDP, ENV_NAMES, HELM, RECEIVER_PASSWORDS, REPO, STATSD_UDP, adapterConfig, checkServices, container, ctrPort, dir, envConfigMap, one, render, renderNeed, renderer, secretEnv, svcPort, useRenderer, validateAll, valuesPath, workload } from './chart-lib.js'
import type { Obj } from './chart-lib.js'

useRenderer()

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
    // a preStop sleep lets endpoints stop routing; then the drain; both end before the kubelet's
    // SIGKILL, which counts from the hook's start
    expect(config.shutdown.gracePeriod).toBe(25_000)
    expect(c.lifecycle).toEqual({ preStop: { exec: { command: ['sleep', '5'] } } })
    expect(5000 + config.shutdown.gracePeriod).toBeLessThan(workload(objs).spec.template.spec.terminationGracePeriodSeconds * 1000)
    // logs to stdout only: no files on the data volume
    expect(config.log.enableFile).toBe(false)
    expect(envConfigMap(objs).data.DB_ADAPTER_LOG_ENABLE_FILE).toBe('false')
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
    expect(Object.keys(envConfigMap(objs).data).filter((k) => /PASSWORD|TOKEN/.test(k))).toEqual([])
  })

  it('no default password: a random one in the Secret, new at each render without a cluster (lookup finds none); a given one is used', () => {
    const first = one(objs, 'Secret').stringData
    expect(Object.keys(first)).toEqual(['root-password'])
    expect(first['root-password']).toMatch(/^[A-Za-z0-9]{24}$/)
    expect(first['root-password']).not.toBe('taosdata')
    expect(one(render(), 'Secret').stringData['root-password']).not.toBe(first['root-password'])
    expect(one(render('root-password.yaml'), 'Secret').stringData).toEqual({ 'root-password': 's3cret' })
  })

  it.skipIf(HELM)('an upgrade keeps the password the Secret holds (lookup; Go renderer with -cluster standing in for the cluster)', () => {
    const cluster = join(dir, 'cluster.yaml')
    const secret = (name: string, key: string, value: string) =>
      `apiVersion: v1\nkind: Secret\nmetadata: {name: ${name}, namespace: default}\ndata: {${key}: ${Buffer.from(value).toString('base64')}}\n`
    const upgrade = (...files: string[]): Obj[] =>
      (loadAll(execFileSync(renderer[0], ['-cluster', cluster, CHART, ...files.flatMap((f) => ['-f', valuesPath(f)])], { encoding: 'utf8' })) as Obj[]).filter(Boolean)
    writeFileSync(cluster, secret('release-db-adapter', 'root-password', 'kept-from-install'))
    const objs = upgrade()
    expect(one(objs, 'Secret').stringData).toEqual({ 'root-password': 'kept-from-install' })
    // so the pods do not roll for a password that did not change
    expect(workload(objs).spec.template.metadata.annotations['checksum/secret']).toBe(workload(upgrade()).spec.template.metadata.annotations['checksum/secret'])
    // a given password wins over the stored one; another release's Secret is not taken
    expect(one(upgrade('root-password.yaml'), 'Secret').stringData).toEqual({ 'root-password': 's3cret' })
    writeFileSync(cluster, secret('other-db-adapter', 'root-password', 'not-ours'))
    expect(one(upgrade(), 'Secret').stringData['root-password']).toMatch(/^[A-Za-z0-9]{24}$/)
  })

  it('the StatefulSet\'s serviceName is a headless Service on the HTTP port, left out of the ServiceMonitor', () => {
    const sts = one(objs, 'StatefulSet')
    const headless = one(objs, 'Service', '-headless')
    expect(sts.spec.serviceName).toBe(headless.metadata.name)
    expect(headless.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true, ports: [svcPort('http', 6041, 'TCP')] })
    expect(headless.spec.selector).toEqual(sts.spec.selector.matchLabels)
    const sm = one(render('postgres-3-replicas.yaml'), 'ServiceMonitor')
    expect(sm.spec.selector.matchExpressions).toEqual([{ key: 'app.kubernetes.io/component', operator: 'NotIn', values: ['headless'] }])
    expect(headless.metadata.labels?.['app.kubernetes.io/component']).toBe('headless')
    // postgres mode: a Deployment, no headless Service
    expect(render('postgres-3-replicas.yaml').some((o) => o.metadata.name.endsWith('-headless'))).toBe(false)
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
    expect(notes).toMatch(/root's password was generated at random .*Read it with:\n\n {2}kubectl -n default get secret release-db-adapter -o jsonpath='\{\.data\.root-password\}' \| base64 -d/)
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

