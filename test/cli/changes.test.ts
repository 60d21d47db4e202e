/**
 * The CLI's deltas (docs/cli.md "Keeping a second catalog in sync"): `parts list --changed-since`
 * prints the changed parts and tombstones, `parts import` applies both (also on the import's
 * reader thread), `catalog changes` prints the feed and where to continue; a copy kept this way
 * equals the source.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';
import { rmSync } from 'node:fs';

describe('catalog changes and parts list --changed-since', () => {
  let dir: string;
  const run = (dataDir: string, ...args: string[]) => cli(['--data-dir', join(dir, dataDir), ...args], { cwd: dir });
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const listing = async (dataDir: string) => JSON.parse((await run(dataDir, '-o', 'json', 'parts', 'list', '--fields', 'part_id,name,attributes')).stdout) as unknown[];

  it.each([['in this thread', '0'], ['on the reader thread', '1']])('keeps a copy equal to the source with deltas, deletions included (%s)', async (_how, thread) => {
    writeFileSync(join(dir, 'parts.ndjson'), ['a', 'b', 'c'].map((id) => JSON.stringify({ part_id: id, name: { en: `Part ${id}` } })).join('\n'));
    expect((await run('source', 'parts', 'import', 'parts.ndjson')).code).toBe(0);
    const first = await run('source', '-o', 'ndjson', 'parts', 'list', '--changed-since', '0');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('the next delta: --changed-since 3');
    writeFileSync(join(dir, 'delta1.ndjson'), first.stdout);
    const env = { CATALOG_IMPORT_THREAD: thread };
    expect((await cli(['--data-dir', join(dir, 'copy'), 'parts', 'import', 'delta1.ndjson'], { cwd: dir, env })).code).toBe(0);
    expect(await listing('copy')).toEqual(await listing('source'));

    expect((await run('source', 'parts', 'delete', 'b')).code).toBe(0);
    writeFileSync(join(dir, 'more.ndjson'), JSON.stringify({ part_id: 'a', name: { en: 'Part a, renamed' } }));
    expect((await run('source', 'parts', 'import', 'more.ndjson')).code).toBe(0);
    const second = await run('source', '-o', 'ndjson', 'parts', 'list', '--changed-since', '3');
    expect(second.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).map((r) => r.deleted === true ? `delete ${String(r.part_id)}` : `write ${String(r.part_id)}`)).toEqual(['write a', 'delete b']);
    writeFileSync(join(dir, 'delta2.ndjson'), second.stdout);
    const applied = await cli(['--data-dir', join(dir, 'copy'), 'parts', 'import', 'delta2.ndjson'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toContain('0 created, 1 updated, 1 deleted, 0 rejected');
    expect(await listing('copy')).toEqual(await listing('source'));
    // Applying the same delta again changes nothing and rejects nothing (the tombstone is applied already).
    expect((await cli(['--data-dir', join(dir, 'copy'), 'parts', 'import', 'delta2.ndjson'], { cwd: dir, env })).code).toBe(0);
    expect(await listing('copy')).toEqual(await listing('source'));
  });

  it('catalog changes prints the feed and where to continue; --changed-since wants json or ndjson', async () => {
    writeFileSync(join(dir, 'parts.ndjson'), ['a', 'b'].map((id) => JSON.stringify({ part_id: id, name: { en: id } })).join('\n'));
    await run('source', 'parts', 'import', 'parts.ndjson');
    await run('source', 'parts', 'delete', 'a');
    const feed = await run('source', '-o', 'ndjson', 'changes', '--since', '1');
    expect(feed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { change: number; op: string; id: string }).map((c) => `${c.change} ${c.op} ${c.id}`)).toEqual(['2 upsert b', '3 delete a']);
    expect(feed.stderr).toContain('continue with: catalog changes --since 3');
    const csv = await run('source', '-o', 'csv', 'parts', 'list', '--changed-since', '0');
    expect(csv.code).toBe(2);
    expect(csv.stderr).toContain('use -o ndjson or -o json');
    const types = await run('source', 'changes', '--types', 'parts');
    expect(types.code).toBe(2);
    expect(types.stderr).toContain("unknown type 'parts'");
  });
});
