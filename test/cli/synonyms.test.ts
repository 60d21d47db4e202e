/**
 * `catalog synonyms import|list|delete` as a user runs them, in local mode and against a
 * server (--remote): import CSV (terms separated by `|`), NDJSON and TSV through the bulk loop, list
 * in every -o format (a CSV listing imports again), --fields, rejected rows in the errors file,
 * delete; a search finds a part through an imported synonym.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInMode } from '../helpers/cli-mode.js';

describe.each(['local', 'remote'] as const)('catalog synonyms (%s)', (mode) => {
  const c = cliInMode(mode, 'catalog-cli-synonyms-');
  const run = c.run;

  it('import → list → delete round trip, and a search uses the imported sets', async () => {
    writeFileSync(join(c.dir, 'syn.csv'), 'synonym_id,input,synonyms\nfasteners,,bolt|screw\nhex,hex,hexagon\nstorage,,usb stick| flash drive\nbad,,--|x\n');
    const imported = await run(['synonyms', 'import', 'syn.csv']);
    expect(imported.code, imported.stderr).toBe(3);
    expect(imported.stderr).toMatch(/3 created/);
    const errors = readFileSync(join(c.dir, 'syn.errors.csv'), 'utf8');
    expect(errors).toMatch(/bad.*no letter or digit/);

    const tsv = await run(['synonyms', 'list', '-o', 'tsv']);
    expect(tsv.stdout).toBe('synonym_id\tinput\tsynonyms\nfasteners\t\tbolt|screw\nhex\thex\thexagon\nstorage\t\tusb stick|flash drive\n');
    const json = JSON.parse((await run(['synonyms', 'list', '-o', 'json', '--fields', 'synonym_id,synonyms'])).stdout) as unknown;
    expect(json).toEqual([
      { synonym_id: 'fasteners', synonyms: ['bolt', 'screw'] }, { synonym_id: 'hex', synonyms: ['hexagon'] }, { synonym_id: 'storage', synonyms: ['usb stick', 'flash drive'] },
    ]);
    // A CSV listing imports again (replacing the same sets); NDJSON imports too.
    const csv = (await run(['synonyms', 'list', '-o', 'csv'])).stdout;
    writeFileSync(join(c.dir, 'again.csv'), csv);
    const again = await run(['synonyms', 'import', 'again.csv']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/3 updated/);
    const nd = await run(['synonyms', 'import', '-', '--format', 'ndjson'], '{"synonym_id":"nuts","synonyms":["nut","hexnut"]}\n');
    expect(nd.code, nd.stderr).toBe(0);

    await run(['parts', 'import', '-', '--format', 'csv'], 'part_id,name.en\np-screw,Wood screw\np-bolt,Bolt M8\n');
    const found = await run(['search', 'bolt ', '-o', 'json']);
    expect((JSON.parse(found.stdout) as { results: { id: string }[] }).results.map((r) => r.id)).toEqual(['p-bolt', 'p-screw']);

    const deleted = await run(['synonyms', 'delete', 'fasteners', 'nope']);
    expect(deleted.code).toBe(3);
    expect(deleted.stderr).toMatch(/nope/);
    expect((await run(['synonyms', 'list', '-o', 'tsv', '--fields', 'synonym_id'])).stdout).toBe('synonym_id\nhex\nnuts\nstorage\n');
    const after = await run(['search', 'bolt ', '-o', 'json']);
    expect((JSON.parse(after.stdout) as { results: { id: string }[] }).results.map((r) => r.id)).toEqual(['p-bolt']);
  });
});
