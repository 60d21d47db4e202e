#!/usr/bin/env node
// `npm run build` step: copies the binary assets of src/ (the photo vocabularies,
// src/adapters/images/local-features/assets/) to where the built code looks for them, beside the
// module that reads them: dist/adapters/images/local-features/assets/ (tsc's output, which tests
// and benchmarks import) and dist/bundle/assets/ (the CLI bundle, whose chunks share one folder).
// tsc copies no file that is not code, hence this script.
import { cpSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FROM = join(ROOT, 'src', 'adapters', 'images', 'local-features', 'assets');
for (const to of [join(ROOT, 'dist', 'adapters', 'images', 'local-features', 'assets'), join(ROOT, 'dist', 'bundle', 'assets')]) {
  mkdirSync(to, { recursive: true });
  cpSync(FROM, to, { recursive: true, filter: (path) => !path.endsWith('.json') });
}
