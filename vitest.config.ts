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
      {
        // The in-process suites. A worker keeps the modules it loaded from one file to the next:
        // loading better-sqlite3, fastify, sharp and the AWS SDK again for each file was a third of
        // their CPU time. They share no module state that matters (no module mocks, no stubbed
        // globals or environment).
        extends: true,
        test: { name: 'default', include: ['src/**/*.test.ts', 'test/contract/**/*.test.ts', 'test/http/**/*.test.ts', 'test/store/**/*.test.ts'], isolate: false },
      },
      {
        // The suites that run the CLI in-process with its signal handlers and environment, or
        // spawn it, a server or a browser: a process of their own each.
        extends: true,
        test: { name: 'e2e', include: ['test/cli/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/web/**/*.test.ts'] },
      },
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
          isolate: false,
        },
      },
    ],
  },
});
