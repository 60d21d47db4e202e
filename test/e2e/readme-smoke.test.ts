/**
 * The README's "CI smoke check" block, run exactly as written (bash, npx catalog), so the README
 * cannot drift from what the program does.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.js';
import { freePort, ROOT } from '../helpers/bin.js';

describe('README CI smoke check', () => {
  it('runs as written and exits 0', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /<!-- smoke:start -->\s*```sh\n([\s\S]*?)```\s*<!-- smoke:end -->/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const work = tempDir('catalog-smoke-');
    try {
      // Run from a copy-free checkout: the block uses repository-relative fixture paths, so cwd = ROOT,
      // with hits.json redirected into the temp dir.
      // Another process may hold the README's port on a shared machine: use a free one.
      const port = String(await freePort());
      const script = (block ?? '').replaceAll('18181', port).replace('> hits.json', `> ${join(work, 'hits.json')}`).replace('require("./hits.json")', `require(${JSON.stringify(join(work, 'hits.json'))})`);
      const run = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1' }, timeout: 120_000 });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toContain('parts import: 5 created');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

