/**
 * `catalog images audit` as a user runs it (local mode; the endpoint is the same through both
 * clients, test/contract/image-audit.test.ts, and the command only pages through it): one row per
 * reference, the summary on stderr, exit 3 when a condition's rank-1 share is below --min-rank1,
 * and --since-change / --uploaded-since auditing only the images uploaded since then. One condition
 * (`copy`) keeps it cheap; the conditions themselves are the contract suite's
 * (test/contract/image-audit.test.ts).
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInMode } from '../helpers/cli-mode.js';
import { IMAGES } from '../helpers/photo-scenes.js';

describe('catalog images audit (local)', () => {
  const t = cliInMode('local', 'catalog-cli-audit-');

  it('prints each reference, a summary, exit 3 below --min-rank1; --since-change and --uploaded-since audit only what changed', async () => {
    mkdirSync(join(t.dir, 'img'));
    for (const file of ['cathedral.jpg', 'toolbox.jpg', 'b_5_rook.jpg']) copyFileSync(join(IMAGES, file), join(t.dir, 'img', file));
    const parts = ['good', 'twin-a', 'twin-b', 'rook'].map((p) => JSON.stringify({ part_id: p, name: { en: p } })).join('\n');
    expect((await t.run(['parts', 'import', '-', '--format', 'ndjson'], parts)).code).toBe(0);
    writeFileSync(join(t.dir, 'refs.csv'), ['image_id,part_id,info,file', 'good-1,good,searchable,img/cathedral.jpg', 'twin-a-1,twin-a,searchable,img/toolbox.jpg', 'twin-b-1,twin-b,searchable,img/toolbox.jpg'].join('\n'));
    expect((await t.run(['images', 'upload', 'refs.csv'])).code).toBe(0);

    const audit = await t.run(['images', 'audit', '--conditions', 'copy', '--min-rank1', '0.8', '--since-change', '0', '-o', 'csv']);
    expect(audit.code, audit.stderr).toBe(3);
    const rows = audit.stdout.trim().split('\n');
    expect(rows[0]).toBe('image_id,part_id,size,keypoints,contrast,copy,advice');
    expect(rows).toHaveLength(4);
    expect(rows[1]).toMatch(/^good-1,good,\d+×\d+,\d+,[\d.]+,1 [01]\.\d\d,$/);
    // One of the twins is found first for both pictures; the other names it.
    expect(rows.filter((r) => /,2 ← twin-[ab],".*part 'twin-[ab]' is found first for a copy of this reference/.test(r))).toHaveLength(1);
    expect(audit.stderr).toContain('audited 3 reference images; found at rank 1: copy 67 %');
    expect(audit.stderr).toContain('error: found at rank 1 below 0.8 for copy');
    const next = /next time audit with --since-change (\d+)/.exec(audit.stderr)?.[1];
    expect(next).toBeDefined();

    // Passes at a threshold it meets.
    expect((await t.run(['images', 'audit', 'good', '--conditions', 'copy', '--min-rank1', '0.8', '-o', 'csv'])).code).toBe(0);

    writeFileSync(join(t.dir, 'more.csv'), ['image_id,part_id,info,file', 'rook-1,rook,searchable,img/b_5_rook.jpg'].join('\n'));
    expect((await t.run(['images', 'upload', 'more.csv'])).code).toBe(0);
    const since = await t.run(['images', 'audit', '--conditions', 'copy', '--since-change', next ?? '', '-o', 'json']);
    expect(since.code, since.stderr).toBe(0);
    const audited = JSON.parse(since.stdout) as { image_id: string; conditions: { condition: string; rank: number }[] }[];
    expect(audited.map((a) => a.image_id)).toEqual(['rook-1']);
    expect(audited[0]?.conditions).toEqual([{ condition: 'copy', rank: 1, score: expect.any(Number) }]);
    expect(since.stderr).toContain('audited 1 reference image; found at rank 1: copy 100 %');

    const recent = await t.run(['images', 'audit', 'good', 'rook', '--conditions', 'copy', '--uploaded-since', '1h', '-o', 'csv']);
    expect(recent.stdout.trim().split('\n').map((r) => r.split(',')[0])).toEqual(['image_id', 'good-1', 'rook-1']);
    const future = await t.run(['images', 'audit', '--uploaded-since', '2099-01-01T00:00:00Z']);
    expect(future.code).toBe(0);
    expect(future.stderr).toContain('audited 0 reference images');
  });
});
