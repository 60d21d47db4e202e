/**
 * CatalogStore over PostgreSQL. Each write method is ONE transaction holding the
 * catalog write lock (database.ts): it reads the stored state, runs the core's pure `decide` for
 * each item in order (a later item sees the outcome of an earlier one with the same id, as on
 * SQLite), writes the outcome and keeps the search index in step, all before COMMIT. A `decide`
 * that throws rolls everything back. Parts are written in batches (one statement per table for
 * the whole call), so an import's round trips do not grow with its batch size.
 *
 * Nothing is cached in memory: every read sees the latest commit of any server on the catalog.
 */
import type { Attribute, Organization, SynonymSet } from '../../api/schemas.js';
import type { CatalogStore, Clock } from '../../core/ports.js';
import type { Decision, KeysetPage, StoredPart, StoredToken } from '../../core/model.js';
import { tokenFromColumns, type TokenColumns } from '../rows.js';
import type { PgClient, PgDatabase } from './database.js';
import { partFromPgRow, type PgPartRow } from './part-rows.js';
import type { PgSearchIndex, WrittenPart } from './search/search-index.js';
import { RANKING_SETTINGS_KEY } from '../../core/search/ranking-settings.js';
import { definitionsKey, PREPARED_DOCUMENTS, preparedDocuments, type PreparedPartDocuments } from '../../core/search/engine/prepared-documents.js';
import { catalogWritten, requestScope } from '../../core/request-scope.js';
import { TokenLookups } from './token-lookups.js';

/** Whether an attribute change moves its values between index columns (re-index needed). */
function indexShapeChanged(before: Attribute, after: Attribute): boolean {
  return before.searchable !== after.searchable || before.filterable !== after.filterable
    || before.visibility !== after.visibility || before.per_org_values !== after.per_org_values;
}

/**
 * The version of the attributes, organizations and settings rows (change_counters 'settings': the
 * id of the last transaction that wrote one, set by a trigger on each of those tables), as a
 * scalar subquery.
 */
const SETTINGS_VERSION = "(SELECT version FROM change_counters WHERE name = 'settings')";

/** Attributes, organizations and settings as of one settings version (PgCatalogStore.keptForRequest); each read when first asked for. */
interface SettingsCache {
  version: number;
  attributes?: Map<string, Attribute>;
  organizations?: Map<string, Organization>;
  /** Setting values by key; null: no such setting. */
  settings: Map<string, string | null>;
}

/** Attributes by id, in the rows' order, from their stored bodies (a null body: no attribute, as an outer join gives). */
function attributesByIdOf(rows: readonly { body: string | null }[]): Map<string, Attribute> {
  const attributes = new Map<string, Attribute>();
  for (const { body } of rows) {
    if (body === null) continue;
    const a = JSON.parse(body) as Attribute;
    attributes.set(a.attribute_id, a);
  }
  return attributes;
}

/** The PostgreSQL implementation of the catalog's persistent state. */
export class PgCatalogStore implements CatalogStore {
  private readonly db: PgDatabase;
  private readonly index: PgSearchIndex;
  private readonly clock: Clock;
  private readonly tokenLookups: TokenLookups;
  /** What requests keep of the attributes, organizations and settings (keptForRequest). */
  private settingsCache: SettingsCache | undefined;

  constructor(db: PgDatabase, index: PgSearchIndex, clock: Clock) {
    this.db = db;
    this.index = index;
    this.clock = clock;
    this.tokenLookups = new TokenLookups(db, SETTINGS_VERSION);
  }

  // -- attributes

  private async attributeMap(c: Pick<PgClient, 'query'>): Promise<Map<string, Attribute>> {
    return attributesByIdOf((await c.query<{ body: string }>('SELECT body FROM attributes ORDER BY seq')).rows);
  }

  /** Stored attributes among `ids` with how many parts reference each. */
  private async attributesWithRefs(c: PgClient, ids: readonly string[]): Promise<Map<string, { attribute: Attribute; refs: number }>> {
    const rows = await c.query<{ body: string; refs: number }>(
      'SELECT a.body, (SELECT count(*) FROM part_attributes pa WHERE pa.attribute_id = a.attribute_id) AS refs FROM attributes a WHERE a.attribute_id = ANY($1::text[])',
      [[...new Set(ids)]],
    );
    return new Map(rows.rows.map((r) => {
      const attribute = JSON.parse(r.body) as Attribute;
      return [attribute.attribute_id, { attribute, refs: r.refs }] as const;
    }));
  }

  async upsertAttributes<I extends { attribute_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: Attribute | undefined, referencedBy: number) => Decision<Attribute>,
  ): Promise<Decision<Attribute>[]> {
    return this.db.write(async (c) => {
      const stored = await this.attributesWithRefs(c, items.map((i) => i.attribute_id));
      const before = new Map([...stored].map(([id, s]) => [id, s.attribute]));
      const decisions: Decision<Attribute>[] = [];
      for (const item of items) {
        const current = stored.get(item.attribute_id);
        const decision = decide(item, current?.attribute, current?.refs ?? 0);
        if (decision.kind === 'write') {
          const body = JSON.stringify(decision.value);
          if (current) await c.query('UPDATE attributes SET body = $1 WHERE attribute_id = $2', [body, item.attribute_id]);
          else await c.query('INSERT INTO attributes (attribute_id, body) VALUES ($1, $2)', [item.attribute_id, body]);
          stored.set(item.attribute_id, { attribute: decision.value, refs: current?.refs ?? 0 });
        }
        decisions.push(decision);
      }
      const changed = [...before].filter(([id, b]) => {
        const after = stored.get(id)?.attribute;
        return after !== undefined && indexShapeChanged(b, after);
      }).map(([id]) => id);
      if (changed.length > 0) await this.index.attributesChanged(c, changed, await this.attributeMap(c), before);
      return decisions;
    });
  }

  async deleteAttributes(ids: readonly string[], decide: (id: string, existing: Attribute | undefined, referencedBy: number) => Decision<null>): Promise<Decision<null>[]> {
    return this.db.write(async (c) => {
      const stored = await this.attributesWithRefs(c, ids);
      const decisions: Decision<null>[] = [];
      for (const id of ids) {
        const current = stored.get(id);
        const decision = decide(id, current?.attribute, current?.refs ?? 0);
        if (decision.kind === 'write' && current) {
          await c.query('DELETE FROM attributes WHERE attribute_id = $1', [id]);
          stored.delete(id);
        }
        decisions.push(decision);
      }
      return decisions;
    });
  }

  async listAttributes(page: KeysetPage): Promise<Attribute[]> {
    const rows = await this.db.query<{ body: string }>('SELECT body FROM attributes WHERE attribute_id > $1 ORDER BY attribute_id LIMIT $2', [page.after ?? '', page.limit]);
    return rows.map((r) => JSON.parse(r.body) as Attribute);
  }

  async getAttributes(ids: readonly string[]): Promise<Attribute[]> {
    const rows = await this.db.query<{ attribute_id: string; body: string }>('SELECT attribute_id, body FROM attributes WHERE attribute_id = ANY($1::text[])', [[...ids]]);
    const byId = new Map(rows.map((r) => [r.attribute_id, JSON.parse(r.body) as Attribute]));
    return ids.flatMap((id) => {
      const a = byId.get(id);
      return a ? [a] : [];
    });
  }

  async allAttributes(): Promise<Attribute[]> {
    return [...(await this.attributesNow()).values()];
  }

  async attributesById(): Promise<ReadonlyMap<string, Attribute>> {
    return this.attributesNow();
  }

  /** Every attribute by id, in creation order: kept for the request's settings version (keptForRequest), else read with the version. */
  private async attributesNow(): Promise<Map<string, Attribute>> {
    const kept = this.keptForRequest()?.attributes;
    if (kept) return kept;
    const rows = (await this.db.pool.query<{ body: string | null; version: number }>(
      `SELECT a.body, ${SETTINGS_VERSION} AS version FROM (SELECT 1) AS one LEFT JOIN attributes a ON true ORDER BY a.seq`,
    )).rows;
    const attributes = attributesByIdOf(rows);
    this.keep(rows[0]?.version, (cache) => (cache.attributes = attributes));
    return attributes;
  }

  // -- what a request keeps of the settings (core/request-scope.ts)

  /**
   * The attributes, organizations and settings kept for the settings version this request read
   * with its token, if it read one and they are kept for it; undefined inside a group transaction
   * (what it reads may not commit) or outside a request.
   */
  private keptForRequest(): SettingsCache | undefined {
    const version = requestScope()?.settingsVersion;
    if (version === undefined || this.db.inGroup) return undefined;
    return this.settingsCache?.version === version ? this.settingsCache : undefined;
  }

  /** Keeps what `fill` sets for settings version `version` (read in the same statement as it), replacing what another version kept. */
  private keep(version: number | undefined, fill: (cache: SettingsCache) => void): void {
    if (version === undefined || this.db.inGroup) return;
    if (this.settingsCache?.version !== version) this.settingsCache = { version, settings: new Map() };
    fill(this.settingsCache);
  }

  // -- parts

  async upsertParts<I extends { part_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: StoredPart | undefined, attributes: ReadonlyMap<string, Attribute>) => Decision<StoredPart>,
  ): Promise<Decision<StoredPart>[]> {
    return this.db.write(async (c) => {
      // The definitions and the stored parts in one round trip (json_agg: two result shapes, one row).
      const read = (await c.query<{ attributes: string[]; parts: PgPartRow[] }>(
        `SELECT (SELECT coalesce(json_agg(a.body ORDER BY a.seq), '[]') FROM attributes a) AS attributes,
                (SELECT coalesce(json_agg(p), '[]') FROM parts p WHERE p.part_id = ANY($1::text[])) AS parts`,
        [[...new Set(items.map((i) => i.part_id))]],
      )).rows[0] ?? { attributes: [], parts: [] };
      const attributes = new Map(read.attributes.map((body) => {
        const a = JSON.parse(body) as Attribute;
        return [a.attribute_id, a] as const;
      }));
      // prepared: documents an import's reader thread built for a new part (prepared-documents.ts);
      // they stand for the part only while its one write in this call is the input alone.
      const state = new Map<string, { pk: number | undefined; part: StoredPart | undefined; dirty: boolean; stored?: StoredPart; prepared?: PreparedPartDocuments | undefined }>();
      for (const row of read.parts) {
        const stored = partFromPgRow(row);
        state.set(row.part_id, { pk: row.pk, part: stored, dirty: false, stored });
      }
      const decisions: Decision<StoredPart>[] = [];
      // The key of the definitions this transaction sees, once an item brings prepared documents.
      let definitions: string | undefined;
      for (const item of items) {
        let s = state.get(item.part_id);
        const decision = decide(item, s?.part, attributes);
        if (decision.kind === 'write') {
          if (!s) {
            s = { pk: undefined, part: undefined, dirty: false };
            state.set(item.part_id, s);
          }
          s.prepared = s.part === undefined && PREPARED_DOCUMENTS in item ? preparedDocuments(item, definitions ??= definitionsKey(attributes.values())) : undefined;
          s.part = decision.value;
          s.dirty = true;
        }
        decisions.push(decision);
      }
      // Only the last state of each part is written: earlier ones inside this call were never visible.
      const inserts: { part: StoredPart; prepared: PreparedPartDocuments | undefined }[] = [];
      const updates: { pk: number; part: StoredPart; previous: StoredPart | undefined }[] = [];
      for (const s of state.values()) {
        if (!s.dirty || !s.part) continue;
        if (s.pk === undefined) inserts.push({ part: s.part, prepared: s.prepared });
        else updates.push({ pk: s.pk, part: s.part, previous: s.stored });
      }
      const written: WrittenPart[] = [];
      if (inserts.length > 0) {
        const ins = await c.query<{ pk: number; part_id: string }>(
          `INSERT INTO parts (part_id, service_id, name, attributes, created_at, modified_at)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[]) RETURNING pk, part_id`,
          [inserts.map((i) => i.part.part_id), inserts.map((i) => i.part.serviceId), inserts.map((i) => JSON.stringify(i.part.name)), inserts.map((i) => JSON.stringify(i.part.attributes)),
            inserts.map((i) => i.part.createdAt), inserts.map((i) => i.part.modifiedAt)],
        );
        const pkOf = new Map(ins.rows.map((r) => [r.part_id, r.pk]));
        for (const { part, prepared } of inserts) written.push({ pk: pkOf.get(part.part_id) ?? 0, part, created: true, ...(prepared ? { prepared } : {}) });
      }
      for (const u of updates) written.push({ pk: u.pk, part: u.part, created: false, previous: u.previous });
      if (written.length === 0) return decisions;
      const refAttributes: string[] = [];
      const refParts: number[] = [];
      const organizations = new Set<string>();
      for (const w of written) {
        for (const entry of w.part.attributes) {
          refAttributes.push(entry.attribute_id);
          refParts.push(w.pk);
          for (const value of entry.values) if (value.organization !== '') organizations.add(value.organization);
        }
      }
      // One statement: the updated rows, their references no longer held deleted and the new ones
      // added (disjoint rows, so the sub-statements cannot meet).
      if (updates.length > 0 || refAttributes.length > 0) {
        await c.query(
          `WITH updated AS (
             UPDATE parts p SET name = u.name, attributes = u.attributes, modified_at = u.modified_at
             FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[]) AS u(pk, name, attributes, modified_at) WHERE p.pk = u.pk),
           refs AS (SELECT * FROM unnest($5::text[], $6::bigint[]) AS r(attribute_id, part_pk)),
           dropped AS (
             DELETE FROM part_attributes pa WHERE pa.part_pk = ANY($1::bigint[])
               AND NOT EXISTS (SELECT 1 FROM refs r WHERE r.attribute_id = pa.attribute_id AND r.part_pk = pa.part_pk))
           INSERT INTO part_attributes (attribute_id, part_pk) SELECT attribute_id, part_pk FROM refs ON CONFLICT DO NOTHING`,
          [updates.map((u) => u.pk), updates.map((u) => JSON.stringify(u.part.name)), updates.map((u) => JSON.stringify(u.part.attributes)), updates.map((u) => u.part.modifiedAt),
            refAttributes, refParts],
        );
      }
      if (organizations.size > 0) await this.ensureOrganizationsIn(c, [...organizations]);
      await this.index.partsWritten(c, written, attributes, Math.max(...written.map((w) => w.part.modifiedAt)));
      return decisions;
    });
  }

  async deleteParts(ids: readonly string[], decide: (id: string, existing: StoredPart | undefined, dependents: { images: number }) => Decision<null>): Promise<Decision<null>[]> {
    return this.db.write(async (c) => {
      const rows = await c.query<PgPartRow & { images: number }>(
        'SELECT p.*, (SELECT count(*) FROM images i WHERE i.part_pk = p.pk) AS images FROM parts p WHERE p.part_id = ANY($1::text[])',
        [[...new Set(ids)]],
      );
      const state = new Map(rows.rows.map((r) => [r.part_id, r]));
      const deleted: number[] = [];
      const decisions: Decision<null>[] = [];
      for (const id of ids) {
        const row = state.get(id);
        const decision = decide(id, row ? partFromPgRow(row) : undefined, { images: row?.images ?? 0 });
        if (decision.kind === 'write' && row) {
          deleted.push(row.pk);
          state.delete(id);
        }
        decisions.push(decision);
      }
      if (deleted.length > 0) {
        await this.index.partsDeleted(c, deleted, this.clock.nowMicros());
        await c.query('DELETE FROM parts WHERE pk = ANY($1::bigint[])', [deleted]);
      }
      return decisions;
    });
  }

  async listParts(page: KeysetPage): Promise<StoredPart[]> {
    const rows = await this.db.query<PgPartRow>('SELECT * FROM parts WHERE part_id > $1 ORDER BY part_id LIMIT $2', [page.after ?? '', page.limit]);
    return rows.map(partFromPgRow);
  }

  async listPartIds(page: KeysetPage): Promise<string[]> {
    const rows = await this.db.query<{ part_id: string }>('SELECT part_id FROM parts WHERE part_id > $1 ORDER BY part_id LIMIT $2', [page.after ?? '', page.limit]);
    return rows.map((row) => row.part_id);
  }

  async getParts(ids: readonly string[]): Promise<StoredPart[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.query<PgPartRow>('SELECT * FROM parts WHERE part_id = ANY($1::text[])', [[...new Set(ids)]]);
    return rows.map(partFromPgRow);
  }

  // -- organizations

  async upsertOrganizations(
    items: readonly Organization[],
    decide: (item: Organization, existing: Organization | undefined, all: ReadonlyMap<string, Organization>) => Decision<Organization>,
  ): Promise<Decision<Organization>[]> {
    return this.db.write(async (c) => {
      const all = new Map((await c.query<Organization>('SELECT org_id, parent_id FROM organizations')).rows.map((o) => [o.org_id, o]));
      const decisions: Decision<Organization>[] = [];
      for (const item of items) {
        const decision = decide(item, all.get(item.org_id), all);
        if (decision.kind === 'write') {
          if (decision.value.parent_id !== null) await this.ensureOrganizationsIn(c, [decision.value.parent_id]);
          await c.query(
            'INSERT INTO organizations (org_id, parent_id) VALUES ($1, $2) ON CONFLICT (org_id) DO UPDATE SET parent_id = excluded.parent_id',
            [decision.value.org_id, decision.value.parent_id],
          );
          all.set(decision.value.org_id, decision.value);
        }
        decisions.push(decision);
      }
      return decisions;
    });
  }

  async listOrganizations(page: KeysetPage): Promise<Organization[]> {
    return this.db.query<Organization>('SELECT org_id, parent_id FROM organizations WHERE org_id > $1 ORDER BY org_id LIMIT $2', [page.after ?? '', page.limit]);
  }

  async allOrganizations(): Promise<Map<string, Organization>> {
    const kept = this.keptForRequest()?.organizations;
    if (kept) return kept;
    const rows = await this.db.query<{ org_id: string | null; parent_id: string | null; version: number }>(
      `SELECT o.org_id, o.parent_id, ${SETTINGS_VERSION} AS version FROM (SELECT 1) AS one LEFT JOIN organizations o ON true`,
    );
    const organizations = new Map(rows.flatMap((r) => (r.org_id === null ? [] : [[r.org_id, { org_id: r.org_id, parent_id: r.parent_id }] as const])));
    this.keep(rows[0]?.version, (cache) => (cache.organizations = organizations));
    return organizations;
  }

  private async ensureOrganizationsIn(c: PgClient, ids: readonly string[]): Promise<void> {
    await c.query('INSERT INTO organizations (org_id, parent_id) SELECT unnest($1::text[]), NULL ON CONFLICT DO NOTHING', [[...ids]]);
  }

  async ensureOrganizations(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.write((c) => this.ensureOrganizationsIn(c, ids));
  }

  // -- tokens and settings

  async createToken(token: StoredToken): Promise<void> {
    await this.db.query('INSERT INTO tokens (name, secret_hash, roles, organization, scopes, created_at, expires_at, last_used_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
      token.name, token.secretHash, JSON.stringify(token.roles), token.organization, token.scopes === null ? null : JSON.stringify(token.scopes), token.createdAt, token.expiresAt, token.lastUsedAt,
    ]);
  }

  /**
   * The token, and the settings version as it was read into the request's scope
   * (core/request-scope.ts). Outside a joined group the read joins other requests' (token-lookups.ts).
   */
  async findTokenByHash(secretHash: string): Promise<StoredToken | undefined> {
    if (this.db.inGroup) {
      const rows = await this.db.query<TokenColumns>('SELECT * FROM tokens WHERE secret_hash = $1', [secretHash]);
      return rows[0] ? tokenFromColumns(rows[0]) : undefined;
    }
    const row = await this.tokenLookups.find(secretHash);
    const scope = requestScope();
    if (scope) scope.settingsVersion = row.settings_version;
    return row.secret_hash !== null ? tokenFromColumns(row as TokenColumns) : undefined;
  }

  async listTokens(): Promise<StoredToken[]> {
    return (await this.db.query<TokenColumns>('SELECT * FROM tokens ORDER BY name')).map(tokenFromColumns);
  }

  async revokeToken(name: string): Promise<boolean> {
    return (await this.db.pool.query('DELETE FROM tokens WHERE name = $1', [name])).rowCount !== 0;
  }

  async rotateToken(name: string, secretHash: string, expiresAt: number | null): Promise<StoredToken | undefined> {
    const rows = await this.db.query<TokenColumns>('UPDATE tokens SET secret_hash = $1, expires_at = $2 WHERE name = $3 RETURNING *', [secretHash, expiresAt, name]);
    return rows[0] ? tokenFromColumns(rows[0]) : undefined;
  }

  /** One autocommit UPDATE, skipped by the WHERE clause when another server wrote a recent time. */
  async touchToken(secretHash: string, at: number, notBefore: number): Promise<void> {
    await this.db.query('UPDATE tokens SET last_used_at = $1 WHERE secret_hash = $2 AND (last_used_at IS NULL OR last_used_at < $3)', [at, secretHash, notBefore]);
  }

  async countTokens(): Promise<number> {
    return (await this.db.query<{ n: number }>('SELECT count(*) AS n FROM tokens'))[0]?.n ?? 0;
  }

  // -- synonyms

  /** The sets last read and the 'synonyms_version' they were read at. */
  private synonymCache: { marker: string; sets: readonly SynonymSet[] } | undefined;

  async upsertSynonyms<I extends { synonym_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: SynonymSet | undefined, storedSets: number) => Decision<SynonymSet>,
  ): Promise<Decision<SynonymSet>[]> {
    if (items.length === 0) return [];
    return this.db.write(async (c) => {
      let count = (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM synonyms')).rows[0]?.n ?? 0;
      const stored = new Map((await c.query<{ synonym_id: string; body: string }>('SELECT synonym_id, body FROM synonyms WHERE synonym_id = ANY($1::text[])', [items.map((i) => i.synonym_id)]))
        .rows.map((r) => [r.synonym_id, JSON.parse(r.body) as SynonymSet]));
      const ids: string[] = [];
      const bodies: string[] = [];
      const decisions = items.map((item) => {
        const existing = stored.get(item.synonym_id);
        const decision = decide(item, existing, count);
        if (decision.kind === 'write') {
          if (!existing) count++;
          stored.set(item.synonym_id, decision.value);
          const at = ids.indexOf(item.synonym_id);
          if (at >= 0) bodies[at] = JSON.stringify(decision.value);
          else {
            ids.push(item.synonym_id);
            bodies.push(JSON.stringify(decision.value));
          }
        }
        return decision;
      });
      if (ids.length > 0) {
        await c.query('INSERT INTO synonyms (synonym_id, body) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (synonym_id) DO UPDATE SET body = excluded.body', [ids, bodies]);
        await this.bumpSynonyms(c);
      }
      return decisions;
    });
  }

  async deleteSynonyms(ids: readonly string[], decide: (id: string, existing: SynonymSet | undefined) => Decision<null>): Promise<Decision<null>[]> {
    if (ids.length === 0) return [];
    return this.db.write(async (c) => {
      const stored = new Map((await c.query<{ synonym_id: string; body: string }>('SELECT synonym_id, body FROM synonyms WHERE synonym_id = ANY($1::text[])', [[...ids]]))
        .rows.map((r) => [r.synonym_id, JSON.parse(r.body) as SynonymSet]));
      const gone: string[] = [];
      const decisions = ids.map((id) => {
        const decision = decide(id, stored.get(id));
        if (decision.kind === 'write') {
          stored.delete(id);
          gone.push(id);
        }
        return decision;
      });
      if (gone.length > 0) {
        await c.query('DELETE FROM synonyms WHERE synonym_id = ANY($1::text[])', [gone]);
        await this.bumpSynonyms(c);
      }
      return decisions;
    });
  }

  private async bumpSynonyms(c: PgClient): Promise<void> {
    await c.query("INSERT INTO settings (key, value) VALUES ('synonyms_version', '1') ON CONFLICT (key) DO UPDATE SET value = (settings.value::bigint + 1)::text");
  }

  async listSynonyms(page: KeysetPage): Promise<SynonymSet[]> {
    return (await this.db.query<{ body: string }>('SELECT body FROM synonyms WHERE synonym_id > $1 ORDER BY synonym_id LIMIT $2', [page.after ?? '', page.limit]))
      .map((r) => JSON.parse(r.body) as SynonymSet);
  }

  async allSynonyms(): Promise<readonly SynonymSet[]> {
    const marker = (await this.getSetting('synonyms_version')) ?? '0';
    if (this.synonymCache?.marker === marker) return this.synonymCache.sets;
    // The marker is read again with the sets (one statement, one snapshot), so a write in between is never cached under the old marker.
    const rows = await this.db.query<{ body: string | null; marker: string | null }>(
      "SELECT s.body, (SELECT value FROM settings WHERE key = 'synonyms_version') AS marker FROM (SELECT 1) AS one LEFT JOIN synonyms s ON true ORDER BY s.synonym_id",
    );
    const sets = rows.flatMap((r) => (r.body !== null ? [JSON.parse(r.body) as SynonymSet] : []));
    // Sets read inside a group transaction may be rolled back with it: not kept.
    if (!this.db.inGroup) this.synonymCache = { marker: rows[0]?.marker ?? '0', sets };
    return sets;
  }

  async getSetting(key: string): Promise<string | undefined> {
    const kept = this.keptForRequest()?.settings;
    if (kept?.has(key)) return kept.get(key) ?? undefined;
    const row = (await this.db.query<{ value: string | null; version: number }>(`SELECT (SELECT value FROM settings WHERE key = $1) AS value, ${SETTINGS_VERSION} AS version`, [key]))[0];
    this.keep(row?.version, (cache) => cache.settings.set(key, row?.value ?? null));
    return row?.value ?? undefined;
  }

  async setSetting(key: string, value: string): Promise<void> {
    if (key !== RANKING_SETTINGS_KEY) {
      await this.db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
      catalogWritten();
      return;
    }
    // The search index builds its documents with the ranking settings' attribute order: it
    // re-indexes what the new row changes in the row's own transaction.
    await this.db.write(async (c) => {
      const before = (await c.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key])).rows[0]?.value;
      await c.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
      await this.index.settingWritten(c, before, value);
    });
  }

  async initSetting(key: string, value: string): Promise<string> {
    // Insert-if-absent, then read: under the write lock both see the same state, on every server.
    return this.db.write(async (c) => {
      await c.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
      return (await c.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key])).rows[0]?.value ?? value;
    });
  }

  async allSettings(): Promise<Map<string, string>> {
    return new Map((await this.db.query<{ key: string; value: string }>('SELECT key, value FROM settings ORDER BY key')).map((r) => [r.key, r.value]));
  }

  async close(): Promise<void> {
    // The pool is shared by every store of the catalog: PgStores.close() ends it.
  }
}
