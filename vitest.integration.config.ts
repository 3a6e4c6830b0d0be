import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    globalSetup: ['test/lib/test-tmpdir.ts'],
    include: ['test/integration/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
})
