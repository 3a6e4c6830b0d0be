import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    globalSetup: ['test/lib/test-tmpdir.ts'],
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['test/integration/**', 'node_modules/**', 'dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
