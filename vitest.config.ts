import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // PostgreSQL and S3 for the suites that need them (skipped loudly when absent; docs/deploy.md).
    globalSetup: ['test/services/global-setup.ts'],
  },
});
