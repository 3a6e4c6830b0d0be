import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // spawned adapters (src/main.ts) would all claim the collectd receiver's UDP 6045;
    // the receiver tests turn it on with ports of their own
    env: { DB_ADAPTER_COLLAGENT_ENABLE: 'false' },
    include: ['test/integration/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
})
