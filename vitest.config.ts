import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
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
          // storage-full fills a tmpfs under SQLite's file: a SQLite-only scenario. The issue-13 search
          // features (facets, highlights, rich hits) landed on main after the PostgreSQL index was
          // built and do not pass on it yet: OPEN GAP, listed in docs/deploy.md ("Not done yet").
          exclude: [
            'test/contract/storage-full.test.ts',
            'test/contract/search-facets.test.ts', 'test/contract/search-highlights.test.ts', 'test/contract/search-rich-hits.test.ts',
          ],
          env: { CATALOG_TEST_BACKEND: 'postgres' },
          setupFiles: ['test/services/postgres-project-setup.ts'],
        },
      },
    ],
  },
});
