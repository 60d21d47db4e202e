// Lint rules that guard the architecture (docs/architecture.md): the core depends on ports only.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const driverMessage =
  'src/core depends only on its ports and src/api: drivers and frameworks belong in src/adapters, src/http or src/cli.';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/tmp/**', 'test/tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', performance: 'readonly', fetch: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // CommonJS: tool configs (dependency-cruiser reads .cjs) and the bin shim (bin/package.json).
    files: ['**/*.cjs', 'bin/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' } },
  },
  {
    // The bin shim loads the CommonJS bundle with require() (bin/catalog.js says why); a test
    // helper preloaded with `node --require`.
    files: ['bin/*.js', 'test/helpers/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['better-sqlite3', 'fastify', '@fastify/multipart', 'undici', 'commander', 'ora', 'cli-table3', 'sharp', 'csv-parse', 'node:fs', 'fs', 'node:fs/promises', 'fs/promises'].map((name) => ({ name, message: driverMessage })),
          patterns: [
            { group: ['**/adapters/**', '**/http/**', '**/cli/**', '**/client/**'], message: driverMessage },
          ],
        },
      ],
    },
  },
);
