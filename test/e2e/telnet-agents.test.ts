/**
 * End-to-end with the real agents that speak OpenTSDB telnet (Debian packages, installed by
 * test/lib/debian-package.ts when they can be, else skipped with one line):
 *  - collectd 5.12's write_tsdb plugin: memory and load every second to the telnet receiver, the
 *    same values to its csv plugin; every CSV value must be in the adapter at the same second;
 *  - icinga2 2.13's OpenTsdbWriter, run in the foreground with its own state folders: dummy host
 *    and service checks every second with performance data, until RUN_SECONDS host checks are
 *    stored; their state and perfdata values land in the receiver's database as icinga2 sent them.
 * Both read back through /rest/sql; no line may be counted malformed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningAdapter } from '../../src/lifecycle.js'
import { sqlRows, startIngestServer } from '../ingest/server.js'
import { file, needDebianPackages } from '../lib/debian-package.js'
import { collectdConfHead } from '../lib/collectd-conf.js'

const COLLECTD = '/usr/sbin/collectd'
const ICINGA2 = '/usr/sbin/icinga2'
const HOST = 'e2e-telnet'
const RUN_SECONDS = 5

const needCollectd = needDebianPackages('real collectd write_tsdb end-to-end', [{ pkg: 'collectd-core', present: file(COLLECTD) }])
const needIcinga = needDebianPackages('real icinga2 OpenTsdbWriter end-to-end', [{ pkg: 'icinga2', present: file(ICINGA2) }])
const dir = mkdtempSync(join(tmpdir(), 'telnet-agents-'))
let adapter: RunningAdapter | undefined
let collectdLog = ''
let icingaLog = ''

/** runs `cmd` until `done` (polled, at most 40 s), then SIGTERM and waits for its exit */
async function runUntil(cmd: string, args: string[], log: (s: string) => void, done: () => Promise<boolean>): Promise<void> {
  const child: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout?.on('data', (d: Buffer) => log(d.toString()))
  child.stderr?.on('data', (d: Buffer) => log(d.toString()))
  const exited = new Promise((r) => child.once('exit', r))
  const deadline = Date.now() + 40_000
  while (Date.now() < deadline && child.exitCode === null && !(await done())) {
    await new Promise((r) => setTimeout(r, 250))
  }
  child.kill('SIGTERM')
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(killer)
}

beforeAll(async () => {
  if (needCollectd.skip && needIcinga.skip) {
    return
  }
  adapter = await startIngestServer((c) => {
    c.tsdbproto_telnet.enable = true
    c.tsdbproto_telnet.ports = [0, 0]
    c.tsdbproto_telnet.dbs = ['collectd', 'icinga2']
  })
  const [collectdPort, icingaPort] = adapter.receivers.map((r) => r.port)
  const runs: Array<Promise<void>> = []
  if (!needCollectd.skip) {
    const conf = join(dir, 'collectd.conf')
    writeFileSync(
      conf,
      `${collectdConfHead(dir, HOST)}LoadPlugin memory
LoadPlugin load
LoadPlugin csv
<Plugin csv>
  DataDir "${dir}/csv"
  StoreRates false
</Plugin>
LoadPlugin write_tsdb
<Plugin write_tsdb>
  <Node "adapter">
    Host "127.0.0.1"
    Port "${collectdPort}"
    HostTags "env=e2e"
    StoreRates false
    AlwaysAppendDS false
  </Node>
</Plugin>
`,
    )
    const check = spawnSync(COLLECTD, ['-t', '-C', conf], { encoding: 'utf8' })
    if (check.status !== 0) {
      throw new Error(`collectd -t rejected the configuration: ${check.stdout}${check.stderr}`)
    }
    const started = Date.now()
    runs.push(runUntil(COLLECTD, ['-f', '-C', conf], (s) => (collectdLog += s), () => Promise.resolve(Date.now() - started >= RUN_SECONDS * 1000)))
  }
  if (!needIcinga.skip) {
    const root = join(dir, 'icinga2')
    for (const sub of ['lib', 'cache', 'log', 'spool', 'run/icinga2']) {
      mkdirSync(join(root, sub), { recursive: true })
    }
    const conf = join(root, 'icinga2.conf')
    writeFileSync(
      conf,
      `include <itl>
object CheckerComponent "checker" { }
object OpenTsdbWriter "opentsdb" {
  host = "127.0.0.1"
  port = ${icingaPort}
}
object Host "${HOST}" {
  check_command = "dummy"
  check_interval = 1s
  vars.dummy_state = 0
  vars.dummy_text = "up|load=0.5;1;2;0 users=3"
}
object Service "ping" {
  host_name = "${HOST}"
  check_command = "dummy"
  check_interval = 1s
  vars.dummy_text = "fine|rta=0.25ms pl=0%"
}
`,
    )
    // its own state, cache, log and PID folders: nothing of a system icinga2 is touched
    const defines = Object.entries({
      DataDir: 'lib',
      StateDir: 'lib',
      CacheDir: 'cache',
      LogDir: 'log',
      SpoolDir: 'spool',
      InitRunDir: 'run',
      PidPath: 'run/icinga2.pid',
      VarsPath: 'cache/icinga2.vars',
      ObjectsPath: 'cache/icinga2.debug',
    }).map(([k, v]) => `-D${k}=${join(root, v)}`)
    const user = process.getuid?.() === 0 ? ['-DRunAsUser=root', '-DRunAsGroup=root'] : []
    // its OpenTsdbWriter sometimes connects only at its 10 s reconnect timer: run until
    // RUN_SECONDS host checks are stored
    const hostChecks = async (): Promise<boolean> => {
      try {
        const rows = await sqlRows(adapter?.url ?? '', `select count(*) from icinga2.icinga_host_state where host = '${HOST}'`)
        return Number(rows[0][0]) >= RUN_SECONDS
      } catch {
        return false
      }
    }
    runs.push(runUntil(ICINGA2, ['daemon', '-c', conf, ...defines, ...user], (s) => (icingaLog += s), hostChecks))
  }
  await Promise.all(runs)
}, 90_000)

afterAll(async () => {
  await adapter?.stop()
  rmSync(dir, { recursive: true, force: true })
})

async function malformed(): Promise<number> {
  const text = await (await fetch(`${adapter?.url}/metrics`)).text()
  const m = /^db_adapter_receiver_packets_total\{receiver="tsdbproto_telnet",result="malformed"\} (\S+)$/m.exec(text)
  return m === null ? 0 : Number(m[1])
}

/** collectd's CSV rows of a file pattern as `[epoch seconds (rounded), values...]` */
function csvRows(sub: string, prefix: string): number[][] {
  const folder = join(dir, 'csv', HOST, sub)
  const out: number[][] = []
  for (const f of readdirSync(folder).filter((n) => n.startsWith(prefix))) {
    for (const line of readFileSync(join(folder, f), 'utf8').trim().split('\n').slice(1)) {
      const [epoch, ...values] = line.split(',').map(Number)
      out.push([Math.round(epoch), ...values])
    }
  }
  return out.sort((a, b) => a[0] - b[0])
}

describe.skipIf(needCollectd.skip)('real collectd write_tsdb -> telnet receiver', () => {
  it('stores every memory and load value collectd reports, at the second it gave', async () => {
    const used = csvRows('memory', 'memory-used-')
    expect(used.length, collectdLog).toBeGreaterThanOrEqual(RUN_SECONDS - 2)
    const rows = async (table: string): Promise<number[][]> =>
      (await sqlRows(adapter?.url ?? '', `select cast(_ts as bigint) / 1000000000, _value from collectd.${table} where fqdn = '${HOST}' and env = 'e2e' order by _ts`)).map((r) => r.map(Number))
    // write_tsdb sends memory.used.memory and load.load.shortterm; super table names get _ for .
    const stables = (await sqlRows(adapter?.url ?? '', 'show collectd.stables')).map((r) => String(r[0]))
    expect(stables, collectdLog).toEqual(expect.arrayContaining(['memory_used_memory', 'memory_free_memory', 'load_load_shortterm']))
    expect(await rows('memory_used_memory')).toEqual(used.map(([t, v]) => [t, v]))
    // load: three data sources, one metric each
    const load = csvRows('load', 'load-')
    for (const [i, ds] of ['shortterm', 'midterm', 'longterm'].entries()) {
      // the CSV prints six decimals (%f), write_tsdb sends more: equal within the CSV's rounding
      const stored = await rows(`load_load_${ds}`)
      const csv = load.map((r) => [r[0], r[1 + i]])
      expect(stored.map((r) => r[0]), ds).toEqual(csv.map((r) => r[0]))
      stored.forEach(([t, v], k) => expect(Math.abs(v - csv[k][1]), `${ds} at ${t}: ${v} vs ${csv[k][1]}`).toBeLessThanOrEqual(0.5e-6 + 1e-12))
    }
    expect(await malformed()).toBe(0)
  })
})

describe.skipIf(needIcinga.skip)('real icinga2 OpenTsdbWriter -> telnet receiver', () => {
  it('stores the check results and performance data icinga2 sends', async () => {
    const url = adapter?.url ?? ''
    expect((await sqlRows(url, 'show databases')).map((r) => r[0]), icingaLog).toContain('icinga2')
    const stables = (await sqlRows(url, 'show icinga2.stables')).map((r) => String(r[0]))
    // metrics such as icinga.host.state: super table names get _ for .
    expect(stables, icingaLog).toEqual(expect.arrayContaining(['icinga_host_state', 'icinga_host_load', 'icinga_host_users', 'icinga_service_ping_rta', 'icinga_check_latency']))
    const states = await sqlRows(url, `select _value from icinga2.icinga_host_state where host = '${HOST}'`)
    expect(states.length, icingaLog).toBeGreaterThanOrEqual(RUN_SECONDS)
    expect(new Set(states.map((r) => r[0]))).toEqual(new Set([0]))
    expect(new Set((await sqlRows(url, 'select _value from icinga2.icinga_host_load')).map((r) => r[0]))).toEqual(new Set([0.5]))
    expect(new Set((await sqlRows(url, 'select _value from icinga2.icinga_host_users')).map((r) => r[0]))).toEqual(new Set([3]))
    // perfdata in ms is sent in seconds
    expect(new Set((await sqlRows(url, `select _value from icinga2.icinga_service_ping_rta where host = '${HOST}'`)).map((r) => r[0]))).toEqual(new Set([0.00025]))
    // the check metrics carry the service and type tags
    expect(await sqlRows(url, "select distinct service, type from icinga2.icinga_check_latency where type = 'service'")).toEqual([['ping', 'service']])
    expect(await malformed()).toBe(0)
  })
})
