/**
 * Versioned schema migrations, applied in order inside one transaction each; the schema version is
 * SQLite's `user_version`. Append new migrations; never edit one that has shipped.
 */

/** One schema step. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
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
];
