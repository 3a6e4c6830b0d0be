import { spawnSync } from 'node:child_process'

/**
 * Sends `payload` `count` times to 127.0.0.1:`port` from a child process and returns how many
 * were sent. spawnSync blocks this process, an in-process adapter's event loop included, until
 * the child is done: nothing is read from the socket meanwhile, so all but what its receive
 * buffer holds is dropped by the kernel.
 */
export function floodWhileBlocked(port: number, count: number, payload: Buffer): number {
  const script = `
    const dgram = require('node:dgram')
    const packet = Buffer.from(process.argv[1], 'base64')
    const s = dgram.createSocket('udp4')
    let sent = 0
    const next = () => {
      if (sent === ${count}) { s.close(); process.stdout.write(String(sent)); return }
      s.send(packet, ${port}, '127.0.0.1', (err) => { if (!err) sent++; else process.stderr.write(String(err)); next() })
    }
    next()
  `
  const r = spawnSync(process.execPath, ['-e', script, payload.toString('base64')], { encoding: 'utf8', timeout: 60_000 })
  if (r.stderr !== '') {
    throw new Error(`UDP flood failed: ${r.stderr}`)
  }
  return Number(r.stdout)
}
