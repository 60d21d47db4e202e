import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A hang fails after two minutes. The heaviest end-to-end tests (a full migrate, a crash
    // mid-upload) take up to ~65 s when two suites share a 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most test files wait on servers, threads, browsers and child processes: one file more than
    // there are cores keeps a 2-core machine busy (3 files at once: the suite in ~520 s, 2: ~570 s).
    maxWorkers: availableParallelism() + 1,
    // PostgreSQL and S3 for the suites that need them (skipped loudly when absent; docs/deploy.md).
    globalSetup: ['test/services/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'default', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] } },
      {
        // The client contract suite once more, on a PostgreSQL-backed catalog (test/helpers/harness.ts BACKEND).
        extends: true,
        test: {
          name: 'contract-postgres',
          include: ['test/contract/**/*.test.ts'],
          // storage-full fills a tmpfs under SQLite's file: a SQLite-only scenario.
          exclude: ['test/contract/storage-full.test.ts'],
          env: { CATALOG_TEST_BACKEND: 'postgres' },
          setupFiles: ['test/services/postgres-project-setup.ts'],
        },
      },
    ],
  },
});
