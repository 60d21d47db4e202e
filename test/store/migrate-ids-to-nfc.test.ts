/**
 * The migration that rewrites stored ids to Unicode NFC (docs/decisions/0017-ids-are-nfc.md), on
 * a catalog written before it (SQLite and PostgreSQL): ids put in NFD with raw SQL at the schema before the
 * migration are read by their NFC form after it; two ids with one NFC form are refused, naming
 * both, and the catalog is left as it was.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres, PG_MIGRATIONS } from '../../src/adapters/postgres/migrations.js';
import { openPostgresStores } from '../../src/adapters/postgres/stores.js';
import { systemClock } from '../../src/adapters/system.js';
import { IdCollisionError } from '../../src/core/id-collision.js';
import { openCatalog } from '../../src/open-catalog.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { MIGRATIONS } from '../../src/adapters/sqlite/migrations.js';
import { tempDir } from '../helpers/harness.js';
import { createTestDatabase, createTestSchema, dropTestSchema, postgresAvailable } from '../services/services.js';

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

    expect(() => openCatalog({ dataDir })).toThrow(IdCollisionError);
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

const PG_NFC_MIGRATION = PG_MIGRATIONS.find((m) => m.name === 'ids in Unicode NFC')?.version ?? PG_MIGRATIONS.length + 1;

describe.skipIf(!postgresAvailable())('the NFC id migration on a PostgreSQL catalog', () => {
  let database = '';
  beforeAll(async () => {
    database = await createTestDatabase('nfc');
  });

  /** A schema at the version before the migration holding the part, attribute and organization in NFD (raw SQL); `extra` runs after. */
  async function nfdSchema(extra = ''): Promise<{ url: string; schema: string }> {
    const { url, schema } = await createTestSchema(database);
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await migratePostgres(pool, PG_MIGRATIONS.filter((m) => m.version < PG_NFC_MIGRATION));
      const attributes = JSON.stringify([{ attribute_id: attribute.nfd, values: [{ organization: organization.nfd, value: { en: 'large' } }] }]);
      await pool.query('INSERT INTO organizations (org_id) VALUES ($1)', [organization.nfd]);
      await pool.query('INSERT INTO attributes (attribute_id, body) VALUES ($1, $2)', [attribute.nfd, JSON.stringify({ attribute_id: attribute.nfd, type: 'text', name: { en: 'Size' }, per_org_values: true })]);
      await pool.query("INSERT INTO parts (part_id, service_id, name, attributes, created_at, modified_at) VALUES ($1, 's1', $2, $3, 1, 1), ('plain', 's2', $4, '[]', 1, 1)", [part.nfd, JSON.stringify({ en: 'Coffee pump' }), attributes, JSON.stringify({ en: 'Plain' })]);
      await pool.query('INSERT INTO part_attributes (attribute_id, part_pk) SELECT $1, pk FROM parts WHERE part_id = $2', [attribute.nfd, part.nfd]);
      if (extra) await pool.query(extra, [part.nfc]);
    } finally {
      await pool.end();
    }
    return { url, schema };
  }

  it('makes a part written with NFD ids readable by its NFC ids', async () => {
    const { url, schema } = await nfdSchema();
    const stores = await openPostgresStores(url, { clock: systemClock(), max: 2 });
    try {
      const [read] = await stores.catalog.getParts([part.nfc]);
      expect(read?.part_id).toBe(part.nfc);
      expect(read?.attributes).toEqual([{ attribute_id: attribute.nfc, values: [{ organization: organization.nfc, value: { en: 'large' } }] }]);
    } finally {
      await stores.close();
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query('SELECT org_id FROM organizations')).rows).toEqual([{ org_id: organization.nfc }]);
      expect((await client.query('SELECT attribute_id, body::jsonb ->> \'attribute_id\' AS body_id FROM attributes')).rows).toEqual([{ attribute_id: attribute.nfc, body_id: attribute.nfc }]);
      expect((await client.query('SELECT attribute_id FROM part_attributes')).rows).toEqual([{ attribute_id: attribute.nfc }]);
      expect((await client.query("SELECT value FROM settings WHERE key = 'search_engine'")).rows).toEqual([{ value: 'ready' }]);
    } finally {
      await client.end();
      await dropTestSchema(database, schema);
    }
  });

  it('refuses two ids with one NFC form, naming both spellings and the table, and changes nothing', async () => {
    const { url, schema } = await nfdSchema("INSERT INTO parts (part_id, service_id, name, attributes, created_at, modified_at) VALUES ($1, 's3', '{}', '[]', 1, 1)");
    await expect(openPostgresStores(url, { clock: systemClock(), max: 2 })).rejects.toThrow(IdCollisionError);
    await expect(openPostgresStores(url, { clock: systemClock(), max: 2 })).rejects.toThrow(`parts holds ${JSON.stringify(part.nfd)} and ${JSON.stringify(part.nfc)}`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query('SELECT max(version) AS v FROM schema_migrations')).rows).toEqual([{ v: PG_NFC_MIGRATION - 1 }]);
      expect((await client.query('SELECT part_id FROM parts ORDER BY pk')).rows.map((r: { part_id: string }) => r.part_id)).toEqual([part.nfd, 'plain', part.nfc]);
      expect((await client.query('SELECT org_id FROM organizations')).rows).toEqual([{ org_id: organization.nfd }]);
    } finally {
      await client.end();
      await dropTestSchema(database, schema);
    }
  });
});
