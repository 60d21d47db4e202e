#!/usr/bin/env node
// The quick start: builds a fresh local catalog from fixtures/ through the real CLI and shows it.
// Usage: npm run demo  (data goes to ./demo-catalog, recreated each run)
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, 'demo-catalog');
const bin = join(root, 'bin', 'catalog.js');

function step(title, args) {
  process.stderr.write(`\n\x1b[1m$ catalog ${args.join(' ')}\x1b[0m   # ${title}\n`);
  const run = spawnSync(process.execPath, [bin, '--data-dir', dataDir, ...args], { stdio: 'inherit', cwd: root });
  if (run.status !== 0 && run.status !== 3) {
    process.stderr.write(`demo step failed with exit code ${run.status}\n`);
    process.exit(run.status ?? 1);
  }
}

rmSync(dataDir, { recursive: true, force: true });
step('bulk import of attribute definitions', ['attributes', 'import', 'fixtures/attributes.csv']);
step('bulk import of PCI devices as parts', ['parts', 'import', 'fixtures/parts.csv']);
step('list the attributes', ['attributes', 'list', '--fields', 'attribute_id,type,name,searchable,filterable,display_order', '-o', 'table']);
step('list the parts', ['parts', 'list', '--fields', 'part_id,name,modifiedAt', '-o', 'table']);
step('one part as JSON', ['parts', 'get', 'pci:8086:1539', '-o', 'json']);
process.stderr.write(`\ndemo catalog left in ${dataDir}\n`);
