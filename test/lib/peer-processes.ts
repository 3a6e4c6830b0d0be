/**
 * Peer programs an end-to-end test starts (Prometheus, Alertmanager, exporters): each keeps the
 * tail of its output, so a test that fails can say what the peers printed.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'

export class PeerProcesses {
  private readonly procs: { name: string; child: ChildProcess; log: string[] }[] = []

  /** starts `cmd args`, output kept (the last 200 chunks) */
  launch(name: string, cmd: string, args: string[]): ChildProcess {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const log: string[] = []
    const keep = (d: Buffer): void => {
      log.push(d.toString())
      if (log.length > 200) {
        log.shift()
      }
    }
    child.stdout?.on('data', keep)
    child.stderr?.on('data', keep)
    this.procs.push({ name, child, log })
    return child
  }

  /** the last `chars` of each peer's output, named */
  logs(chars = 3000): string {
    return this.procs.map((p) => `--- ${p.name}:\n${p.log.join('').slice(-chars)}`).join('\n')
  }

  /** SIGTERM to every peer still running, resolved once all have exited */
  async stop(): Promise<void> {
    await Promise.all(this.procs.map((p) => {
      if (p.child.exitCode !== null || p.child.signalCode !== null) {
        return undefined
      }
      const exited = new Promise((r) => p.child.once('exit', r))
      p.child.kill('SIGTERM')
      return exited
    }))
  }
}
