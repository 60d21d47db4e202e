/**
 * Versioned schema migrations, applied in order inside one transaction each; the schema version is
 * SQLite's `user_version`. Append new migrations; never edit one that has shipped.
 */

import { NFC_MIGRATION_FUNCTIONS } from './nfc-ids.js';

/** One schema step. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** SQL functions the step's SQL calls, registered on the connection before it runs (by SQL name). */
  functions?: Readonly<Record<string, (...args: unknown[]) => unknown>>;
  /**
   * Columns the step adds before its SQL runs, each only when the table lacks it (SQLite has no
   * ADD COLUMN IF NOT EXISTS, and every step must be safe to run again over its own result).
   */
  addColumns?: readonly { table: string; column: string; definition: string }[];
}

/** Refuses (nfc_collision throws) when two values of `table`.`column` have one NFC form. */
function refuseNfcCollisions(table: string, column: string): string {
  return `SELECT nfc_collision('${table}', group_concat(${column}, char(0))) FROM ${table} GROUP BY nfc_id(${column}) HAVING count(*) > 1;`;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'foundation: attributes, parts, organizations, tokens, settings',
    sql: `
      CREATE TABLE attributes (
        seq INTEGER PRIMARY KEY,             -- creation order (spec 2.1 display_order fallback)
        attribute_id TEXT NOT NULL UNIQUE,
        body TEXT NOT NULL                   -- JSON of the full attribute
      );
      CREATE TABLE parts (
        rowid_ INTEGER PRIMARY KEY,
        part_id TEXT NOT NULL UNIQUE,
        service_id TEXT NOT NULL,
        name TEXT NOT NULL,                  -- JSON language map
        attributes TEXT NOT NULL,            -- JSON [{attribute_id, values: [{organization, value}]}]
        created_at INTEGER NOT NULL,         -- microseconds since the epoch
        modified_at INTEGER NOT NULL
      );
      -- Which parts reference which attribute: referenced-delete errors and type-change checks.
      CREATE TABLE part_attributes (
        attribute_id TEXT NOT NULL,
        part_rowid INTEGER NOT NULL REFERENCES parts(rowid_) ON DELETE CASCADE,
        PRIMARY KEY (attribute_id, part_rowid)
      ) WITHOUT ROWID;
      CREATE INDEX part_attributes_by_part ON part_attributes(part_rowid);
      CREATE TABLE organizations (
        org_id TEXT PRIMARY KEY,
        parent_id TEXT REFERENCES organizations(org_id)
      ) WITHOUT ROWID;
      CREATE TABLE tokens (
        name TEXT PRIMARY KEY,
        secret_hash TEXT NOT NULL UNIQUE,    -- SHA-256 hex; the secret itself is never stored
        roles TEXT NOT NULL,                 -- JSON array
        organization TEXT,
        created_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: 'part images',
    sql: `
      -- Part images (spec 2.2, decisions §4). The original file lives in the blob store under its
      -- SHA-256 (sha256); identical files share one blob. The part reference does NOT cascade:
      -- deleting a part that still has images is an item error, and the foreign key backs that up.
      CREATE TABLE images (
        seq INTEGER PRIMARY KEY,
        image_id TEXT NOT NULL UNIQUE,
        part_rowid INTEGER NOT NULL REFERENCES parts(rowid_),
        sha256 TEXT NOT NULL,                -- blob key: 64 lowercase hex digits
        size INTEGER NOT NULL,               -- bytes
        mime TEXT NOT NULL,                  -- detected from the bytes
        info TEXT NOT NULL,                  -- space-separated tokens, as given
        position INTEGER,                    -- the position field (integer >= 1), NULL when not set
        features BLOB,                       -- image-search features (ImageFeatureIndexer), NULL when none
        created_at INTEGER NOT NULL,         -- microseconds since the epoch
        modified_at INTEGER NOT NULL
      );
      CREATE INDEX images_by_part ON images(part_rowid, image_id);
      CREATE INDEX images_by_sha256 ON images(sha256);
    `,
  },
  {
    version: 3,
    name: 'part relations',
    sql: `
      -- One row per unordered pair of parts (spec 2.3: the latest write for a pair counts), in
      -- canonical rowid order plus the direction; deleting a part removes its relations.
      CREATE TABLE part_relations (
        low_part INTEGER NOT NULL REFERENCES parts(rowid_) ON DELETE CASCADE,
        high_part INTEGER NOT NULL REFERENCES parts(rowid_) ON DELETE CASCADE,
        anchor_is_low INTEGER NOT NULL CHECK (anchor_is_low IN (0, 1)),  -- 1: low_part is the anchor
        type TEXT NOT NULL,                  -- duplicate, substitute, equivalent, not_related
        source TEXT NOT NULL,                -- confirmed_by_user, ingested
        user_id TEXT,                        -- name of the token that wrote it
        created_at INTEGER NOT NULL,         -- microseconds since the epoch
        PRIMARY KEY (low_part, high_part),
        CHECK (low_part < high_part)
      ) WITHOUT ROWID;
      CREATE INDEX part_relations_by_high ON part_relations(high_part);
    `,
  },
  {
    version: 4,
    name: 'text search index',
    sql: `
      -- Text search (decisions §8; src/adapters/sqlite/search-index.ts, docs/search.md). Kept in
      -- sync by SqliteCatalogStore's write transactions; filled for existing parts on first open
      -- (search_state.rebuild = 'pending').
      -- One immutable version of a part's result fields per write; sessions reference these ids.
      CREATE TABLE search_cards (
        id INTEGER PRIMARY KEY,
        part_rowid INTEGER NOT NULL,         -- parts.rowid_ (no foreign key: cards outlive their part)
        part_id TEXT NOT NULL,
        service_id TEXT NOT NULL,
        names TEXT NOT NULL,                 -- JSON language map
        created_at INTEGER NOT NULL,         -- microseconds since the epoch
        modified_at INTEGER NOT NULL,
        superseded_at INTEGER                -- NULL while current; kept 25 h after for sessions
      );
      CREATE INDEX search_cards_superseded ON search_cards(superseded_at) WHERE superseded_at IS NOT NULL;
      CREATE TABLE search_current (
        part_rowid INTEGER PRIMARY KEY,      -- parts.rowid_
        card_id INTEGER NOT NULL,            -- search_cards.id = search_docs.rowid
        holder INTEGER NOT NULL,             -- 1: the part has per-organization values
        org_doc INTEGER NOT NULL             -- 1: it has a search_org_docs row
      );
      CREATE VIRTUAL TABLE search_docs USING fts5(
        pid, names, v0, v1, v2, v3, flt, meta,
        content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
      );
      -- Names and ids weigh ten times values; filter and marker tokens do not count.
      INSERT INTO search_docs (search_docs, rank) VALUES ('rank', 'bm25(8.0, 10.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0)');
      CREATE VIRTUAL TABLE search_org_docs USING fts5(
        o0, o1, o2, o3,
        content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
      );
      CREATE TABLE search_terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
      CREATE TABLE search_term_keys (
        key TEXT NOT NULL,                   -- a term or the term minus one letter
        term TEXT NOT NULL,
        PRIMARY KEY (key, term)
      ) WITHOUT ROWID;
      CREATE TABLE search_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      INSERT INTO search_state (key, value) VALUES ('rebuild', 'pending');
    `,
  },
  {
    version: 5,
    name: 'search engine',
    sql: `
      -- The search engine's index (src/core/search/engine, src/adapters/sqlite/search/engine-store.ts,
      -- docs/search.md): posting lists in blocks with block-max bounds, per-part lengths and order
      -- keys, collection statistics. Replaces the FTS5 table search_docs; filled on first open
      -- (search_state.layout).
      DROP TABLE IF EXISTS search_docs;
      CREATE TABLE engine_terms (
        id INTEGER PRIMARY KEY,
        term TEXT NOT NULL UNIQUE,           -- a folded token, or ID_MARK/FILTER_MARK + ..., or the holder term
        version INTEGER NOT NULL             -- engine_stats.version of the write that last changed it
      );
      CREATE INDEX engine_terms_version ON engine_terms(version);
      CREATE TABLE engine_postings (
        term_id INTEGER NOT NULL,
        first_doc INTEGER NOT NULL,          -- parts.rowid_ of the block's first posting
        data BLOB NOT NULL,                  -- core/search/engine/postings.ts encodeBlock
        PRIMARY KEY (term_id, first_doc)
      ) WITHOUT ROWID;
      CREATE TABLE engine_docs (
        chunk INTEGER PRIMARY KEY,           -- parts.rowid_ / 256
        version INTEGER NOT NULL,
        data BLOB NOT NULL                   -- card ids, order keys, lengths, flags of 256 parts
      );
      CREATE INDEX engine_docs_version ON engine_docs(version);
      CREATE TABLE engine_stats (
        id INTEGER PRIMARY KEY CHECK (id = 0),
        version INTEGER NOT NULL,
        n INTEGER NOT NULL,                  -- parts indexed
        len0 INTEGER NOT NULL, len1 INTEGER NOT NULL, len2 INTEGER NOT NULL, len3 INTEGER NOT NULL  -- Σ length per tier
      );
      INSERT INTO engine_stats (id, version, n, len0, len1, len2, len3) VALUES (0, 0, 0, 0, 0, 0, 0);
      INSERT INTO search_state (key, value) VALUES ('layout', 'pending') ON CONFLICT(key) DO UPDATE SET value = excluded.value;
    `,
  },
  {
    version: 6,
    name: 'synonym sets',
    sql: `
      -- Applied at query time (core/search/synonyms.ts): nothing is indexed; settings key
      -- 'synonyms_version' changes with every write, so readers know when to re-read them.
      CREATE TABLE synonyms (
        synonym_id TEXT PRIMARY KEY,
        body TEXT NOT NULL                   -- JSON {synonym_id, input?, synonyms}
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 7,
    name: 'image feature change log',
    sql: `
      -- One row per change of an image's features, or of the part of an image with features,
      -- written by triggers in the writing transaction (whoever writes: a server, a CLI, the
      -- backfill), so the photo index applies just those changes instead of reloading every
      -- reference (ReferenceFeatureStore.changesSince; docs/search.md, "Photo search"). seq grows in
      -- commit order (SQLite has one writer at a time). Bounded: every 1,000th change prunes all
      -- but the last 100,000; a reader further behind reloads everything.
      CREATE TABLE image_feature_changes (
        seq INTEGER PRIMARY KEY,
        image_id TEXT NOT NULL
      );
      CREATE TRIGGER image_features_inserted AFTER INSERT ON images WHEN NEW.features IS NOT NULL
      BEGIN INSERT INTO image_feature_changes (image_id) VALUES (NEW.image_id); END;
      CREATE TRIGGER image_features_deleted AFTER DELETE ON images WHEN OLD.features IS NOT NULL
      BEGIN INSERT INTO image_feature_changes (image_id) VALUES (OLD.image_id); END;
      CREATE TRIGGER image_features_updated AFTER UPDATE ON images
        WHEN OLD.features IS NOT NEW.features OR (NEW.features IS NOT NULL AND (OLD.part_rowid IS NOT NEW.part_rowid OR OLD.image_id IS NOT NEW.image_id))
      BEGIN
        INSERT INTO image_feature_changes (image_id) SELECT OLD.image_id WHERE OLD.image_id IS NOT NEW.image_id;
        INSERT INTO image_feature_changes (image_id) VALUES (NEW.image_id);
      END;
      CREATE TRIGGER image_feature_changes_pruned AFTER INSERT ON image_feature_changes WHEN NEW.seq % 1000 = 0
      BEGIN DELETE FROM image_feature_changes WHERE seq <= NEW.seq - 100000; END;
    `,
  },
  {
    version: 8,
    name: 'result cards copied on write',
    sql: `
      -- A part's current result card is its parts row (card id = card_base + version * 2^32 +
      -- rowid, search-index.ts cardId); search_cards keeps only the copies of superseded versions,
      -- written when a part is replaced or deleted and kept 25 hours for sessions. Every card of
      -- the old layout (one row per part) becomes such a copy under its old id (< card_base), so
      -- sessions made before the upgrade keep their pages; they go 25 hours from now like any
      -- superseded card. The index is rebuilt on first open (new card ids in the engine's rows).
      UPDATE search_cards SET superseded_at = CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER) WHERE superseded_at IS NULL;
      INSERT INTO search_state (key, value) SELECT 'card_base', CAST(coalesce(max(id), 0) + 1 AS TEXT) FROM search_cards WHERE true
        ON CONFLICT(key) DO UPDATE SET value = excluded.value;
      INSERT INTO search_state (key, value) VALUES ('rebuild', 'pending') ON CONFLICT(key) DO UPDATE SET value = excluded.value;
      -- The newest copy of a rowid: a part that reuses the rowid of a deleted one starts above it.
      CREATE INDEX search_cards_by_part ON search_cards(part_rowid, id);
    `,
  },
  {
    version: 9,
    name: 'compact parts rows',
    sql: `
      -- src/adapters/sqlite/part-rows.ts: a lowercase UUID service id as its 16 bytes; attributes
      -- as [[attribute_id, [LangMap | [organization, LangMap], ...]], ...]. Both forms stay
      -- readable; rows whose values carry other fields keep the object form. The freed pages are
      -- reused by later writes (VACUUM returns them to the file system).
      UPDATE parts SET service_id = unhex(replace(service_id, '-', ''))
        WHERE typeof(service_id) = 'text' AND length(service_id) = 36
          AND service_id GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]';
      UPDATE parts SET attributes = (
          SELECT json_group_array(json(json_array(a.value ->> '$.attribute_id', json((
            SELECT json_group_array(json(CASE WHEN v.value ->> '$.organization' = '' THEN v.value -> '$.value' ELSE json_array(v.value ->> '$.organization', json(v.value -> '$.value')) END))
            FROM json_each(a.value, '$.values') AS v
          )))))
          FROM json_each(parts.attributes) AS a
        )
        WHERE attributes GLOB '[[]{*' AND NOT EXISTS (
          SELECT 1 FROM json_each(parts.attributes) AS a, json_each(a.value, '$.values') AS v, json_each(v.value) AS k
          WHERE k.key NOT IN ('organization', 'value')
        );
    `,
  },
  {
    version: 10,
    name: 'changed-terms log of the search engine',
    sql: `
      -- Which terms each engine write changed, one row per write: readers evict just those from
      -- their decoded-list caches. It replaces touching engine_terms.version of every recurring
      -- term (an UPDATE and two index writes a term: ~400,000 a 200,000-part import, ~9 % of the
      -- writer's CPU). engine_terms.version stays as written (no longer read). A reader behind
      -- term_log_start, or further behind than the log keeps, evicts everything instead.
      CREATE TABLE engine_term_changes (
        version INTEGER PRIMARY KEY,         -- engine_stats.version of the write
        term_ids BLOB NOT NULL               -- the term ids it wrote, ascending, as varint deltas
      );
      ALTER TABLE engine_stats ADD COLUMN term_log_start INTEGER NOT NULL DEFAULT 0;
      UPDATE engine_stats SET term_log_start = version;
      DROP INDEX engine_terms_version;
    `,
  },
  {
    version: 11,
    name: 'token scopes, expiry and last use (docs/api.md "Tokens")',
    sql: `
      ALTER TABLE tokens ADD COLUMN scopes TEXT;            -- JSON array; NULL: everything the roles allow
      ALTER TABLE tokens ADD COLUMN expires_at INTEGER;     -- microseconds; NULL: never
      ALTER TABLE tokens ADD COLUMN last_used_at INTEGER;   -- microseconds, written at most once a minute
    `,
  },
  {
    version: 12,
    name: 'change feed and webhook outbox',
    sql: `
      -- The change feed (src/core/changes, docs/api.md "Changes"): one row per written or deleted
      -- attribute, part, image, relation, synonym set, organization and the maintenance setting,
      -- written by triggers in the writing transaction (whoever writes: a server, a CLI, catalog
      -- migrate), so a change commits with its write or not at all. SQLite has one writer at a
      -- time, so numbers grow in commit order; AUTOINCREMENT never reuses a pruned number.
      CREATE TABLE changes (
        change INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,                 -- microseconds since the epoch (the database's clock)
        type TEXT NOT NULL,                  -- attribute, part, image, relation, synonym, organization, setting
        id TEXT NOT NULL,                    -- the item's id (a relation: its anchor_part_id)
        related_id TEXT,                     -- a relation's related_part_id
        op TEXT NOT NULL                     -- upsert, delete
      );
      -- Retention: every 1,000th change prunes the changes older than the retention (settings
      -- change_retention_seconds, default 30 days); pruned_through is the newest pruned number,
      -- so a reader asking for changes after an older number is told they are gone (410).
      CREATE TABLE change_log (id INTEGER PRIMARY KEY CHECK (id = 0), pruned_through INTEGER NOT NULL);
      INSERT INTO change_log (id, pruned_through) VALUES (0, 0);
      CREATE TRIGGER changes_pruned AFTER INSERT ON changes WHEN NEW.change % 1000 = 0
      BEGIN
        UPDATE change_log SET pruned_through = max(pruned_through, coalesce((SELECT max(change) FROM changes WHERE at < NEW.at - 1000000 *
          coalesce((SELECT CAST(value AS INTEGER) FROM settings WHERE key = 'change_retention_seconds'), 2592000)), 0));
        DELETE FROM changes WHERE change <= (SELECT pruned_through FROM change_log);
      END;

      CREATE TRIGGER attributes_changed_i AFTER INSERT ON attributes BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'attribute', NEW.attribute_id, 'upsert'); END;
      CREATE TRIGGER attributes_changed_u AFTER UPDATE ON attributes BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'attribute', NEW.attribute_id, 'upsert'); END;
      CREATE TRIGGER attributes_changed_d AFTER DELETE ON attributes BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'attribute', OLD.attribute_id, 'delete'); END;

      CREATE TRIGGER parts_changed_i AFTER INSERT ON parts BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'part', NEW.part_id, 'upsert'); END;
      CREATE TRIGGER parts_changed_u AFTER UPDATE OF part_id, service_id, name, attributes, modified_at ON parts BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'part', NEW.part_id, 'upsert'); END;
      CREATE TRIGGER parts_changed_d AFTER DELETE ON parts BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'part', OLD.part_id, 'delete'); END;

      -- An image's features are not part of the feed (the backfill rewrites them).
      CREATE TRIGGER images_changed_i AFTER INSERT ON images BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'image', NEW.image_id, 'upsert'); END;
      CREATE TRIGGER images_changed_u AFTER UPDATE OF image_id, part_rowid, sha256, size, mime, info, position, modified_at ON images BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'image', NEW.image_id, 'upsert'); END;
      CREATE TRIGGER images_changed_d AFTER DELETE ON images BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'image', OLD.image_id, 'delete'); END;

      -- A relation by its anchor and related part. A relation removed with its part is not a
      -- change of its own: the part's deletion says it (its parts row is gone when this runs).
      CREATE TRIGGER relations_changed_i AFTER INSERT ON part_relations BEGIN
        INSERT INTO changes (at, type, id, related_id, op) SELECT CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'relation',
          CASE WHEN NEW.anchor_is_low THEN l.part_id ELSE h.part_id END, CASE WHEN NEW.anchor_is_low THEN h.part_id ELSE l.part_id END, 'upsert'
          FROM parts l, parts h WHERE l.rowid_ = NEW.low_part AND h.rowid_ = NEW.high_part; END;
      CREATE TRIGGER relations_changed_u AFTER UPDATE ON part_relations BEGIN
        INSERT INTO changes (at, type, id, related_id, op) SELECT CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'relation',
          CASE WHEN NEW.anchor_is_low THEN l.part_id ELSE h.part_id END, CASE WHEN NEW.anchor_is_low THEN h.part_id ELSE l.part_id END, 'upsert'
          FROM parts l, parts h WHERE l.rowid_ = NEW.low_part AND h.rowid_ = NEW.high_part; END;
      CREATE TRIGGER relations_changed_d AFTER DELETE ON part_relations BEGIN
        INSERT INTO changes (at, type, id, related_id, op) SELECT CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'relation',
          CASE WHEN OLD.anchor_is_low THEN l.part_id ELSE h.part_id END, CASE WHEN OLD.anchor_is_low THEN h.part_id ELSE l.part_id END, 'delete'
          FROM parts l, parts h WHERE l.rowid_ = OLD.low_part AND h.rowid_ = OLD.high_part; END;

      CREATE TRIGGER synonyms_changed_i AFTER INSERT ON synonyms BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'synonym', NEW.synonym_id, 'upsert'); END;
      CREATE TRIGGER synonyms_changed_u AFTER UPDATE ON synonyms BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'synonym', NEW.synonym_id, 'upsert'); END;
      CREATE TRIGGER synonyms_changed_d AFTER DELETE ON synonyms BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'synonym', OLD.synonym_id, 'delete'); END;

      CREATE TRIGGER organizations_changed_i AFTER INSERT ON organizations BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'organization', NEW.org_id, 'upsert'); END;
      CREATE TRIGGER organizations_changed_u AFTER UPDATE ON organizations BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'organization', NEW.org_id, 'upsert'); END;

      -- Settings: only the one that is catalog state for others (the rest are this program's own).
      CREATE TRIGGER settings_changed_i AFTER INSERT ON settings WHEN NEW.key = 'maintenance' BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'setting', NEW.key, 'upsert'); END;
      CREATE TRIGGER settings_changed_u AFTER UPDATE ON settings WHEN NEW.key = 'maintenance' AND NEW.value IS NOT OLD.value BEGIN
        INSERT INTO changes (at, type, id, op) VALUES (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'setting', NEW.key, 'upsert'); END;

      -- Webhooks (src/core/webhooks, docs/api.md "Webhooks"): the outbox gets one row per
      -- subscribed webhook and change in the change's own transaction; a delivery removes its row
      -- once the receiver answered 2xx (at least once). secret: the HMAC key, kept as given (it
      -- signs every body, so it cannot be hashed; it is never listed or logged).
      CREATE TABLE webhooks (
        webhook_id TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        secret TEXT NOT NULL,
        types TEXT,                          -- JSON array of change types, NULL: every type
        created_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE webhook_outbox (
        webhook_id TEXT NOT NULL REFERENCES webhooks(webhook_id) ON DELETE CASCADE,
        change INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0,   -- microseconds; a claim moves it into the future (a lease)
        PRIMARY KEY (webhook_id, change)
      ) WITHOUT ROWID;
      CREATE INDEX webhook_outbox_due ON webhook_outbox(next_attempt_at);
      CREATE TABLE webhook_deliveries (
        seq INTEGER PRIMARY KEY,
        webhook_id TEXT NOT NULL,
        change INTEGER NOT NULL,
        attempt INTEGER NOT NULL,
        at INTEGER NOT NULL,                 -- microseconds
        status INTEGER,                      -- the receiver's HTTP status, NULL when none came
        outcome TEXT NOT NULL,               -- delivered, retry, failed
        error TEXT                           -- why, when not delivered
      );
      CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries(webhook_id, seq);
      CREATE TRIGGER changes_to_outbox AFTER INSERT ON changes BEGIN
        INSERT INTO webhook_outbox (webhook_id, change)
          SELECT webhook_id, NEW.change FROM webhooks WHERE types IS NULL OR EXISTS (SELECT 1 FROM json_each(webhooks.types) WHERE value = NEW.type);
      END;
    `,
  },
  {
    version: 13,
    name: 'leveled term dictionaries',
    sql: `
      -- The engine's dictionary (term -> id) and the typo vocabulary keyed by (level, term) instead
      -- of the term alone (src/adapters/sqlite/search/leveled-terms.ts, docs/decisions/0021): new
      -- terms go to a small level 0 and levels move into the next in term order when full, so a new
      -- part number no longer dirties a page of a large index at every commit. The existing terms
      -- start in the level whose share holds them all. engine_terms keeps id -> term, appended in
      -- id order (its unused version column and its UNIQUE index on term go).
      CREATE TABLE engine_term_levels (
        level INTEGER NOT NULL,
        term TEXT NOT NULL,
        id INTEGER NOT NULL,                 -- engine_terms.id
        PRIMARY KEY (level, term)
      ) WITHOUT ROWID;
      INSERT INTO engine_term_levels (level, term, id) SELECT CASE WHEN (SELECT count(*) FROM engine_terms) <= 16384 THEN 0 WHEN (SELECT count(*) FROM engine_terms) <= 131072 THEN 1 WHEN (SELECT count(*) FROM engine_terms) <= 1048576 THEN 2 WHEN (SELECT count(*) FROM engine_terms) <= 8388608 THEN 3 WHEN (SELECT count(*) FROM engine_terms) <= 67108864 THEN 4 WHEN (SELECT count(*) FROM engine_terms) <= 536870912 THEN 5 ELSE 6 END, term, id FROM engine_terms ORDER BY term;
      CREATE TABLE engine_terms_by_id (id INTEGER PRIMARY KEY, term TEXT NOT NULL);
      INSERT INTO engine_terms_by_id (id, term) SELECT id, term FROM engine_terms ORDER BY id;
      DROP TABLE engine_terms;
      ALTER TABLE engine_terms_by_id RENAME TO engine_terms;
      CREATE TABLE search_term_levels (
        level INTEGER NOT NULL,
        term TEXT NOT NULL,
        PRIMARY KEY (level, term)
      ) WITHOUT ROWID;
      INSERT INTO search_term_levels (level, term) SELECT CASE WHEN (SELECT count(*) FROM search_terms) <= 16384 THEN 0 WHEN (SELECT count(*) FROM search_terms) <= 131072 THEN 1 WHEN (SELECT count(*) FROM search_terms) <= 1048576 THEN 2 WHEN (SELECT count(*) FROM search_terms) <= 8388608 THEN 3 WHEN (SELECT count(*) FROM search_terms) <= 67108864 THEN 4 WHEN (SELECT count(*) FROM search_terms) <= 536870912 THEN 5 ELSE 6 END, term FROM search_terms ORDER BY term;
      DROP TABLE search_terms;
    `,
  },
  {
    version: 14,
    name: 'ids in Unicode NFC',
    functions: NFC_MIGRATION_FUNCTIONS,
    sql: `
      -- docs/decisions/0017-ids-are-nfc.md: the core keeps ids in NFC; ids written before may be
      -- in another form (NFD from macOS file names). Two stored ids with one NFC form are refused
      -- (nfc_collision throws, naming both; the transaction rolls back): a person decides which
      -- one survives.
      ${refuseNfcCollisions('attributes', 'attribute_id')}
      ${refuseNfcCollisions('parts', 'part_id')}
      ${refuseNfcCollisions('images', 'image_id')}
      ${refuseNfcCollisions('synonyms', 'synonym_id')}
      ${refuseNfcCollisions('organizations', 'org_id')}
      -- Part ids, attribute ids and organizations are terms of the search index: rebuilt on first
      -- open when any of them changes (as a layout change does), not patched row by row.
      INSERT INTO search_state (key, value) SELECT 'rebuild', 'pending'
        WHERE EXISTS (SELECT 1 FROM parts WHERE part_id <> nfc_id(part_id) OR attributes <> nfc_attributes(attributes))
        ON CONFLICT(key) DO UPDATE SET value = excluded.value;
      UPDATE attributes SET attribute_id = nfc_id(attribute_id), body = json_set(body, '$.attribute_id', nfc_id(attribute_id))
        WHERE attribute_id <> nfc_id(attribute_id);
      UPDATE part_attributes SET attribute_id = nfc_id(attribute_id) WHERE attribute_id <> nfc_id(attribute_id);
      UPDATE parts SET part_id = nfc_id(part_id) WHERE part_id <> nfc_id(part_id);
      UPDATE parts SET attributes = nfc_attributes(attributes) WHERE attributes <> nfc_attributes(attributes);
      UPDATE images SET image_id = nfc_id(image_id) WHERE image_id <> nfc_id(image_id);
      UPDATE synonyms SET synonym_id = nfc_id(synonym_id), body = json_set(body, '$.synonym_id', nfc_id(synonym_id))
        WHERE synonym_id <> nfc_id(synonym_id);
      -- One statement for both columns: the parent key and its references change together.
      UPDATE organizations SET org_id = nfc_id(org_id), parent_id = nfc_id(parent_id)
        WHERE org_id <> nfc_id(org_id) OR parent_id <> nfc_id(parent_id);
      UPDATE tokens SET organization = nfc_id(organization) WHERE organization <> nfc_id(organization);
    `,
  },
  {
    version: 15,
    name: 'change feed pruned from its oldest row',
    sql: `
      -- Every 1,000th change prunes the changes older than the retention. It looked for the newest
      -- change older than the retention (max(change) WHERE at < cutoff), which no index serves: it
      -- read the whole feed (every change of the last 30 days) once per 1,000 parts written, so an
      -- import slowed as the catalog grew. Now it walks from the oldest change kept to the first
      -- one within the retention and prunes what lies before it: it reads the changes it prunes and
      -- one more. With the database's clock moving forward (change numbers follow commit order)
      -- both prune the same changes; should the clock step back, a change is kept until every
      -- change before it has expired (never pruned early).
      DROP TRIGGER changes_pruned;
      CREATE TRIGGER changes_pruned AFTER INSERT ON changes WHEN NEW.change % 1000 = 0
      BEGIN
        UPDATE change_log SET pruned_through = max(pruned_through, coalesce((SELECT change FROM changes WHERE at >= NEW.at - 1000000 *
          coalesce((SELECT CAST(value AS INTEGER) FROM settings WHERE key = 'change_retention_seconds'), 2592000) ORDER BY change LIMIT 1), NEW.change + 1) - 1);
        DELETE FROM changes WHERE change <= (SELECT pruned_through FROM change_log);
      END;
    `,
  },
  {
    version: 16,
    name: 'posting runs',
    sql: `
      -- docs/search.md "Posting runs": a write's postings that follow a stored list (an import's
      -- recurring words) go to a run of that write, appended at the end of engine_runs, instead of
      -- extending each word's last block where it is stored (one page of engine_postings per word
      -- per transaction, written whole to the WAL at every commit). Runs are merged by size:
      -- RUN_FANOUT runs of tier 0 into one of tier 1, RUN_FANOUT of tier 1 into engine_postings.
      CREATE TABLE IF NOT EXISTS engine_runs (
        run INTEGER NOT NULL,                -- engine_run_list.run
        term_id INTEGER NOT NULL,
        first_doc INTEGER NOT NULL,
        data BLOB NOT NULL,                  -- core/search/engine/postings.ts encodeBlock
        PRIMARY KEY (run, term_id, first_doc)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS engine_run_list (
        run INTEGER PRIMARY KEY,             -- ascending = newer postings
        tier INTEGER NOT NULL
      );
    `,
  },
  {
    version: 17,
    name: 'dropped terms',
    sql: `
      -- docs/search.md "Index layout": a term a write empties leaves the dictionary in that write;
      -- its engine_terms row stays while the changed-terms log names it (a reader that kept a range
      -- holding it reads its term there), and goes when the log's row of that write is pruned.
      CREATE TABLE IF NOT EXISTS engine_dropped_terms (
        version INTEGER PRIMARY KEY,         -- engine_term_changes.version of the write
        ids BLOB NOT NULL                    -- the term ids it emptied, as engine_term_changes.term_ids
      );
    `,
  },
  {
    version: 18,
    name: 'terms stored once',
    sql: `
      -- docs/search.md "Index layout": a term is stored in engine_term_levels only. Ids come from
      -- engine_stats.next_term_id (never given again); the changed-terms log carries the terms of
      -- a small write itself, which is all a reader needed engine_terms (id -> term) for.
      -- engine_term_changes.terms: JSON [[id, term], …] of a write of ≤ 4,096 terms, else NULL.
      -- engine_terms is made (empty) when missing, so that the step can run again over its own result.
      CREATE TABLE IF NOT EXISTS engine_terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL);
      UPDATE engine_stats SET next_term_id = max(next_term_id, coalesce((SELECT max(id) FROM engine_terms), 0) + 1);
      DROP TABLE engine_terms;
      DROP TABLE IF EXISTS engine_dropped_terms;
    `,
    addColumns: [
      { table: 'engine_stats', column: 'next_term_id', definition: 'INTEGER NOT NULL DEFAULT 1' },
      { table: 'engine_term_changes', column: 'terms', definition: 'TEXT' },
    ],
  },
  {
    version: 19,
    name: 'typo vocabulary of letter words',
    sql: `
      -- docs/search.md "Typos": the typo vocabulary holds the words a typo may reach, letters
      -- only, 4 to 40 of them (a typo-tolerant query word is letters only). The part numbers and
      -- short words it held before leave it: on a real catalog they were one word a part, and a
      -- two-typo search read all of them with its first letter. Their typo keys were never stored.
      DELETE FROM search_term_levels WHERE NOT letter_word(term);
    `,
    functions: { letter_word: (term) => (typeof term === 'string' && /^\p{L}{4,40}$/u.test(term) ? 1 : 0) },
  },
];
