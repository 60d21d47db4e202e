/**
 * `catalog search eval` given bad input: every bad row named by file, line and field, a bad header
 * with a "did you mean", a row the search refuses, options of `catalog search`, a missing
 * baseline: exit 2, nothing searched. (The figures and --baseline: test/contract/search-eval.test.ts.)
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInMode } from '../helpers/cli-mode.js';
import { EVAL_ATTRIBUTES, EVAL_PARTS } from '../helpers/eval-catalog.js';

const ATTRIBUTES = EVAL_ATTRIBUTES;
const PARTS = EVAL_PARTS;

describe('catalog search eval: bad judgments', () => {
  const c = cliInMode('local', 'catalog-cli-eval-bad-');

  it('names the file, line and field of every bad row and searches nothing (exit 2)', async () => {
    writeFileSync(join(c.dir, 'attributes.csv'), ATTRIBUTES);
    writeFileSync(join(c.dir, 'parts.csv'), PARTS);
    expect((await c.run(['attributes', 'import', 'attributes.csv'])).code).toBe(0);
    expect((await c.run(['parts', 'import', 'parts.csv'])).code).toBe(0);

    writeFileSync(join(c.dir, 'rows.csv'), ['query,image,expected,filter', 'react,,npm:react,', ',,npm:react,', 'react,,,', ',missing.jpg,npm:react,', 'react,,npm:react,kind'].join('\n'));
    const rows = await c.run(['search', 'eval', 'rows.csv']);
    expect(rows.code).toBe(2);
    expect(rows.stderr).toContain('4 rows of rows.csv cannot be judged; nothing was searched');
    expect(rows.stderr).toContain('rows.csv line 3, field query: empty, and so is image');
    expect(rows.stderr).toContain('rows.csv line 4, field expected: empty');
    expect(rows.stderr).toContain('rows.csv line 5, field image: cannot read the photo missing.jpg (no such file');
    expect(rows.stderr).toContain("rows.csv line 6, field filter: 'kind' must look like <attribute_id>=<value>");

    writeFileSync(join(c.dir, 'header.csv'), 'query,expect\nreact,npm:react\n');
    const header = await c.run(['search', 'eval', 'header.csv']);
    expect(header.code).toBe(2);
    expect(header.stderr).toMatch(/the header of header\.csv names an unknown column 'expect' \(did you mean 'expected'\?\)/);

    writeFileSync(join(c.dir, 'unknown.csv'), 'query,expected,filter\nreact,npm:react,\nreact,npm:react,colour=red\n');
    const unknown = await c.run(['search', 'eval', 'unknown.csv']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown\.csv line 3, field filter: .*colour/);

    const searchOption = await c.run(['search', 'eval', 'unknown.csv', '--limit', '5']);
    expect(searchOption.code).toBe(2);
    expect(searchOption.stderr).toContain('--limit is an option of catalog search, not of search eval');

    const baseline = await c.run(['search', 'eval', 'unknown.csv', '--baseline', 'nowhere.json']);
    expect(baseline.code).toBe(2);
    expect(baseline.stderr).toContain('cannot read --baseline nowhere.json: no such file');
  });
});

describe('catalog search eval: a photo query', () => {
  const c = cliInMode('local', 'catalog-cli-eval-photo-');

  it('searches the photo of a row (relative to the judgments file) and ranks its part', async () => {
    writeFileSync(join(c.dir, 'parts.csv'), 'part_id,name.en\nstamp:frog-1,Frog stamp\nstamp:apple,Fuji apple\n');
    expect((await c.run(['parts', 'import', 'parts.csv'])).code).toBe(0);
    const images = join(import.meta.dirname, '..', '..', 'fixtures', 'demo', 'images');
    mkdirSync(join(c.dir, 'photos'));
    for (const f of ['frog-1.jpg', 'apple_fuji.jpg']) copyFileSync(join(images, f), join(c.dir, 'photos', f));
    writeFileSync(join(c.dir, 'photos', 'images.csv'), 'image_id,part_id,info,file\nfrog-1,stamp:frog-1,searchable display,frog-1.jpg\napple,stamp:apple,searchable display,apple_fuji.jpg\n');
    const upload = await c.run(['images', 'upload', 'photos/images.csv']);
    expect(upload.code, upload.stderr).toBe(0);
    writeFileSync(join(c.dir, 'photos', 'judgments.csv'), 'image,expected\nfrog-1.jpg,stamp:frog-1\n');
    const run = await c.run(['-o', 'json', 'search', 'eval', 'photos/judgments.csv']);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { groups: { group: string; 'success@1': number }[] }).groups).toEqual([expect.objectContaining({ group: 'all', 'success@1': 1 })]);
  });
});
