/**
 * The kustomize overlays (k8s/) built with `kubectl kustomize` (kubectl 1.21 or later; skipped
 * without it): valid objects, probes, env names the adapter reads, receiver ports in the Service of
 * their protocol, the components, and the root password the user must provide (no default).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { loadAll } from 'js-yaml'
import { afterAll, describe, expect, it } from 'vitest'
import { COLLECTD_UDP, ENV_NAMES, RECEIVER_PASSWORDS, REPO, STATSD_UDP, adapterConfig, checkServices, container, ctrPort, dir as libDir, kubectlNeed, one, receiverPorts, svcPort, validateAll } from './chart-lib.js'
import type { Obj } from './chart-lib.js'

/** a copy of k8s/ with the root password the user writes before the first build */
const dir = mkdtempSync(join(tmpdir(), 'kustomize-test-'))
const K8S = join(dir, 'k8s')
cpSync(join(REPO, 'k8s'), K8S, { recursive: true, filter: (src) => !src.endsWith('root-password.env') })
const PASSWORD = 'c0ffee-test-password'
writeFileSync(join(K8S, 'base/root-password.env'), `root-password=${PASSWORD}\n`)
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  rmSync(libDir, { recursive: true, force: true })
})

const kustomize = (at: string): Obj[] => (loadAll(execFileSync('kubectl', ['kustomize', at], { encoding: 'utf8' })) as Obj[]).filter(Boolean)

describe.skipIf(kubectlNeed.skip)('k8s/ kustomize overlays', () => {
  const build = (overlay: string): Obj[] => kustomize(join(K8S, 'overlays', overlay))

  it('have no default root password: the build fails naming the file to write; the written one lands in the Secret', () => {
    const bare = join(dir, 'bare')
    cpSync(join(REPO, 'k8s'), bare, { recursive: true, filter: (src) => !src.endsWith('root-password.env') })
    const r = spawnSync('kubectl', ['kustomize', join(bare, 'overlays/embedded')], { encoding: 'utf8' })
    expect(r.status).not.toBe(0)
    expect(r.stderr).toMatch(/root-password\.env/)
    const secret = one(build('embedded'), 'Secret')
    expect(Buffer.from(secret.data['root-password'], 'base64').toString()).toBe(PASSWORD)
  })

  it('logs to stdout only; a preStop sleep and the drain fit in the grace period', () => {
    const objs = build('embedded')
    const config = adapterConfig(objs)
    expect(config.log.enableFile).toBe(false)
    const c = container(objs)
    expect(c.lifecycle).toEqual({ preStop: { exec: { command: ['sleep', '5'] } } })
    expect(5000 + config.shutdown.gracePeriod).toBeLessThan(one(objs, 'Deployment').spec.template.spec.terminationGracePeriodSeconds * 1000)
  })

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
    const rel = (p: string) => relative(at, join(K8S, p))
    const kustomization = { resources: [rel(`overlays/${overlay}`)], components: components.map((c) => rel(`components/${c}`)) }
    writeFileSync(join(at, 'kustomization.yaml'), JSON.stringify(kustomization))
    return kustomize(at)
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

