/**
 * The kustomize overlays (k8s/) built with `kubectl kustomize` (kubectl 1.21 or later; skipped
 * without it): valid objects, probes, env names the adapter reads, receiver ports in the Service of
 * their protocol, the components, and the root password the user must provide (no default).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { loadAll } from 'js-yaml'
import { describe, expect, it } from 'vitest'
import { COLLECTD_UDP, ENV_NAMES, RECEIVER_PASSWORDS, REPO, STATSD_UDP, adapterConfig, checkServices, container, ctrPort, dir, kubectlNeed, one, receiverPorts, svcPort, validateAll } from './chart-lib.js'
import type { Obj } from './chart-lib.js'

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

