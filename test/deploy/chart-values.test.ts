/**
 * The chart under the value sets of test/deploy/values (some rendered over another:
 * collectd-port.yaml over receivers.yaml, telnet-on.yaml over both, existing-secret-monitor-key.yaml
 * over existing-secret.yaml, custom-probes.yaml over probes.yaml): each enabled receiver's port in
 * the container, the NetworkPolicy and the Service of its protocol and nowhere when it is off,
 * values the adapter would refuse refused, passwords and exporter credentials from the (existing)
 * Secret, probes, numbers printed as integers, the TOML file in a ConfigMap of its own.
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { CHART, COLLECTD_UDP, ENV_NAMES, HELM, RECEIVER_PASSWORDS, STATSD_UDP, adapterConfig, checkServices, container, ctrPort, envConfigMap, one, receiverPorts, render, renderError, renderNeed, renderText, renderer, secretEnv, svcPort, useRenderer, validateAll, valuesPath, workload } from './chart-lib.js'

useRenderer()

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
      'root-password': expect.stringMatching(/^[A-Za-z0-9]{24}$/),
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

