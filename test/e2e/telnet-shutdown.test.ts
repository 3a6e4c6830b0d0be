/**
 * The telnet receiver in a real adapter process: every line the adapter has read (a `version`
 * answer after them proves it) is in the database after a SIGTERM, though batchSize holds them
 * in the connections' caches; after a restart on the same port and file, clients reconnect and
 * the count goes on.
 */
import { connect, type Socket } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startAdapterProcess, type AdapterProcess } from '../lib/adapter-process.js'
import { freePort } from '../lib/free-port.js'
import { sqlRows } from '../ingest/server.js'

const dir = mkdtempSync(join(tmpdir(), 'telnet-shutdown-'))
let proc: AdapterProcess | undefined
afterAll(async () => {
  await proc?.stop()
  rmSync(dir, { recursive: true, force: true })
})

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s))
    s.once('error', reject)
  })
}

/** writes `body`, then `version`, and resolves at the `1`: the adapter has read every line */
function sendAcked(s: Socket, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    s.on('data', (d: Buffer) => (d.toString().includes('1') ? resolve() : undefined))
    s.once('close', () => reject(new Error('closed before the version answer')))
    s.write(body)
    s.write('version\n')
  })
}

async function batch(conns: Socket[], from: number, perConn: number): Promise<number> {
  let n = from
  await Promise.all(
    conns.map((s, c) => {
      let body = ''
      for (let i = 0; i < perConn; i++) {
        body += `put sd.metric ${1_700_000_000_000 + n++} ${i} conn=c${c}\n`
      }
      return sendAcked(s, body)
    }),
  )
  return n - from
}

describe('telnet receiver in an adapter process', () => {
  it('loses no read line on SIGTERM, and takes lines again after a restart', async () => {
    const telnetPort = await freePort()
    const url = `duckdb:${join(dir, 'data.duckdb')}`
    const env = {
      DB_ADAPTER_TSDBPROTO_TELNET_ENABLE: 'true',
      DB_ADAPTER_TSDBPROTO_TELNET_PORTS: String(telnetPort),
      DB_ADAPTER_TSDBPROTO_TELNET_DBS: 'sd',
      // nothing is written before the connections close: the shutdown must write it all
      DB_ADAPTER_TSDBPROTO_TELNET_BATCH_SIZE: '1000000',
    }
    proc = await startAdapterProcess(url, { env })
    const conns = await Promise.all([0, 1, 2, 3].map(() => open(telnetPort)))
    const sent = await batch(conns, 0, 5000)
    const closed = conns.map((s) => new Promise((r) => s.once('close', r)))
    await proc.stop()
    expect(proc.child.exitCode, proc.stderr()).toBe(0)
    // the adapter closed the connections itself on its way out
    await Promise.all(closed)

    proc = await startAdapterProcess(url, { env })
    expect(await sqlRows(proc.base, 'select count(*) from sd.sd_metric')).toEqual([[sent]])
    const again = await Promise.all([0, 1].map(() => open(telnetPort)))
    const more = await batch(again, sent, 100)
    for (const s of again) {
      s.end()
    }
    await expect.poll(async () => (await sqlRows(proc?.base ?? '', 'select count(*) from sd.sd_metric'))[0][0], { timeout: 10_000 }).toBe(sent + more)
  }, 120_000)
})
