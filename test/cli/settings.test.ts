/**
 * `catalog settings get|set` and `catalog search --sort` as a user runs them (local mode, in
 * process): the custom ranking attribute, identifier attributes and the attribute order set and shown, bad settings refused in the flag's words
 * with exit 2, hits sorted by an attribute.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/harness.js';

describe('catalog settings and search --sort', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('catalog-cli-settings-');
    writeFileSync(join(dir, 'attributes.json'), JSON.stringify([
      { attribute_id: 'pop', type: 'text', name: { en: 'Popularity' }, filterable: true },
      { attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, filterable: true },
      { attribute_id: 'mpn', type: 'text', name: { en: 'Part number' }, searchable: true },
    ]));
    writeFileSync(join(dir, 'parts.csv'), 'part_id,name.en,attr:pop.en,attr:vendor.en,attr:mpn.en\na,ball bearing,5,beta,\nb,ball bearing,500,Alpha,\nc,ball bearing,,gamma,\nk,sealed roller,,,6204-2RS\nm,puller for 6204-2RS,,,\n');
    expect((await cli(['attributes', 'import', 'attributes.json'], { cwd: dir })).code).toBe(0);
    expect((await cli(['parts', 'import', 'parts.csv'], { cwd: dir })).code).toBe(0);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const ids = async (args: string[]) => (await cli(['search', ...args, '-o', 'tsv', '--fields', 'id'], { cwd: dir })).stdout.trim().split('\n').slice(1);

  it('sets, shows and removes the custom ranking attribute; it orders the ties', async () => {
    expect((await cli(['settings', 'get'], { cwd: dir })).stdout).toBe('custom-ranking: none\nidentifier-attributes: none\nattribute-order: none\n');
    expect(await ids(['bearing '])).toEqual(['a', 'b', 'c']);
    const set = await cli(['settings', 'set', '--custom-ranking', 'pop'], { cwd: dir });
    expect(set.code).toBe(0);
    expect(set.stdout).toBe('custom-ranking: pop:desc\nidentifier-attributes: none\nattribute-order: none\n');
    expect(await ids(['bearing '])).toEqual(['b', 'a', 'c']);
    expect(JSON.parse((await cli(['settings', 'get', '-o', 'json'], { cwd: dir })).stdout)).toEqual({ customRanking: { attribute_id: 'pop', order: 'desc' }, identifierAttributes: [], attributeOrder: [] });
    expect((await cli(['settings', 'set', '--custom-ranking', 'none'], { cwd: dir })).stdout).toBe('custom-ranking: none\nidentifier-attributes: none\nattribute-order: none\n');
  });

  it('sets, shows and removes identifier attributes: a part number typed without its separators finds its part first', async () => {
    expect(await ids(['6204-2rs'])).toEqual(['m', 'k']);
    const set = await cli(['settings', 'set', '--identifier-attributes', 'mpn'], { cwd: dir });
    expect(set.code).toBe(0);
    expect(set.stdout).toBe('custom-ranking: none\nidentifier-attributes: mpn\nattribute-order: none\n');
    expect(await ids(['62042rs'])).toEqual(['k', 'm']);
    const bad = await cli(['settings', 'set', '--identifier-attributes', 'mpn,pop'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--identifier-attributes mpn,pop: attribute 'pop' is not searchable/);
    expect((await cli(['settings', 'set', '--identifier-attributes', 'none'], { cwd: dir })).stdout).toBe('custom-ranking: none\nidentifier-attributes: none\nattribute-order: none\n');
  });

  it('refuses bad settings with exit 2, in the flag\'s words', async () => {
    const text = await cli(['settings', 'set', '--custom-ranking', 'vendor:asc'], { cwd: dir });
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(/--custom-ranking vendor:asc: attribute 'vendor' is not a number attribute/);
    const unknown = await cli(['settings', 'set', '--custom-ranking', 'nope'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/attribute 'nope' does not exist/);
    expect((await cli(['settings', 'set'], { cwd: dir })).code).toBe(2);
    const order = await cli(['settings', 'set', '--attribute-order', 'mpn,pop'], { cwd: dir });
    expect(order.code).toBe(2);
    expect(order.stderr).toMatch(/--attribute-order mpn,pop: attribute 'pop' is not searchable/);
  });

  it('sets, shows and removes the attribute order', async () => {
    expect((await cli(['settings', 'set', '--attribute-order', 'mpn'], { cwd: dir })).stdout).toBe('custom-ranking: none\nidentifier-attributes: none\nattribute-order: mpn\n');
    expect(await ids(['6204-2rs'])).toEqual(['m', 'k']);
    expect((await cli(['settings', 'set', '--attribute-order', 'none'], { cwd: dir })).stdout).toBe('custom-ranking: none\nidentifier-attributes: none\nattribute-order: none\n');
  });

  it('search --sort orders by an attribute (missing values last) or by part id; a bad key is exit 2', async () => {
    expect(await ids(['bearing', '--sort', 'vendor'])).toEqual(['b', 'a', 'c']);
    expect(await ids(['bearing', '--sort', 'pop:desc'])).toEqual(['b', 'a', 'c']);
    expect(await ids(['bearing', '--sort', 'pop'])).toEqual(['a', 'b', 'c']);
    expect(await ids(['--sort', 'part_id:desc'])).toEqual(['m', 'k', 'c', 'b', 'a']);
    const bad = await cli(['search', 'bearing', '--sort', 'nope'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--sort: attribute 'nope' does not exist/);
  });
});
