/**
 * RelationStore over SQLite (migration 3, table part_relations). A pair of parts is stored once, in
 * canonical order of the parts' rowids (low < high) plus the direction (`anchor_is_low`), so the
 * pair is the primary key and "latest write wins" is a single UPSERT. Both columns reference
 * parts(rowid_) with ON DELETE CASCADE: deleting a part removes its relations (spec 2.3).
 */
import type { RelationSource, RelationType } from '../../api/schemas.js';
import type { RelationStore } from '../../core/ports.js';
import type { SqliteDatabase } from './database.js';
import type { StoredRelation } from '../../core/model.js';
import { relationFromColumns, type RelationColumns } from '../rows.js';

interface ListRow {
  anchor: string;
  related: string;
  type: RelationType;
  source: RelationSource;
  user_id: string | null;
  created_at: number;
}

const SELECT_COLUMNS = 'r.anchor_is_low, r.type, r.source, r.user_id, r.created_at';

/** The SQLite implementation of part relations, over the catalog's own connection. */
export class SqliteRelationStore implements RelationStore {
  readonly db: SqliteDatabase;
  private readonly stmt;

  constructor(db: SqliteDatabase) {
    this.db = db;
    this.stmt = {
      partRowid: db.prepare<[string], number>('SELECT rowid_ FROM parts WHERE part_id = ?').pluck(),
      upsert: db.prepare<[number, number, number, string, string, string | null, number]>(`
        INSERT INTO part_relations (low_part, high_part, anchor_is_low, type, source, user_id, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (low_part, high_part) DO UPDATE SET
          anchor_is_low = excluded.anchor_is_low, type = excluded.type, source = excluded.source,
          user_id = excluded.user_id, created_at = excluded.created_at`),
      // The part is either the low or the high end of a pair; `other` is the part at the other end.
      relationsOf: db.prepare<{ self: number; type: string | null }, RelationColumns>(`
        SELECT p.part_id AS other, 1 AS self_is_low, ${SELECT_COLUMNS}
          FROM part_relations r JOIN parts p ON p.rowid_ = r.high_part
          WHERE r.low_part = @self AND (@type IS NULL OR r.type = @type)
        UNION ALL
        SELECT p.part_id AS other, 0 AS self_is_low, ${SELECT_COLUMNS}
          FROM part_relations r JOIN parts p ON p.rowid_ = r.low_part
          WHERE r.high_part = @self AND (@type IS NULL OR r.type = @type)`),
      // Every relation once, by its anchor's then its related part's id (BINARY = code point order);
      // keyset on that pair. Driven by the parts' part_id index, so each page reads only its rows.
      listAll: db.prepare<{ anchor: string; related: string; limit: number }, ListRow>(`
        SELECT a.part_id AS anchor, b.part_id AS related, r.type, r.source, r.user_id, r.created_at
          FROM parts a
          JOIN part_relations r ON (r.low_part = a.rowid_ AND r.anchor_is_low = 1) OR (r.high_part = a.rowid_ AND r.anchor_is_low = 0)
          JOIN parts b ON b.rowid_ = (CASE WHEN r.anchor_is_low = 1 THEN r.high_part ELSE r.low_part END)
          WHERE a.part_id >= @anchor AND (a.part_id > @anchor OR b.part_id > @related)
          ORDER BY a.part_id, b.part_id
          LIMIT +@limit`),
    };
  }

  async missingParts(partIds: readonly string[]): Promise<Set<string>> {
    const missing = new Set<string>();
    for (const id of partIds) if (this.stmt.partRowid.get(id) === undefined) missing.add(id);
    return missing;
  }

  async writeRelations(relations: readonly StoredRelation[]): Promise<{ written: number; missing: string[] }> {
    return this.db.transaction(() => {
      // Resolve every part first (inside the write lock), so a missing one means nothing is written.
      const rowids = new Map<string, number | undefined>();
      const missing: string[] = [];
      const resolve = (id: string): void => {
        if (rowids.has(id)) return;
        const rowid = this.stmt.partRowid.get(id);
        rowids.set(id, rowid);
        if (rowid === undefined) missing.push(id);
      };
      for (const r of relations) {
        resolve(r.anchor_part_id);
        resolve(r.related_part_id);
      }
      if (missing.length > 0) return { written: 0, missing };
      for (const r of relations) {
        const anchor = rowids.get(r.anchor_part_id) ?? 0;
        const related = rowids.get(r.related_part_id) ?? 0;
        const anchorIsLow = anchor < related;
        this.stmt.upsert.run(anchorIsLow ? anchor : related, anchorIsLow ? related : anchor, anchorIsLow ? 1 : 0, r.type, r.source, r.user_id, r.created);
      }
      return { written: relations.length, missing };
    }).immediate();
  }

  async listRelations(after: { anchor_part_id: string; related_part_id: string } | undefined, limit: number): Promise<StoredRelation[]> {
    // Ids are never empty, so ('', '') sorts before every pair.
    const rows = this.stmt.listAll.all({ anchor: after?.anchor_part_id ?? '', related: after?.related_part_id ?? '', limit });
    return rows.map((row) => ({
      anchor_part_id: row.anchor,
      related_part_id: row.related,
      type: row.type,
      source: row.source,
      user_id: row.user_id,
      created: row.created_at,
    }));
  }

  async relationsOf(partId: string, type: RelationType | undefined): Promise<StoredRelation[] | undefined> {
    // One read transaction: the part and its relations from the same snapshot.
    return this.db.transaction(() => {
      const self = this.stmt.partRowid.get(partId);
      if (self === undefined) return undefined;
      return this.stmt.relationsOf.all({ self, type: type ?? null }).map((row) => relationFromColumns(partId, row));
    })();
  }
}
