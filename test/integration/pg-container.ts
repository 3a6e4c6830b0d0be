import { GenericContainer, getContainerRuntimeClient, Wait } from 'testcontainers'
import type { StartedTestContainer } from 'testcontainers'
import { freePort } from '../lib/free-port.js'

/**
 * A real PostgreSQL for the integration suite, started with Testcontainers.
 *
 * The image comes from DB_ADAPTER_TEST_PG_IMAGE (default the official `postgres:16-alpine`;
 * `test/integration/docker-env.sh` builds a registry-free local image and exports the variable).
 * The container uses host networking because the test daemon runs without a bridge, so the
 * server listens on a free loopback port chosen here and passed as PGPORT (honoured by both the
 * official entrypoint and ours). Set TESTCONTAINERS_RYUK_DISABLED=true where the reaper image
 * cannot be pulled.
 */
export interface PgContainer {
  /** postgres://user:pass@127.0.0.1:<port>/db */
  url: string
  port: number
  container: StartedTestContainer
  /** stop the server (container stays, data kept) to simulate an outage */
  pause(): Promise<void>
  /** start it again after `pause()` and wait until it accepts connections */
  resume(): Promise<void>
  /** stop and remove the container */
  stop(): Promise<void>
}

export const PG_USER = 'adapter'
export const PG_PASSWORD = 'adapter-secret'
export const PG_DB = 'adapter_test'

export function pgImage(): string {
  return process.env.DB_ADAPTER_TEST_PG_IMAGE ?? 'postgres:16-alpine'
}


export async function startPostgres(opts: { env?: Record<string, string> } = {}): Promise<PgContainer> {
  if (process.env.TESTCONTAINERS_RYUK_DISABLED === undefined) {
    // no registry for the reaper image in CI; containers are removed by stop() instead
    process.env.TESTCONTAINERS_RYUK_DISABLED = 'true'
  }
  if (process.env.TESTCONTAINERS_HOST_OVERRIDE === undefined) {
    // without a bridge network Testcontainers cannot look up the docker host's gateway;
    // with host networking the server is on loopback anyway
    process.env.TESTCONTAINERS_HOST_OVERRIDE = '127.0.0.1'
  }
  const port = await freePort()
  const readyCmd = `pg_isready -h 127.0.0.1 -p ${port} -U ${PG_USER} -d ${PG_DB}`
  const container = await new GenericContainer(pgImage())
    .withNetworkMode('host')
    .withEnvironment({
      POSTGRES_USER: PG_USER,
      POSTGRES_PASSWORD: PG_PASSWORD,
      POSTGRES_DB: PG_DB,
      PGPORT: String(port),
      ...opts.env,
    })
    // fsync off: a killed server loses nothing the OS already has, and this machine is slow.
    // synchronous_commit stays on: outage tests check that acknowledged writes survive.
    .withCommand(['-c', 'fsync=off', '-c', 'max_connections=200'])
    // the init phase runs a socket-only server; TCP readiness means the final server is up
    .withWaitStrategy(Wait.forSuccessfulCommand(readyCmd))
    .withStartupTimeout(120_000)
    .start()

  const url = `postgres://${PG_USER}:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:${port}/${PG_DB}`
  const runtime = await getContainerRuntimeClient()
  const handle = runtime.container.getById(container.getId())

  return {
    url,
    port,
    container,
    async pause() {
      // STOPSIGNAL is SIGINT (fast shutdown) in both images; SIGKILL only after 10 s
      await runtime.container.stop(handle, { timeout: 10_000 })
    },
    async resume() {
      await runtime.container.start(handle)
      await waitReady(container, readyCmd, 60_000)
    },
    async stop() {
      await container.stop({ remove: true, timeout: 5_000 })
    },
  }
}

async function waitReady(container: StartedTestContainer, cmd: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const r = await container.exec(['sh', '-c', cmd])
      if (r.exitCode === 0) {
        return
      }
    } catch {
      // exec fails while the container is still starting
    }
    if (Date.now() > deadline) {
      throw new Error(`PostgreSQL did not accept connections within ${timeoutMs} ms after restart`)
    }
    await new Promise((r) => setTimeout(r, 250))
  }
}

export { freePort }
