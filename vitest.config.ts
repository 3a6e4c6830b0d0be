import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // spawned adapters (src/main.ts) would all claim the collectd receiver's UDP 6045;
    // the receiver tests turn it on with ports of their own
    env: { DB_ADAPTER_COLLAGENT_ENABLE: 'false' },
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['test/integration/**', 'node_modules/**', 'dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
