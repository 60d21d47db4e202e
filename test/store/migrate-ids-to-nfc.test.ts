/**
 * The migration that rewrites stored ids to Unicode NFC (docs/decisions/0017-ids-are-nfc.md), on
 * a SQLite catalog written before it: ids put in NFD with raw SQL at the schema before the
 * migration are read by their NFC form after it; two ids with one NFC form are refused, naming
 * both, and the catalog is left as it was.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openCatalog } from '../../src/open-catalog.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { MIGRATIONS } from '../../src/adapters/sqlite/migrations.js';
import { tempDir } from '../helpers/harness.js';

const NFC_MIGRATION = MIGRATIONS.find((m) => m.name === 'ids in Unicode NFC')?.version ?? MIGRATIONS.length + 1;
// 'Café' as most keyboards type it (é one code point) and as macOS file names spell it (e + U+0301).
const part = { nfc: 'Caf\u00e9-1', nfd: 'Cafe\u0301-1' };
const attribute = { nfc: 'gr\u00f6\u00dfe', nfd: 'gro\u0308\u00dfe' };
const organization = { nfc: 'S\u00e3o-Paulo', nfd: 'Sa\u0303o-Paulo' };

/** A catalog in `dataDir` holding the NFC ids, then set back to the schema before the migration with its ids in NFD. */
async function writeNfdCatalog(dataDir: string): Promise<void> {
  const catalog = openCatalog({ dataDir });
  try {
    await catalog.service.upsertOrganizations(LOCAL_OWNER, [{ org_id: organization.nfc }]);
    await catalog.service.upsertAttributes(LOCAL_OWNER, [{ attribute_id: attribute.nfc, type: 'text', name: { en: 'Size' }, per_org_values: true }]);
    const written = await catalog.service.upsertParts(LOCAL_OWNER, [
      { part_id: part.nfc, name: { en: 'Coffee pump' }, attributes: [{ attribute_id: attribute.nfc, values: [{ organization: organization.nfc, value: { en: 'large' } }] }] },
      { part_id: 'plain', name: { en: 'Plain' } },
    ]);
    expect(written.errors).toEqual({});
  } finally {
    await catalog.close();
  }
  const db = new Database(join(dataDir, 'catalog.db'));
  try {
    const nfd = (text: string) => text.replaceAll(part.nfc, part.nfd).replaceAll(attribute.nfc, attribute.nfd).replaceAll(organization.nfc, organization.nfd);
    db.function('nfd', (text: unknown) => (typeof text === 'string' ? nfd(text) : text));
    db.exec(`
      PRAGMA foreign_keys = OFF;
      UPDATE parts SET part_id = nfd(part_id), attributes = nfd(attributes);
      UPDATE attributes SET attribute_id = nfd(attribute_id), body = nfd(body);
      UPDATE part_attributes SET attribute_id = nfd(attribute_id);
      UPDATE organizations SET org_id = nfd(org_id);
      PRAGMA user_version = ${NFC_MIGRATION - 1};
    `);
    expect(db.prepare('SELECT part_id FROM parts ORDER BY part_id').pluck().all()).toEqual([part.nfd, 'plain']);
  } finally {
    db.close();
  }
}

describe('the NFC id migration on a SQLite catalog', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('makes a part written with NFD ids readable and searchable by its NFC ids', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    await writeNfdCatalog(dataDir);

    const catalog = openCatalog({ dataDir });
    try {
      const read = await catalog.service.getPart(LOCAL_OWNER, part.nfd);
      expect(read.part_id).toBe(part.nfc);
      expect(read.attributes).toEqual([{ attribute_id: attribute.nfc, values: [{ organization: organization.nfc, value: { en: 'large' } }] }]);
      expect((await catalog.service.listAttributes(LOCAL_OWNER, {})).result.map((a) => a.attribute_id)).toEqual([attribute.nfc]);
      const found = await catalog.search.search(LOCAL_OWNER, { matches: { text: 'coffee' }, resultOptions: { limit: 10 } });
      expect(found.results.map((r) => r.id)).toEqual([part.nfc]);
    } finally {
      await catalog.close();
    }
    const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT org_id FROM organizations').pluck().all()).toEqual([organization.nfc]);
      expect(db.prepare('SELECT attribute_id FROM part_attributes').pluck().all()).toEqual([attribute.nfc]);
    } finally {
      db.close();
    }
  });

  it('refuses two ids with one NFC form, naming both spellings and the table, and changes nothing', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    await writeNfdCatalog(dataDir);
    const db = new Database(join(dataDir, 'catalog.db'));
    db.prepare("INSERT INTO parts (part_id, service_id, name, attributes, created_at, modified_at) SELECT ?, service_id, name, '[]', created_at, modified_at FROM parts WHERE part_id = 'plain'").run(part.nfc);
    db.close();

    expect(() => openCatalog({ dataDir })).toThrow(`parts holds ${JSON.stringify(part.nfd)} and ${JSON.stringify(part.nfc)}`);
    const after = new Database(join(dataDir, 'catalog.db'), { readonly: true });
    try {
      expect(after.pragma('user_version', { simple: true })).toBe(NFC_MIGRATION - 1);
      expect(after.prepare('SELECT part_id FROM parts ORDER BY rowid_').pluck().all()).toEqual([part.nfd, 'plain', part.nfc]);
      expect(after.prepare('SELECT org_id FROM organizations').pluck().all()).toEqual([organization.nfd]);
    } finally {
      after.close();
    }
  });
});
