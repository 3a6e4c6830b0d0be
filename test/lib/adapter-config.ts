import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultConfig } from '../../src/config/index.js'
import type { AppConfig } from '../../src/config/types.js'

/**
 * The configuration of an in-process test adapter: any free port on loopback, DuckDB in memory,
 * logs in a fresh temporary folder, no receivers and no management server (test files run at once, and the receivers'
 * ports are fixed; tests of a receiver turn it on with a port of its own).
 */
export function testAdapterConfig(logPrefix: string): AppConfig {
  const config = defaultConfig()
  config.port = 0
  config.host = '127.0.0.1'
  config.storage.url = 'duckdb::memory:'
  config.log.path = mkdtempSync(join(tmpdir(), logPrefix))
  config.collagent.enable = false
  config.statsagent.enable = false
  config.tsdbproto_telnet.enable = false
  config.hostexporter.enable = false
  // its port is fixed too; the manager's tests turn it on with port 0
  config.manager.enable = false
  return config
}
