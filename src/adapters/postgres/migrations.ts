/**
 * Versioned schema migrations of the PostgreSQL catalog: plain SQL, applied in order,
 * each in its own transaction together with its row in `schema_migrations`, all under a
 * session-level advisory lock so that several servers starting at once migrate once (the others
 * wait, then find nothing to do). Append new migrations; never edit one that has shipped.
 *
 * The tables mirror the SQLite schema (src/adapters/sqlite/migrations.ts). Ids compare and sort
 * with COLLATE "C" (byte order of UTF-8 = code point order), the order SQLite's BINARY gives and
 * core/search/rank.ts compareBinary assumes, whatever the database's default collation.
 */
import type pg from 'pg';
import { LOCK_CLASS, MIGRATION_LOCK } from './database.js';
import { SchemaTooNewError } from '../../core/schema-too-new.js';
import { IdCollisionError } from '../../core/id-collision.js';

/** The SQLSTATE the NFC id migration raises when two stored ids have one NFC form (its message is core/id-collision.ts's). */
const ID_COLLISION_SQLSTATE = 'CN001';

/** One schema step. */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'catalog, relations, images, search index, search sessions',
    sql: `
      CREATE TABLE attributes (
        seq bigserial PRIMARY KEY,              -- creation order (spec 2.1 display_order fallback)
        attribute_id text COLLATE "C" NOT NULL UNIQUE,
        body text NOT NULL                      -- JSON of the full attribute, as written
      );
      CREATE TABLE parts (
        pk bigserial PRIMARY KEY,
        part_id text COLLATE "C" NOT NULL UNIQUE,
        service_id text NOT NULL,
        name text NOT NULL,                     -- JSON language map
        attributes text NOT NULL,               -- JSON [{attribute_id, values: [{organization, value}]}]
        created_at bigint NOT NULL,             -- microseconds since the epoch
        modified_at bigint NOT NULL
      );
      CREATE TABLE part_attributes (
        attribute_id text COLLATE "C" NOT NULL,
        part_pk bigint NOT NULL REFERENCES parts(pk) ON DELETE CASCADE,
        PRIMARY KEY (attribute_id, part_pk)
      );
      CREATE INDEX part_attributes_by_part ON part_attributes(part_pk);
      CREATE TABLE organizations (
        org_id text COLLATE "C" PRIMARY KEY,
        parent_id text COLLATE "C" REFERENCES organizations(org_id)
      );
      CREATE TABLE tokens (
        name text COLLATE "C" PRIMARY KEY,
        secret_hash text NOT NULL UNIQUE,       -- SHA-256 hex; the secret itself is never stored
        roles text NOT NULL,                    -- JSON array
        organization text,
        created_at bigint NOT NULL
      );
      CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL);

      -- Part images: the part reference does NOT cascade (a part with images cannot be deleted).
      CREATE TABLE images (
        seq bigserial PRIMARY KEY,
        image_id text COLLATE "C" NOT NULL UNIQUE,
        part_pk bigint NOT NULL REFERENCES parts(pk),
        sha256 text NOT NULL,
        size bigint NOT NULL,
        mime text NOT NULL,
        info text NOT NULL,
        position integer,
        features bytea,
        created_at bigint NOT NULL,
        modified_at bigint NOT NULL
      );
      CREATE INDEX images_by_part ON images(part_pk, image_id);
      CREATE INDEX images_by_sha256 ON images(sha256);

      -- One row per unordered pair of parts, in canonical pk order plus the direction.
      CREATE TABLE part_relations (
        low_part bigint NOT NULL REFERENCES parts(pk) ON DELETE CASCADE,
        high_part bigint NOT NULL REFERENCES parts(pk) ON DELETE CASCADE,
        anchor_is_low boolean NOT NULL,
        type text NOT NULL,
        source text NOT NULL,
        user_id text,
        created_at bigint NOT NULL,
        PRIMARY KEY (low_part, high_part),
        CHECK (low_part < high_part)
      );
      CREATE INDEX part_relations_by_high ON part_relations(high_part);

      -- Text search (src/adapters/postgres/search): immutable result cards, the current card of
      -- each part, one tsvector row per card and visibility view, per-organization value texts,
      -- and the typo vocabulary (core/search/typo.ts).
      CREATE TABLE search_cards (
        id bigserial PRIMARY KEY,
        part_pk bigint NOT NULL,                -- parts.pk (no foreign key: cards outlive their part)
        part_id text COLLATE "C" NOT NULL,
        service_id text NOT NULL,
        names text NOT NULL,
        created_at bigint NOT NULL,
        modified_at bigint NOT NULL,
        superseded_at bigint                    -- NULL while current; kept 25 h after for sessions
      );
      CREATE INDEX search_cards_superseded ON search_cards(superseded_at) WHERE superseded_at IS NOT NULL;
      CREATE TABLE search_current (
        part_pk bigint PRIMARY KEY,
        card_id bigint NOT NULL,
        holder boolean NOT NULL,
        org_doc boolean NOT NULL
      );
      CREATE TABLE search_docs (
        card_id bigint NOT NULL,
        lo smallint NOT NULL,                   -- the visibility tiers lo..hi this row's view serves
        hi smallint NOT NULL,
        part_id text COLLATE "C" NOT NULL,
        holder boolean NOT NULL,                -- the part has per-organization values
        doc tsvector NOT NULL,                  -- id and names weight A, visible values weight D
        flt text[] NOT NULL,                    -- filter tokens (document.ts filterToken)
        PRIMARY KEY (card_id, lo)
      );
      CREATE INDEX search_docs_doc ON search_docs USING gin (doc);
      CREATE INDEX search_docs_flt ON search_docs USING gin (flt);
      CREATE TABLE search_org_docs (
        card_id bigint PRIMARY KEY,
        doc tsvector NOT NULL                   -- per-organization values, weight A..D = visibility tier 0..3
      );
      CREATE INDEX search_org_docs_doc ON search_org_docs USING gin (doc);
      CREATE TABLE search_terms (term text COLLATE "C" PRIMARY KEY);
      CREATE TABLE search_term_keys (
        key text COLLATE "C" NOT NULL,
        term text COLLATE "C" NOT NULL,
        PRIMARY KEY (key, term)
      );

      -- Search sessions: hits as packed blocks of card ids (session-store.ts).
      CREATE TABLE sessions (
        seq bigserial PRIMARY KEY,
        session_id text NOT NULL UNIQUE,
        owner text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        image_id text,
        language text,
        total bigint NOT NULL,
        stored bigint NOT NULL,
        bytes bigint NOT NULL
      );
      CREATE INDEX sessions_by_owner ON sessions(owner, seq);
      CREATE INDEX sessions_by_expiry ON sessions(expires_at);
      CREATE TABLE session_hits (
        session_seq bigint NOT NULL REFERENCES sessions(seq) ON DELETE CASCADE,
        block integer NOT NULL,
        card_ids bytea NOT NULL,
        PRIMARY KEY (session_seq, block)
      );
      CREATE TABLE session_totals (id integer PRIMARY KEY CHECK (id = 1), bytes bigint NOT NULL);
      INSERT INTO session_totals (id, bytes) VALUES (1, 0);
    `,
  },
  {
    version: 2,
    name: 'what a search session remembers besides its hits',
    sql: `
      ALTER TABLE sessions ADD COLUMN organization text;   -- matches.organization, for per-organization values on every page
      ALTER TABLE sessions ADD COLUMN text text;           -- matches.text, for highlights on every page
      ALTER TABLE sessions ADD COLUMN facets text;         -- JSON of the facet counts, answered again by every page
    `,
  },
  {
    version: 3,
    name: 'image search sessions keep each hit\'s score',
    sql: `
      ALTER TABLE session_hits ADD COLUMN scores bytea;    -- uint16 LE scores (x 65,535) parallel to card_ids; NULL for a text search
    `,
  },
  {
    version: 4,
    name: 'the search engine block store replaces the tsvector rows of search_docs',
    sql: `
      -- The core search engine's tables, laid out as on SQLite (search/engine-store.ts). Existing
      -- parts are indexed when a program of this version first opens the catalog (settings
      -- search_engine = 'rebuild'), under the catalog write lock.
      DROP TABLE search_docs;
      CREATE TABLE engine_terms (
        id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        term text COLLATE "C" NOT NULL UNIQUE,  -- words, ID_MARK + id tokens, FILTER_MARK + filter values, the holder marker
        version bigint NOT NULL                 -- engine_stats.version of the write that last changed its postings
      );
      CREATE INDEX engine_terms_by_version ON engine_terms(version);
      CREATE TABLE engine_postings (
        term_id integer NOT NULL,
        first_doc integer NOT NULL,             -- parts.pk of the block's first posting
        data bytea NOT NULL,                    -- at most 128 postings (core/search/engine/postings.ts)
        PRIMARY KEY (term_id, first_doc)
      );
      CREATE TABLE engine_docs (
        chunk integer PRIMARY KEY,              -- parts.pk / 256
        version bigint NOT NULL,
        data bytea NOT NULL                     -- card, order key, lengths, flags of 256 docs (core/search/engine/doc-chunks.ts)
      );
      CREATE INDEX engine_docs_by_version ON engine_docs(version);
      CREATE TABLE engine_stats (
        id integer PRIMARY KEY CHECK (id = 0),
        version bigint NOT NULL,                -- +1 per write transaction that changed the index
        rebuilt bigint NOT NULL,                -- the version of the last full rebuild
        n bigint NOT NULL,
        len0 bigint NOT NULL, len1 bigint NOT NULL, len2 bigint NOT NULL, len3 bigint NOT NULL
      );
      INSERT INTO engine_stats VALUES (0, 0, 0, 0, 0, 0, 0, 0);
      INSERT INTO settings (key, value) VALUES ('search_engine', 'rebuild') ON CONFLICT (key) DO UPDATE SET value = excluded.value;
    `,
  },
  {
    version: 5,
    name: 'change counters: what in-memory state of a server must reload after another server wrote',
    // A counter per in-memory cache, bumped by triggers in the writing transaction, so it commits
    // with the write whoever writes (a server, a local CLI, catalog migrate) and never depends on
    // the writers' clocks. image_features: the image similarity index (FeatureIndexSimilaritySearch)
    // reloads when it moves; it moves when a row's features, or the part of a row with features,
    // change (an info-only update of an image does not move it).
    sql: `
      CREATE TABLE change_counters (name text COLLATE "C" PRIMARY KEY, version bigint NOT NULL);
      INSERT INTO change_counters (name, version) VALUES ('image_features', 0);
      CREATE FUNCTION bump_image_features() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        UPDATE change_counters SET version = version + 1 WHERE name = 'image_features';
        RETURN NULL;
      END $$;
      CREATE TRIGGER images_features_inserted AFTER INSERT ON images FOR EACH ROW
        WHEN (NEW.features IS NOT NULL) EXECUTE FUNCTION bump_image_features();
      CREATE TRIGGER images_features_deleted AFTER DELETE ON images FOR EACH ROW
        WHEN (OLD.features IS NOT NULL) EXECUTE FUNCTION bump_image_features();
      CREATE TRIGGER images_features_updated AFTER UPDATE ON images FOR EACH ROW
        WHEN (OLD.features IS DISTINCT FROM NEW.features OR (NEW.features IS NOT NULL AND OLD.part_pk IS DISTINCT FROM NEW.part_pk))
        EXECUTE FUNCTION bump_image_features();
    `,
  },
  {
    version: 6,
    name: 'synonym sets',
    sql: `
      -- Applied at query time (core/search/synonyms.ts); settings 'synonyms_version' changes with every write.
      CREATE TABLE synonyms (
        synonym_id text COLLATE "C" PRIMARY KEY,
        body text NOT NULL                   -- JSON {synonym_id, input?, synonyms}
      );
    `,
  },
  {
    version: 7,
    name: 'image feature change log',
    // The photo index of every server applies just the changed references
    // (ReferenceFeatureStore.changesSince) instead of reloading all of them. Each change takes the
    // next value of the image_features counter, under the counter row's lock until commit, so
    // the numbers are given in commit order and a reader's snapshot sees every change up to the
    // counter it reads. Bounded: every 1,000th change prunes all but the last 100,000 (a server
    // further behind reloads everything).
    sql: `
      CREATE TABLE image_feature_changes (
        seq bigint PRIMARY KEY,
        image_id text COLLATE "C" NOT NULL
      );
      CREATE OR REPLACE FUNCTION bump_image_features() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE
        v bigint;
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.image_id IS DISTINCT FROM NEW.image_id AND OLD.features IS NOT NULL THEN
          UPDATE change_counters SET version = version + 1 WHERE name = 'image_features' RETURNING version INTO v;
          INSERT INTO image_feature_changes (seq, image_id) VALUES (v, OLD.image_id);
        END IF;
        UPDATE change_counters SET version = version + 1 WHERE name = 'image_features' RETURNING version INTO v;
        IF TG_OP = 'DELETE' THEN
          INSERT INTO image_feature_changes (seq, image_id) VALUES (v, OLD.image_id);
        ELSE
          INSERT INTO image_feature_changes (seq, image_id) VALUES (v, NEW.image_id);
        END IF;
        IF v % 1000 = 0 THEN
          DELETE FROM image_feature_changes WHERE seq <= v - 100000;
        END IF;
        RETURN NULL;
      END $$;
      DROP TRIGGER images_features_updated ON images;
      CREATE TRIGGER images_features_updated AFTER UPDATE ON images FOR EACH ROW
        WHEN (OLD.features IS DISTINCT FROM NEW.features OR (NEW.features IS NOT NULL AND (OLD.part_pk IS DISTINCT FROM NEW.part_pk OR OLD.image_id IS DISTINCT FROM NEW.image_id)))
        EXECUTE FUNCTION bump_image_features();
    `,
  },
  {
    version: 8,
    name: 'token scopes, expiry and last use (docs/api.md "Tokens")',
    sql: `
      ALTER TABLE tokens ADD COLUMN scopes text;            -- JSON array; NULL: everything the roles allow
      ALTER TABLE tokens ADD COLUMN expires_at bigint;      -- microseconds; NULL: never
      ALTER TABLE tokens ADD COLUMN last_used_at bigint;    -- microseconds, written at most once a minute
    `,
  },
  {
    version: 9,
    name: 'change feed and webhook outbox',
    // The change feed (src/core/changes; docs/api.md "Changes"), as on SQLite (migration 12 there):
    // rows written by triggers in the writing transaction. Numbers come from the 'changes' counter
    // row, updated under its row lock, which the writing transaction keeps until it commits: a
    // second writer (another server, a CLI) waits for that commit before it takes the next number,
    // so numbers are given in commit order and a reader never sees a number while a lower one is
    // still in flight (a sequence would hand out numbers in start order, and a reader could pass
    // over a lower number committed after a higher one).
    sql: `
      CREATE TABLE changes (
        change bigint PRIMARY KEY,
        at bigint NOT NULL,                      -- microseconds since the epoch (the database's clock)
        type text NOT NULL,
        id text COLLATE "C" NOT NULL,
        related_id text COLLATE "C",
        op text NOT NULL
      );
      CREATE TABLE change_log (id integer PRIMARY KEY CHECK (id = 0), pruned_through bigint NOT NULL);
      INSERT INTO change_log (id, pruned_through) VALUES (0, 0);
      INSERT INTO change_counters (name, version) VALUES ('changes', 0);

      CREATE TABLE webhooks (
        webhook_id text COLLATE "C" PRIMARY KEY,
        url text NOT NULL,
        secret text NOT NULL,
        types text,
        created_at bigint NOT NULL
      );
      CREATE TABLE webhook_outbox (
        webhook_id text COLLATE "C" NOT NULL REFERENCES webhooks(webhook_id) ON DELETE CASCADE,
        change bigint NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (webhook_id, change)
      );
      CREATE INDEX webhook_outbox_due ON webhook_outbox(next_attempt_at);
      CREATE TABLE webhook_deliveries (
        seq bigserial PRIMARY KEY,
        webhook_id text COLLATE "C" NOT NULL,
        change bigint NOT NULL,
        attempt integer NOT NULL,
        at bigint NOT NULL,
        status integer,
        outcome text NOT NULL,
        error text
      );
      CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries(webhook_id, seq);

      CREATE FUNCTION record_change(change_type text, change_id text, change_related text, change_op text) RETURNS void
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE
        v bigint;
        now_us bigint := (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
        keep bigint;
      BEGIN
        UPDATE change_counters SET version = version + 1 WHERE name = 'changes' RETURNING version INTO v;
        INSERT INTO changes (change, at, type, id, related_id, op) VALUES (v, now_us, change_type, change_id, change_related, change_op);
        INSERT INTO webhook_outbox (webhook_id, change)
          SELECT w.webhook_id, v FROM webhooks w WHERE w.types IS NULL OR w.types::jsonb ? change_type;
        IF v % 1000 = 0 THEN
          keep := coalesce((SELECT value::bigint FROM settings WHERE key = 'change_retention_seconds'), 2592000);
          UPDATE change_log SET pruned_through = greatest(pruned_through, coalesce((SELECT max(change) FROM changes WHERE at < now_us - keep * 1000000), 0));
          DELETE FROM changes WHERE change <= (SELECT pruned_through FROM change_log);
        END IF;
      END $$;

      CREATE FUNCTION catalog_changed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE
        r record;
        op text := CASE WHEN TG_OP = 'DELETE' THEN 'delete' ELSE 'upsert' END;
        anchor text;
        related text;
      BEGIN
        IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
        IF TG_TABLE_NAME = 'attributes' THEN PERFORM record_change('attribute', r.attribute_id, NULL, op);
        ELSIF TG_TABLE_NAME = 'parts' THEN PERFORM record_change('part', r.part_id, NULL, op);
        ELSIF TG_TABLE_NAME = 'images' THEN PERFORM record_change('image', r.image_id, NULL, op);
        ELSIF TG_TABLE_NAME = 'synonyms' THEN PERFORM record_change('synonym', r.synonym_id, NULL, op);
        ELSIF TG_TABLE_NAME = 'organizations' THEN PERFORM record_change('organization', r.org_id, NULL, op);
        ELSIF TG_TABLE_NAME = 'settings' THEN PERFORM record_change('setting', r.key, NULL, op);
        ELSIF TG_TABLE_NAME = 'part_relations' THEN
          -- A relation removed with its part is said by the part's deletion (its row is gone here).
          SELECT CASE WHEN r.anchor_is_low THEN l.part_id ELSE h.part_id END, CASE WHEN r.anchor_is_low THEN h.part_id ELSE l.part_id END
            INTO anchor, related FROM parts l, parts h WHERE l.pk = r.low_part AND h.pk = r.high_part;
          IF anchor IS NOT NULL THEN PERFORM record_change('relation', anchor, related, op); END IF;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER attributes_changed AFTER INSERT OR UPDATE OR DELETE ON attributes FOR EACH ROW EXECUTE FUNCTION catalog_changed();
      CREATE TRIGGER parts_changed AFTER INSERT OR DELETE OR UPDATE OF part_id, service_id, name, attributes, modified_at ON parts FOR EACH ROW EXECUTE FUNCTION catalog_changed();
      CREATE TRIGGER images_changed AFTER INSERT OR DELETE OR UPDATE OF image_id, part_pk, sha256, size, mime, info, position, modified_at ON images FOR EACH ROW EXECUTE FUNCTION catalog_changed();
      CREATE TRIGGER relations_changed AFTER INSERT OR UPDATE OR DELETE ON part_relations FOR EACH ROW EXECUTE FUNCTION catalog_changed();
      CREATE TRIGGER synonyms_changed AFTER INSERT OR UPDATE OR DELETE ON synonyms FOR EACH ROW EXECUTE FUNCTION catalog_changed();
      CREATE TRIGGER organizations_changed AFTER INSERT OR UPDATE ON organizations FOR EACH ROW EXECUTE FUNCTION catalog_changed();
      CREATE TRIGGER settings_changed_i AFTER INSERT ON settings FOR EACH ROW WHEN (NEW.key = 'maintenance') EXECUTE FUNCTION catalog_changed();
      CREATE TRIGGER settings_changed_u AFTER UPDATE ON settings FOR EACH ROW WHEN (NEW.key = 'maintenance' AND NEW.value IS DISTINCT FROM OLD.value) EXECUTE FUNCTION catalog_changed();
    `,
  },
  {
    version: 10,
    name: 'ids in Unicode NFC',
    sql: `
      -- docs/decisions/0017-ids-are-nfc.md: the core keeps ids in NFC; ids written before may be
      -- in another form (NFD from macOS file names). Two stored ids with one NFC form are refused
      -- (the exception names both and the table; the transaction rolls back): a person decides
      -- which one survives.
      CREATE FUNCTION pg_temp.refuse_nfc_collisions(tbl text, col text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE spellings text[];
      BEGIN
        EXECUTE format('SELECT array_agg(%1$I ORDER BY %1$I) FROM %2$I GROUP BY normalize(%1$I, NFC) HAVING count(*) > 1 LIMIT 1', col, tbl) INTO spellings;
        IF spellings IS NOT NULL THEN
          RAISE EXCEPTION 'cannot migrate the catalog to NFC ids: % holds %, which are one id in Unicode NFC (%); rename or delete one of them with the previous version of catalog, then open the catalog again (nothing was changed)',
            tbl, (SELECT string_agg(to_json(s)::text, ' and ') FROM unnest(spellings) AS s), to_json(normalize(spellings[1], NFC))::text
            USING ERRCODE = '${ID_COLLISION_SQLSTATE}';
        END IF;
      END $$;
      SELECT pg_temp.refuse_nfc_collisions('attributes', 'attribute_id');
      SELECT pg_temp.refuse_nfc_collisions('parts', 'part_id');
      SELECT pg_temp.refuse_nfc_collisions('images', 'image_id');
      SELECT pg_temp.refuse_nfc_collisions('synonyms', 'synonym_id');
      SELECT pg_temp.refuse_nfc_collisions('organizations', 'org_id');
      -- A part's attributes with attribute ids and organizations in NFC (values as they are).
      CREATE FUNCTION pg_temp.nfc_attributes(stored text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
        SELECT coalesce(jsonb_agg(a.value || jsonb_build_object('attribute_id', normalize(a.value ->> 'attribute_id', NFC), 'values', (
          SELECT coalesce(jsonb_agg(CASE WHEN v.value ? 'organization' THEN v.value || jsonb_build_object('organization', normalize(v.value ->> 'organization', NFC)) ELSE v.value END ORDER BY v.n), '[]'::jsonb)
          FROM jsonb_array_elements(a.value -> 'values') WITH ORDINALITY AS v(value, n)
        )) ORDER BY a.n), '[]'::jsonb)::text
        FROM jsonb_array_elements(stored::jsonb) WITH ORDINALITY AS a(value, n)
      $$;
      -- Part ids, attribute ids and organizations are terms of the search index: rebuilt on first
      -- open when any of them changes (as a format change does), not patched row by row.
      INSERT INTO settings (key, value) SELECT 'search_engine', 'rebuild'
        WHERE EXISTS (SELECT 1 FROM parts WHERE part_id IS NOT NFC NORMALIZED OR (attributes IS NOT NFC NORMALIZED AND attributes::jsonb <> pg_temp.nfc_attributes(attributes)::jsonb))
        ON CONFLICT (key) DO UPDATE SET value = excluded.value;
      UPDATE attributes SET attribute_id = normalize(attribute_id, NFC), body = (body::jsonb || jsonb_build_object('attribute_id', normalize(attribute_id, NFC)))::text
        WHERE attribute_id IS NOT NFC NORMALIZED;
      UPDATE part_attributes SET attribute_id = normalize(attribute_id, NFC) WHERE attribute_id IS NOT NFC NORMALIZED;
      UPDATE parts SET part_id = normalize(part_id, NFC) WHERE part_id IS NOT NFC NORMALIZED;
      UPDATE parts SET attributes = pg_temp.nfc_attributes(attributes)
        WHERE attributes IS NOT NFC NORMALIZED AND attributes::jsonb <> pg_temp.nfc_attributes(attributes)::jsonb;
      UPDATE images SET image_id = normalize(image_id, NFC) WHERE image_id IS NOT NFC NORMALIZED;
      UPDATE synonyms SET synonym_id = normalize(synonym_id, NFC), body = (body::jsonb || jsonb_build_object('synonym_id', normalize(synonym_id, NFC)))::text
        WHERE synonym_id IS NOT NFC NORMALIZED;
      -- One statement for both columns: the parent key and its references change together.
      UPDATE organizations SET org_id = normalize(org_id, NFC), parent_id = normalize(parent_id, NFC)
        WHERE org_id IS NOT NFC NORMALIZED OR parent_id IS NOT NFC NORMALIZED;
      UPDATE tokens SET organization = normalize(organization, NFC) WHERE organization IS NOT NFC NORMALIZED;
      DROP FUNCTION pg_temp.nfc_attributes(text);
      DROP FUNCTION pg_temp.refuse_nfc_collisions(text, text);
    `,
  },  {
    version: 11,
    name: 'change feed pruned from its oldest row',
    sql: `
      -- As SQLite's migration 15: every 1,000th change looked for the newest change older than the
      -- retention (max(change) WHERE at < cutoff), reading the whole feed; now it walks the
      -- primary key from the oldest change kept to the first one within the retention and prunes
      -- what lies before it (never a change newer than one kept).
      CREATE OR REPLACE FUNCTION record_change(change_type text, change_id text, change_related text, change_op text) RETURNS void
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE
        v bigint;
        now_us bigint := (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
        keep bigint;
      BEGIN
        UPDATE change_counters SET version = version + 1 WHERE name = 'changes' RETURNING version INTO v;
        INSERT INTO changes (change, at, type, id, related_id, op) VALUES (v, now_us, change_type, change_id, change_related, change_op);
        INSERT INTO webhook_outbox (webhook_id, change)
          SELECT w.webhook_id, v FROM webhooks w WHERE w.types IS NULL OR w.types::jsonb ? change_type;
        IF v % 1000 = 0 THEN
          keep := coalesce((SELECT value::bigint FROM settings WHERE key = 'change_retention_seconds'), 2592000);
          UPDATE change_log SET pruned_through = greatest(pruned_through,
            coalesce((SELECT change FROM changes WHERE at >= now_us - keep * 1000000 ORDER BY change LIMIT 1), v + 1) - 1);
          DELETE FROM changes WHERE change <= (SELECT pruned_through FROM change_log);
        END IF;
      END $$;
    `,
  },
  {
    version: 12,
    name: 'a version of the attributes, organizations and settings',
    sql: `
      -- Set by every write to those tables, in the writing transaction, to that transaction's id:
      -- a server keeps them for the requests whose token was read at the same value
      -- (core/request-scope.ts). A transaction id names one state whatever happens to the database
      -- after it: a backup restored under a running server brings back a value it names rightly,
      -- where a counter would count again through values kept for other states.
      INSERT INTO change_counters (name, version) VALUES ('settings', 0);
      CREATE FUNCTION bump_settings_version() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        UPDATE change_counters SET version = txid_current() WHERE name = 'settings';
        RETURN NULL;
      END $$;
      CREATE TRIGGER attributes_settings_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON attributes
        FOR EACH STATEMENT EXECUTE FUNCTION bump_settings_version();
      CREATE TRIGGER organizations_settings_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON organizations
        FOR EACH STATEMENT EXECUTE FUNCTION bump_settings_version();
      CREATE TRIGGER settings_settings_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON settings
        FOR EACH STATEMENT EXECUTE FUNCTION bump_settings_version();
    `,
  },
  {
    version: 13,
    name: 'terms a write empties leave the dictionary',
    sql: `
      -- A stored term a write left without a posting, and that write's engine_stats.version: once
      -- no reader can still hold the term's list (search/engine-store.ts
      -- EMPTIED_TERMS_KEPT_VERSIONS), the term leaves engine_terms and the vocabulary unless a
      -- later write refilled it. Terms emptied before this version keep their rows (empty lists).
      CREATE TABLE IF NOT EXISTS engine_emptied_terms (
        term_id integer NOT NULL,
        version bigint NOT NULL
      );
      CREATE INDEX IF NOT EXISTS engine_emptied_terms_by_version ON engine_emptied_terms(version);
    `,
  },
  {
    version: 14,
    name: 'rewritten binary columns compressed with lz4',
    sql: `
      -- The doc chunks every part write rewrites (~7 KB each) and the hit blocks every search
      -- stores pass the TOAST threshold; pglz compressing them inside the write transaction was a
      -- measurable share of PostgreSQL's CPU and of the time the catalog write lock is held
      -- (docs/decisions/0055). lz4 compresses them several times faster; values stored before
      -- keep pglz until rewritten. A server built without lz4 keeps pglz.
      DO $$
      BEGIN
        ALTER TABLE engine_docs ALTER COLUMN data SET COMPRESSION lz4;
        ALTER TABLE session_hits ALTER COLUMN card_ids SET COMPRESSION lz4;
        ALTER TABLE session_hits ALTER COLUMN scores SET COMPRESSION lz4;
      EXCEPTION WHEN feature_not_supported THEN
        NULL;
      END $$;
    `,
  },
  {
    version: 15,
    name: 'session counts per owner kept by triggers; sessions vacuumed as a queue',
    sql: `
      -- Each owner's number of stored sessions (session-store.ts makeRoom reads it under the
      -- session lock), kept by statement triggers on every insert and delete, whichever path
      -- deletes (a budget's eviction, expiry, a restore): counting an owner's sessions scanned
      -- them, dead versions included, at every group of sessions stored.
      CREATE TABLE IF NOT EXISTS session_owners (
        owner text PRIMARY KEY,
        sessions bigint NOT NULL
      );
      INSERT INTO session_owners (owner, sessions) SELECT owner, count(*) FROM sessions GROUP BY owner
        ON CONFLICT (owner) DO UPDATE SET sessions = excluded.sessions;
      CREATE OR REPLACE FUNCTION count_session_owners() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO session_owners (owner, sessions) SELECT owner, count(*) FROM added GROUP BY owner
            ON CONFLICT (owner) DO UPDATE SET sessions = session_owners.sessions + excluded.sessions;
        ELSE
          UPDATE session_owners o SET sessions = o.sessions - d.n
            FROM (SELECT owner, count(*) AS n FROM removed GROUP BY owner) d WHERE o.owner = d.owner;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER sessions_added AFTER INSERT ON sessions REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION count_session_owners();
      CREATE TRIGGER sessions_removed AFTER DELETE ON sessions REFERENCING OLD TABLE AS removed
        FOR EACH STATEMENT EXECUTE FUNCTION count_session_owners();
      -- Sessions are a queue (every search adds one, the oldest go): vacuumed after a fixed
      -- number of dead rows rather than a fifth of the table, so that reading an owner's oldest
      -- does not step over tens of thousands of dead versions.
      ALTER TABLE sessions SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000);
      ALTER TABLE session_hits SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 4000);
    `,
  },
  {
    version: 16,
    name: 'typo vocabulary of letter words',
    sql: `
      -- docs/search.md "Typos": the typo vocabulary holds the words a typo may reach, letters
      -- only, 4 to 40 of them (core/search/typo.ts isVocabularyTerm). The part numbers (one word
      -- a part on a real catalog) and short words it held before leave it; a word with another
      -- character than a letter or a digit, rarer, stays and is passed over by the reader.
      DELETE FROM search_terms WHERE term ~ '[0-9]' OR char_length(term) < 4;
    `,
  },
  {
    version: 17,
    name: 'part changes recorded per statement',
    sql: `
      -- The change feed's rows of a statement's parts in one step: a row trigger ran record_change
      -- for each part (the counter row updated once a part, a PL/pgSQL call, two inserts), most of
      -- the cost of a part insert in an import's batch of thousands. Numbers, times and webhook
      -- deliveries are as record_change gives them, in the order the statement wrote the rows.
      -- A statement trigger with transition tables cannot name columns (UPDATE OF): every UPDATE of
      -- parts records its rows, and the store's one UPDATE of parts sets name, attributes and
      -- modified_at, which the row trigger named. record_change, which the other tables' row
      -- triggers call, is a change of one: numbering, webhooks and pruning are written once.
      CREATE OR REPLACE FUNCTION record_changes(change_type text, change_ids text[], change_op text, change_related text[] DEFAULT NULL) RETURNS void
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE
        n bigint := coalesce(cardinality(change_ids), 0);
        v bigint;
        now_us bigint := (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
        keep bigint;
      BEGIN
        IF n = 0 THEN RETURN; END IF;
        UPDATE change_counters SET version = version + n WHERE name = 'changes' RETURNING version INTO v;
        INSERT INTO changes (change, at, type, id, related_id, op)
          SELECT v - n + u.i, now_us, change_type, u.id, change_related[u.i], change_op FROM unnest(change_ids) WITH ORDINALITY AS u(id, i);
        INSERT INTO webhook_outbox (webhook_id, change)
          SELECT w.webhook_id, v - n + i FROM webhooks w CROSS JOIN generate_series(1, n) AS i
          WHERE w.types IS NULL OR w.types::jsonb ? change_type;
        -- At every 1,000th change: when the statement's numbers pass a multiple of 1,000.
        IF v / 1000 > (v - n) / 1000 THEN
          keep := coalesce((SELECT value::bigint FROM settings WHERE key = 'change_retention_seconds'), 2592000);
          UPDATE change_log SET pruned_through = greatest(pruned_through,
            coalesce((SELECT change FROM changes WHERE at >= now_us - keep * 1000000 ORDER BY change LIMIT 1), v + 1) - 1);
          DELETE FROM changes WHERE change <= (SELECT pruned_through FROM change_log);
        END IF;
      END $$;
      CREATE OR REPLACE FUNCTION record_change(change_type text, change_id text, change_related text, change_op text) RETURNS void
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        PERFORM record_changes(change_type, ARRAY[change_id], change_op, ARRAY[change_related]);
      END $$;
      CREATE OR REPLACE FUNCTION parts_written() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        PERFORM record_changes('part', (SELECT array_agg(part_id) FROM written_parts), 'upsert');
        RETURN NULL;
      END $$;
      CREATE OR REPLACE FUNCTION parts_removed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        PERFORM record_changes('part', (SELECT array_agg(part_id) FROM removed_parts), 'delete');
        RETURN NULL;
      END $$;
      DROP TRIGGER IF EXISTS parts_changed ON parts;
      DROP TRIGGER IF EXISTS parts_inserted ON parts;
      DROP TRIGGER IF EXISTS parts_updated ON parts;
      DROP TRIGGER IF EXISTS parts_deleted ON parts;
      CREATE TRIGGER parts_inserted AFTER INSERT ON parts REFERENCING NEW TABLE AS written_parts
        FOR EACH STATEMENT EXECUTE FUNCTION parts_written();
      CREATE TRIGGER parts_updated AFTER UPDATE ON parts REFERENCING NEW TABLE AS written_parts
        FOR EACH STATEMENT EXECUTE FUNCTION parts_written();
      CREATE TRIGGER parts_deleted AFTER DELETE ON parts REFERENCING OLD TABLE AS removed_parts
        FOR EACH STATEMENT EXECUTE FUNCTION parts_removed();
    `,
  },
  {
    version: 18,
    name: 'changed-terms log of the search engine',
    sql: `
      -- docs/deploy.md "Search on PostgreSQL": a write names the stored terms whose postings it
      -- changed in one row here, instead of moving each term's engine_terms.version (a new row
      -- version of every touched term at every write: an update and a dead row per term, three
      -- index entries each). engine_terms.version is now the write that added the term. Readers
      -- read both since their version; rows older than the last EMPTIED_TERMS_KEPT_VERSIONS
      -- writes are pruned (a reader further behind forgets every term it kept).
      CREATE TABLE IF NOT EXISTS engine_term_changes (
        version bigint PRIMARY KEY,             -- engine_stats.version of the write
        ids integer[] NOT NULL                  -- engine_terms.id of the stored terms it changed
      );
    `,
  },
];

/**
 * Applies every migration above the schema's version, under the migration advisory lock (per
 * schema), each in one transaction. Throws when the schema is newer than this program's.
 */
export async function migratePostgres(pool: pg.Pool, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<void> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('SELECT pg_advisory_lock($1, hashtext(current_schema()))', [LOCK_CLASS + MIGRATION_LOCK]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      const current = (await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations')).rows[0]?.v ?? 0;
      const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
      if (current > latest) throw new SchemaTooNewError('the PostgreSQL catalog database', current, latest);
      for (const migration of migrations) {
        if (migration.version <= current) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          if ((error as { code?: unknown }).code === ID_COLLISION_SQLSTATE) throw new IdCollisionError((error as Error).message);
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, hashtext(current_schema()))', [LOCK_CLASS + MIGRATION_LOCK]);
    }
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    client.release(broken);
  }
}
