/**
 * CatalogStore over SQLite (better-sqlite3). Each port method is one synchronous immediate
 * transaction: the core's pure `decide` callbacks run inside it, so a check and its write cannot be
 * separated by another writer (another request, or another process on the same data directory).
 */
import type { Attribute, Organization, SynonymSet } from '../../api/schemas.js';
import type { CatalogStore } from '../../core/ports.js';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';
import { countImagesOfPart } from './image-store.js';
import { encodeAttributes, encodeServiceId, frozenPart, partFromRow, type PartRow } from './part-rows.js';
import { RANKING_SETTINGS_KEY } from '../../core/search/ranking-settings.js';
import type { CatalogWriteListener } from './write-listeners.js';
import type { Decision, KeysetPage, StoredPart, StoredToken } from '../../core/model.js';
import { tokenFromColumns, type TokenColumns } from '../rows.js';
import { definitionsKey, PREPARED_DOCUMENTS, preparedDocuments, type PreparedPartDocuments } from '../../core/search/engine/prepared-documents.js';

/** Tokens a connection keeps (findTokenByHash). */
const TOKEN_CACHE_SIZE = 1_000;
/**
 * Parts read one at a time that a connection keeps between commits (getParts outside a
 * transaction), at most {@link PART_CACHE_SIZE} of them and about {@link PART_CACHE_BYTES} (a
 * part's stored text, counted twice for its decoded objects). Under load a GET part's row cost
 * ~30-40 µs of SQLite and JSON decoding against ~6 µs in a tight loop (cold CPU caches between
 * requests); a part read again costs a Map lookup (GET part against a hello-world).
 * Emptied whole when full or when anything commits.
 */
const PART_CACHE_SIZE = 4_096;
const PART_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * What a connection keeps of one state of the catalog (the data_version read once a turn, and its
 * local write count), read on first use; replaced whole when the version moves.
 */
interface VersionedCache {
  /** PRAGMA data_version when it was filled. */
  dataVersion: number;
  /** This connection's write count when it was filled. */
  localWrites: number;
  attributes?: Map<string, Attribute>;
  organizations?: Map<string, Organization>;
  /** Tokens found, by secret hash (never unknown hashes). */
  tokens?: Map<string, StoredToken>;
  /** Settings read, by key (undefined: read and absent). */
  settings?: Map<string, string | undefined>;
  /** Parts read, by part_id (never absent ones: ids a caller makes up do not take room). Frozen: callers share them. */
  parts?: Map<string, StoredPart>;
  /** What `parts` holds, in bytes as PART_CACHE_BYTES counts them. */
  partBytes: number;
  synonyms?: readonly SynonymSet[];
}

/**
 * A VersionedCache with nothing read yet. Every field is present from the start, so every cache
 * object has the same hidden class whatever a request fills first: filled in another order (a
 * server's warm-up, then its clients), each order was another class, and V8 threw away the code it
 * had optimized for the first ("wrong map" in `current`, `attributesById`, `allOrganizations`).
 */
function emptyCache(dataVersion: number, localWrites: number): VersionedCache {
  return { dataVersion, localWrites, attributes: undefined, organizations: undefined, tokens: undefined, settings: undefined, parts: undefined, partBytes: 0, synonyms: undefined };
}

/** Largest number of ids bound in one `IN (...)` list. */
const MAX_IN = 500;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The SQLite implementation of the catalog's persistent state. */
export class SqliteCatalogStore implements CatalogStore {
  readonly db: SqliteDatabase;
  /** Derived tables (the search index) kept in sync inside each write transaction. */
  readonly listeners: CatalogWriteListener[] = [];
  private readonly stmt;

  constructor(db: SqliteDatabase) {
    this.db = db;
    this.stmt = {
      attributeById: db.prepare<[string], { body: string }>('SELECT body FROM attributes WHERE attribute_id = ?'),
      attributeRefs: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM part_attributes WHERE attribute_id = ?'),
      insertAttribute: db.prepare('INSERT INTO attributes (attribute_id, body) VALUES (?, ?)'),
      updateAttribute: db.prepare('UPDATE attributes SET body = ? WHERE attribute_id = ?'),
      deleteAttribute: db.prepare('DELETE FROM attributes WHERE attribute_id = ?'),
      listAttributes: db.prepare<[string, number], { body: string }>('SELECT body FROM attributes WHERE attribute_id > ? ORDER BY attribute_id LIMIT +?'),
      allAttributes: db.prepare<[], { body: string }>('SELECT body FROM attributes ORDER BY seq'),
      partById: db.prepare<[string], PartRow>('SELECT * FROM parts WHERE part_id = ?'),
      insertPart: db.prepare('INSERT INTO parts (part_id, service_id, name, attributes, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)'),
      updatePart: db.prepare('UPDATE parts SET name = ?, attributes = ?, modified_at = ? WHERE rowid_ = ?'),
      deletePart: db.prepare('DELETE FROM parts WHERE rowid_ = ?'),
      insertPartAttribute: db.prepare('INSERT OR IGNORE INTO part_attributes (attribute_id, part_rowid) VALUES (?, ?)'),
      deletePartAttributes: db.prepare('DELETE FROM part_attributes WHERE part_rowid = ?'),
      listParts: db.prepare<[string, number], PartRow>('SELECT * FROM parts WHERE part_id > ? ORDER BY part_id LIMIT +?'),
      listPartIds: db.prepare<[string, number], string>('SELECT part_id FROM parts WHERE part_id > ? ORDER BY part_id LIMIT +?').pluck(),
      orgById: db.prepare<[string], Organization>('SELECT org_id, parent_id FROM organizations WHERE org_id = ?'),
      upsertOrg: db.prepare('INSERT INTO organizations (org_id, parent_id) VALUES (?, ?) ON CONFLICT(org_id) DO UPDATE SET parent_id = excluded.parent_id'),
      ensureOrg: db.prepare('INSERT OR IGNORE INTO organizations (org_id, parent_id) VALUES (?, NULL)'),
      listOrgs: db.prepare<[string, number], Organization>('SELECT org_id, parent_id FROM organizations WHERE org_id > ? ORDER BY org_id LIMIT +?'),
      allOrgs: db.prepare<[], Organization>('SELECT org_id, parent_id FROM organizations'),
      insertToken: db.prepare('INSERT INTO tokens (name, secret_hash, roles, organization, scopes, created_at, expires_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      rotateToken: db.prepare<[string, number | null, string], TokenColumns>('UPDATE tokens SET secret_hash = ?, expires_at = ? WHERE name = ? RETURNING *'),
      touchToken: db.prepare('UPDATE tokens SET last_used_at = ? WHERE secret_hash = ? AND (last_used_at IS NULL OR last_used_at < ?)'),
      tokenByHash: db.prepare<[string], TokenColumns>('SELECT * FROM tokens WHERE secret_hash = ?'),
      listTokens: db.prepare<[], TokenColumns>('SELECT * FROM tokens ORDER BY name'),
      deleteToken: db.prepare('DELETE FROM tokens WHERE name = ?'),
      countTokens: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM tokens'),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      synonymById: db.prepare<[string], { body: string }>('SELECT body FROM synonyms WHERE synonym_id = ?'),
      countSynonyms: db.prepare<[], number>('SELECT count(*) FROM synonyms').pluck(),
      putSynonym: db.prepare('INSERT INTO synonyms (synonym_id, body) VALUES (?, ?) ON CONFLICT(synonym_id) DO UPDATE SET body = excluded.body'),
      deleteSynonym: db.prepare('DELETE FROM synonyms WHERE synonym_id = ?'),
      listSynonyms: db.prepare<[string, number], string>('SELECT body FROM synonyms WHERE synonym_id > ? ORDER BY synonym_id LIMIT +?').pluck(),
      allSynonyms: db.prepare<[], string>('SELECT body FROM synonyms ORDER BY synonym_id').pluck(),
      bumpSynonyms: db.prepare("INSERT INTO settings (key, value) VALUES ('synonyms_version', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"),
      getSetting: db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?'),
      setSetting: db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      initSetting: db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING'),
    };
  }

  // -- attributes

  private attributeRow(id: string): Attribute | undefined {
    const row = this.stmt.attributeById.get(id);
    return row ? (JSON.parse(row.body) as Attribute) : undefined;
  }

  /**
   * The attribute definitions, cached: every read request needs them (visibility, per-organization
   * resolution) and they change rarely. The cache is dropped when this connection writes
   * (`localWrites`) or another connection commits (`PRAGMA data_version`).
   */
  private attributeMap(): Map<string, Attribute> {
    return (this.current().attributes ??= new Map(this.stmt.allAttributes.all().map((r) => {
      const a = JSON.parse(r.body) as Attribute;
      return [a.attribute_id, a] as const;
    })));
  }

  private organizationMap(): Map<string, Organization> {
    return (this.current().organizations ??= new Map(this.stmt.allOrgs.all().map((o) => [o.org_id, o] as const)));
  }

  /** What is cached of the current state (turnDataVersion, localWrites): emptied when this connection or another has committed since. */
  private current(): VersionedCache {
    const dataVersion = this.turnDataVersion();
    // Two numbers compared, no key built: every request asks three to five times.
    if (this.cache.dataVersion !== dataVersion || this.cache.localWrites !== this.localWrites) this.cache = emptyCache(dataVersion, this.localWrites);
    return this.cache;
  }

  private turnDataVersion(): number {
    // Read once per turn of the event loop: a request asks up to three times (token, attributes,
    // organizations) and each PRAGMA cost ~6 µs of a GET part's ~120. Reads here are
    // not one transaction, so a commit seen a few microseconds later is the same as one seen as
    // the request began; this connection's own writes count at once (localWrites, in current()).
    if (this.dataVersion === undefined) {
      this.dataVersion = this.stmt.dataVersion.get() ?? 0;
      setImmediate(() => (this.dataVersion = undefined));
    }
    return this.dataVersion;
  }

  /** CatalogStore.endTurn: the next read asks for the data version again. */
  endTurn(): void {
    this.dataVersion = undefined;
  }

  /** PRAGMA data_version as read in this turn of the event loop (turnDataVersion). */
  private dataVersion: number | undefined;

  private cache: VersionedCache = emptyCache(-1, -1);
  /** Bumped by every write method of this store (data_version does not see this connection's own commits). */
  private localWrites = 0;

  async upsertAttributes<I extends { attribute_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: Attribute | undefined, referencedBy: number) => Decision<Attribute>,
  ): Promise<Decision<Attribute>[]> {
    this.localWrites++;
    return this.listenedWrite(() =>
      items.map((item) => {
        const existing = this.attributeRow(item.attribute_id);
        const refs = existing ? (this.stmt.attributeRefs.get(item.attribute_id)?.n ?? 0) : 0;
        const decision = decide(item, existing, refs);
        if (decision.kind === 'write') {
          const body = JSON.stringify(decision.value);
          if (existing) this.stmt.updateAttribute.run(body, item.attribute_id);
          else this.stmt.insertAttribute.run(item.attribute_id, body);
          for (const listener of this.listeners) listener.attributeWritten(existing, decision.value);
        }
        return decision;
      }),
    );
  }

  async deleteAttributes(ids: readonly string[], decide: (id: string, existing: Attribute | undefined, referencedBy: number) => Decision<null>): Promise<Decision<null>[]> {
    this.localWrites++;
    return this.db.transaction(() =>
      ids.map((id) => {
        const existing = this.attributeRow(id);
        const decision = decide(id, existing, existing ? (this.stmt.attributeRefs.get(id)?.n ?? 0) : 0);
        if (decision.kind === 'write') this.stmt.deleteAttribute.run(id);
        return decision;
      }),
    ).immediate();
  }

  async listAttributes(page: KeysetPage): Promise<Attribute[]> {
    return this.stmt.listAttributes.all(page.after ?? '', page.limit).map((r) => JSON.parse(r.body) as Attribute);
  }

  async getAttributes(ids: readonly string[]): Promise<Attribute[]> {
    return ids.flatMap((id) => {
      const a = this.attributeRow(id);
      return a ? [a] : [];
    });
  }

  async allAttributes(): Promise<Attribute[]> {
    return [...this.attributeMap().values()];
  }

  async attributesById(): Promise<ReadonlyMap<string, Attribute>> {
    return this.attributeMap();
  }

  // -- parts

  async upsertParts<I extends { part_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: StoredPart | undefined, attributes: ReadonlyMap<string, Attribute>) => Decision<StoredPart>,
  ): Promise<Decision<StoredPart>[]> {
    this.localWrites++; // values may create organizations
    return this.listenedWrite(() => {
      // Read inside the write lock: data_version is current here, so the cached map is too.
      const attributes = this.attributeMap();
      // The key of the definitions this transaction sees, once an item brings prepared documents.
      let definitions: string | undefined;
      return items.map((item) => {
        const row = this.stmt.partById.get(item.part_id);
        const existing = row ? partFromRow(row) : undefined;
        const decision = decide(item, existing, attributes);
        if (decision.kind === 'write') {
          // Documents prepared on an import's reader thread stand for a new part only, built with these definitions.
          let prepared: PreparedPartDocuments | undefined;
          if (existing === undefined && PREPARED_DOCUMENTS in item) prepared = preparedDocuments(item, definitions ??= definitionsKey(attributes.values()));
          this.writePart(decision.value, row?.rowid_, attributes, existing, prepared);
        }
        return decision;
      });
    });
  }

  /**
   * `body` in one immediate write transaction with the listeners told: they write what they
   * gathered before the commit (unless deferred to an enclosing group), drop it if `body` throws,
   * and learn that it committed when this call opened the transaction and it did.
   */
  private listenedWrite<T>(body: () => T): T {
    const result = this.db.transaction(() => this.withListeners(body)).immediate();
    if (!this.db.inTransaction) this.listenersCommitted();
    return result;
  }

  /**
   * Runs one transaction's body, then lets every listener write what it gathered (before the
   * commit); when the body throws, listeners drop what they gathered and the error propagates.
   */
  private withListeners<T>(body: () => T): T {
    try {
      const result = body();
      if (!this.listenersDeferred) for (const listener of this.listeners) listener.beforeCommit?.();
      return result;
    } catch (error) {
      for (const listener of this.listeners) listener.rolledBack?.();
      throw error;
    }
  }

  private writePart(part: StoredPart, rowid: number | undefined, definitions?: ReadonlyMap<string, Attribute>, previous?: StoredPart, prepared?: PreparedPartDocuments): void {
    const name = JSON.stringify(part.name);
    const attributes = encodeAttributes(part.attributes);
    let id = rowid;
    if (id === undefined) {
      id = Number(this.stmt.insertPart.run(part.part_id, encodeServiceId(part.serviceId), name, attributes, part.createdAt, part.modifiedAt).lastInsertRowid);
    } else {
      this.stmt.updatePart.run(name, attributes, part.modifiedAt, id);
      this.stmt.deletePartAttributes.run(id);
    }
    for (const entry of part.attributes) {
      this.stmt.insertPartAttribute.run(entry.attribute_id, id);
      for (const value of entry.values) if (value.organization !== '') this.stmt.ensureOrg.run(value.organization);
    }
    if (this.listeners.length > 0) {
      const current = definitions ?? this.attributeMap();
      for (const listener of this.listeners) listener.partWritten(id, part, current, rowid === undefined, previous, prepared);
    }
  }

  async deleteParts(ids: readonly string[], decide: (id: string, existing: StoredPart | undefined, dependents: { images: number }) => Decision<null>): Promise<Decision<null>[]> {
    this.localWrites++;
    return this.listenedWrite(() =>
      ids.map((id) => {
        const row = this.stmt.partById.get(id);
        const existing = row ? partFromRow(row) : undefined;
        const decision = decide(id, existing, { images: row ? countImagesOfPart(this.db, row.rowid_) : 0 });
        if (decision.kind === 'write' && row && existing) {
          for (const listener of this.listeners) listener.partDeleted(row.rowid_, existing);
          this.stmt.deletePart.run(row.rowid_);
        }
        return decision;
      }),
    );
  }

  async listParts(page: KeysetPage): Promise<StoredPart[]> {
    return this.stmt.listParts.all(page.after ?? '', page.limit).map(partFromRow);
  }

  async listPartIds(page: KeysetPage): Promise<string[]> {
    return this.stmt.listPartIds.all(page.after ?? '', page.limit);
  }

  async getParts(ids: readonly string[]): Promise<StoredPart[]> {
    // Inside a transaction (a write deciding on what is stored) always the rows themselves.
    const state = this.db.inTransaction ? undefined : this.current();
    const cache = state?.parts;
    // One part (GET part) is kept for the next read of it; a list (a page of hits) takes what is
    // kept but adds nothing: freezing costs ~1 µs a part, and a page's parts are rarely read again.
    const keep = ids.length === 1;
    const out: StoredPart[] = [];
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const cached = cache?.get(id);
      if (cached) out.push(cached);
      else missing.push(id);
    }
    for (const chunk of chunks(missing, MAX_IN)) {
      const rows = chunk.length === 1 ? [this.stmt.partById.get(chunk[0] as string)].filter((r): r is PartRow => r !== undefined) : this.partsIn(chunk.length).all(...chunk);
      for (const row of rows) {
        const part = partFromRow(row);
        if (keep && state) this.keepPart(state, row, part);
        out.push(part);
      }
    }
    return out;
  }

  /** Keeps `part` (read from `row`) in `state` for the next read of it, frozen, within PART_CACHE_SIZE and PART_CACHE_BYTES. */
  private keepPart(state: VersionedCache, row: PartRow, part: StoredPart): void {
    const bytes = 2 * (row.part_id.length + row.name.length + row.attributes.length) + 256;
    // A part as big as a sixteenth of the budget is read each time rather than empty the cache.
    if (bytes > PART_CACHE_BYTES / 16) return;
    const parts = (state.parts ??= new Map());
    if (parts.size >= PART_CACHE_SIZE || state.partBytes + bytes > PART_CACHE_BYTES) {
      parts.clear();
      state.partBytes = 0;
    }
    parts.set(part.part_id, frozenPart(part));
    state.partBytes = state.partBytes + bytes;
  }

  /** Prepared `part_id IN (?, ...)` statements by arity (preparing costs more than running). */
  private partsIn(arity: number): Statement<string[], PartRow> {
    let stmt = this.partsInCache.get(arity);
    if (!stmt) {
      stmt = this.db.prepare<string[], PartRow>(`SELECT * FROM parts WHERE part_id IN (${Array.from({ length: arity }, () => '?').join(',')})`);
      if (this.partsInCache.size > 64) this.partsInCache.clear();
      this.partsInCache.set(arity, stmt);
    }
    return stmt;
  }

  private readonly partsInCache = new Map<number, Statement<string[], PartRow>>();

  // -- organizations

  async upsertOrganizations(
    items: readonly Organization[],
    decide: (item: Organization, existing: Organization | undefined, all: ReadonlyMap<string, Organization>) => Decision<Organization>,
  ): Promise<Decision<Organization>[]> {
    this.localWrites++;
    return this.db.transaction(() => {
      const all = new Map(this.stmt.allOrgs.all().map((o) => [o.org_id, o]));
      return items.map((item) => {
        const decision = decide(item, all.get(item.org_id), all);
        if (decision.kind === 'write') {
          if (decision.value.parent_id !== null) this.stmt.ensureOrg.run(decision.value.parent_id);
          this.stmt.upsertOrg.run(decision.value.org_id, decision.value.parent_id);
          all.set(decision.value.org_id, decision.value);
        }
        return decision;
      });
    }).immediate();
  }

  async listOrganizations(page: KeysetPage): Promise<Organization[]> {
    return this.stmt.listOrgs.all(page.after ?? '', page.limit);
  }

  async allOrganizations(): Promise<Map<string, Organization>> {
    return new Map(this.organizationMap());
  }

  async ensureOrganizations(ids: readonly string[]): Promise<void> {
    this.localWrites++;
    this.db.transaction(() => {
      for (const id of ids) this.stmt.ensureOrg.run(id);
    }).immediate();
  }

  // -- tokens and settings

  async createToken(token: StoredToken): Promise<void> {
    this.localWrites++;
    this.stmt.insertToken.run(token.name, token.secretHash, JSON.stringify(token.roles), token.organization, token.scopes === null ? null : JSON.stringify(token.scopes), token.createdAt, token.expiresAt, token.lastUsedAt);
  }

  async rotateToken(name: string, secretHash: string, expiresAt: number | null): Promise<StoredToken | undefined> {
    this.localWrites++;
    const row = this.stmt.rotateToken.get(secretHash, expiresAt, name);
    return row ? tokenFromColumns(row) : undefined;
  }

  /**
   * Best effort, never waiting: the statement runs with no busy timeout, so while another
   * connection (an import, the server's writer thread) holds the write lock it is skipped rather
   * than block this thread's event loop for up to the 30 s timeout; the token's next use a minute
   * later tries again. A write commits, so every connection's once-per-turn caches empty: once a
   * minute per token in use.
   */
  async touchToken(secretHash: string, at: number, notBefore: number): Promise<void> {
    if (this.db.inTransaction) return;
    const timeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    try {
      this.localWrites++;
      this.stmt.touchToken.run(at, secretHash, notBefore);
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    } finally {
      this.db.pragma(`busy_timeout = ${timeout}`);
    }
  }

  /**
   * The token with this hash. Found tokens are kept with the attribute cache (dropped on any write,
   * by this connection or another, so a revoked token fails at once): every request authenticates,
   * and the lookup was the largest item of a GET part's main-thread time after HTTP itself (issue
   * 12). Unknown hashes are not kept, so guessing cannot grow the cache; at most
   * {@link TOKEN_CACHE_SIZE} are.
   */
  async findTokenByHash(secretHash: string): Promise<StoredToken | undefined> {
    const tokens = (this.current().tokens ??= new Map());
    const cached = tokens.get(secretHash);
    if (cached) return cached;
    const row = this.stmt.tokenByHash.get(secretHash);
    if (!row) return undefined;
    const token = tokenFromColumns(row);
    if (tokens.size >= TOKEN_CACHE_SIZE) tokens.clear();
    tokens.set(secretHash, token);
    return token;
  }

  async listTokens(): Promise<StoredToken[]> {
    return this.stmt.listTokens.all().map(tokenFromColumns);
  }

  async revokeToken(name: string): Promise<boolean> {
    this.localWrites++;
    return this.stmt.deleteToken.run(name).changes > 0;
  }

  async countTokens(): Promise<number> {
    return this.stmt.countTokens.get()?.n ?? 0;
  }

  // -- synonyms

  /** The sets last read and the 'synonyms_version' they were read at (kept across versions: the same array while unchanged). */
  private synonymCache: { marker: string; sets: readonly SynonymSet[] } | undefined;

  async upsertSynonyms<I extends { synonym_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: SynonymSet | undefined, storedSets: number) => Decision<SynonymSet>,
  ): Promise<Decision<SynonymSet>[]> {
    this.localWrites++;
    return this.db.transaction(() => {
      let count = this.stmt.countSynonyms.get() ?? 0;
      let wrote = false;
      const decisions = items.map((item) => {
        const row = this.stmt.synonymById.get(item.synonym_id);
        const decision = decide(item, row ? (JSON.parse(row.body) as SynonymSet) : undefined, count);
        if (decision.kind === 'write') {
          this.stmt.putSynonym.run(decision.value.synonym_id, JSON.stringify(decision.value));
          if (!row) count++;
          wrote = true;
        }
        return decision;
      });
      if (wrote) this.stmt.bumpSynonyms.run();
      return decisions;
    }).immediate();
  }

  async deleteSynonyms(ids: readonly string[], decide: (id: string, existing: SynonymSet | undefined) => Decision<null>): Promise<Decision<null>[]> {
    this.localWrites++;
    return this.db.transaction(() => {
      let wrote = false;
      const decisions = ids.map((id) => {
        const row = this.stmt.synonymById.get(id);
        const decision = decide(id, row ? (JSON.parse(row.body) as SynonymSet) : undefined);
        if (decision.kind === 'write') {
          this.stmt.deleteSynonym.run(id);
          wrote = true;
        }
        return decision;
      });
      if (wrote) this.stmt.bumpSynonyms.run();
      return decisions;
    }).immediate();
  }

  async listSynonyms(page: KeysetPage): Promise<SynonymSet[]> {
    return this.stmt.listSynonyms.all(page.after ?? '', page.limit).map((body) => JSON.parse(body) as SynonymSet);
  }

  async allSynonyms(): Promise<readonly SynonymSet[]> {
    // Nothing committed since the last check (turnDataVersion): every search asks, and the read
    // transaction below cost more than the rest of a rare-word search's SQLite work.
    const cache = this.current();
    // One read transaction: the marker and the sets agree.
    return (cache.synonyms ??= this.db.transaction(() => {
      const marker = this.stmt.getSetting.get('synonyms_version')?.value ?? '0';
      if (this.synonymCache?.marker !== marker) {
        this.synonymCache = { marker, sets: this.stmt.allSynonyms.all().map((body) => JSON.parse(body) as SynonymSet) };
      }
      return this.synonymCache.sets;
    })());
  }

  /**
   * A setting, kept until a commit (current()): every request reads the maintenance flag (issue
   * 12, GET part's hot path). Inside a transaction the row is read, so a write path always sees
   * its own snapshot.
   */
  async getSetting(key: string): Promise<string | undefined> {
    if (this.db.inTransaction) return this.stmt.getSetting.get(key)?.value;
    const values = (this.current().settings ??= new Map());
    if (values.has(key)) return values.get(key);
    const value = this.stmt.getSetting.get(key)?.value;
    values.set(key, value);
    return value;
  }

  async setSetting(key: string, value: string): Promise<void> {
    this.localWrites++;
    if (key !== RANKING_SETTINGS_KEY || this.listeners.length === 0) {
      this.stmt.setSetting.run(key, value);
      return;
    }
    // The search index builds its documents with the ranking settings' attribute order: it
    // re-indexes what the new row changes in the row's own transaction.
    this.listenedWrite(() => {
      const before = this.stmt.getSetting.get(key)?.value;
      this.stmt.setSetting.run(key, value);
      for (const listener of this.listeners) listener.settingWritten?.(key, before, value);
    });
  }

  async initSetting(key: string, value: string): Promise<string> {
    this.localWrites++;
    // One write transaction: the insert-if-absent and the read see the same state.
    return this.db.transaction(() => {
      this.stmt.initSetting.run(key, value);
      return this.stmt.getSetting.get(key)?.value ?? value;
    }).immediate();
  }

  async allSettings(): Promise<Map<string, string>> {
    const rows = this.db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings ORDER BY key').all();
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  /**
   * While true (a transaction around several writes, group-commit.ts), the listeners gather the
   * writes of every write method and write them once, at {@link flushListeners}: a frequent word's
   * posting block is rewritten once for all of them.
   */
  private listenersDeferred = false;

  /** Defers (true) the listeners' writes to {@link flushListeners}, or ends that (false). */
  deferListeners(deferred: boolean): void {
    this.listenersDeferred = deferred;
  }

  /** The listeners write what they gathered (the enclosing transaction is about to commit). */
  flushListeners(): void {
    for (const listener of this.listeners) listener.beforeCommit?.();
  }

  /** The enclosing transaction whose writes {@link flushListeners} wrote has committed. */
  listenersCommitted(): void {
    for (const listener of this.listeners) listener.committed?.();
  }

  /** Calls of this store's write methods so far: a write that changed nothing here leaves it as it was. */
  get writeCalls(): number {
    return this.localWrites;
  }

  /**
   * Forgets what this connection keeps of writes that did not commit after all (a transaction
   * opened around several store writes, group-commit.ts, rolled back): the cached state is read
   * again, and the listeners (the search index) drop what they hold of those writes.
   */
  forgetUncommitted(): void {
    this.localWrites++;
    for (const listener of this.listeners) listener.rolledBack?.();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
