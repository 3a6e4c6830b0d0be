/**
 * @module
 * Command-line entry point (`npm start`, the `db-adapter` bin): configuration, start, and exit on
 * SIGTERM/SIGINT after a graceful stop. Exit codes: 0 normal (also --help/--version and a signal
 * stop), 2 configuration error (message on stderr), 1 start failure.
 */
import { ConfigError, loadConfig } from './config/index.js'
import { startAdapter } from './lifecycle.js'
import { createLogger } from './logger.js'
import { startTracing } from './monitor/tracing.js'

async function run(): Promise<void> {
  let loaded: ReturnType<typeof loadConfig>
  try {
    loaded = loadConfig(process.argv.slice(2), process.env)
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`)
      process.exitCode = err.exitCode
      return
    }
    throw err
  }
  if (loaded.kind !== 'run') {
    process.stdout.write(loaded.text.endsWith('\n') ? loaded.text : `${loaded.text}\n`)
    return
  }

  const { config, warnings } = loaded
  const logs = createLogger(config)
  const logger = logs.logger
  for (const warning of warnings) {
    logger.warn(warning)
  }

  // OpenTelemetry from the OTEL_* environment (off unless an exporter or endpoint is set)
  const tracing = await startTracing(logger)

  let adapter: Awaited<ReturnType<typeof startAdapter>>
  try {
    adapter = await startAdapter(config, {
      logger,
      sqlLogger: logs.sqlLogger,
      tracing: tracing.enabled,
      rootPasswordGiven: loaded.given.has('auth.rootPassword'),
    })
  } catch (err) {
    process.stderr.write(`db-adapter: cannot start: ${err instanceof Error ? err.message : String(err)}\n`)
    await tracing.shutdown()
    await logs.flush()
    process.exit(1)
  }

  let signalled = false
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      // a second signal while draining: the operator wants out now
      logger.warn({ signal }, 'second signal, exiting without waiting')
      process.exit(1)
    }
    signalled = true
    logger.info({ signal }, 'signal received, stopping')
    adapter
      .stop()
      .then(() => tracing.shutdown())
      .then(() => logs.flush())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          process.stderr.write(`db-adapter: stop failed: ${err instanceof Error ? err.message : String(err)}\n`)
          process.exit(1)
        },
      )
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
}

run().catch((err: unknown) => {
  process.stderr.write(`db-adapter: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exit(1)
})
