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
];
