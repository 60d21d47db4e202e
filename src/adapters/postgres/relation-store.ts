/**
 * RelationStore over PostgreSQL (table part_relations): one row per unordered pair of parts in
 * canonical pk order plus the direction, so "latest write wins" is one UPSERT; deleting a part
 * cascades to its relations (spec 2.3). Writes hold the catalog write lock (database.ts).
 */
import type { RelationSource, RelationType } from '../../api/schemas.js';
import type { RelationStore } from '../../core/ports.js';
import type { StoredRelation } from '../../core/model.js';
import { relationFromColumns, type RelationColumns } from '../rows.js';
import type { PgDatabase } from './database.js';

const COLUMNS = 'r.anchor_is_low, r.type, r.source, r.user_id, r.created_at';

/** The PostgreSQL implementation of part relations. */
export class PgRelationStore implements RelationStore {
  private readonly db: PgDatabase;

  constructor(db: PgDatabase) {
    this.db = db;
  }

  async missingParts(partIds: readonly string[]): Promise<Set<string>> {
    const found = await this.db.query<{ part_id: string }>('SELECT part_id FROM parts WHERE part_id = ANY($1::text[])', [[...new Set(partIds)]]);
    const have = new Set(found.map((r) => r.part_id));
    return new Set(partIds.filter((id) => !have.has(id)));
  }

  async writeRelations(relations: readonly StoredRelation[]): Promise<{ written: number; missing: string[] }> {
    return this.db.write(async (c) => {
      // Resolve every part first (under the write lock): a missing one means nothing is written.
      const ids: string[] = [];
      for (const r of relations) ids.push(r.anchor_part_id, r.related_part_id);
      const unique = [...new Set(ids)];
      const rows = await c.query<{ part_id: string; pk: number }>('SELECT part_id, pk FROM parts WHERE part_id = ANY($1::text[])', [unique]);
      const pks = new Map(rows.rows.map((r) => [r.part_id, r.pk]));
      const missing = unique.filter((id) => !pks.has(id));
      if (missing.length > 0) return { written: 0, missing };
      const low: number[] = [];
      const high: number[] = [];
      const anchorIsLow: boolean[] = [];
      for (const r of relations) {
        const anchor = pks.get(r.anchor_part_id) ?? 0;
        const related = pks.get(r.related_part_id) ?? 0;
        low.push(Math.min(anchor, related));
        high.push(Math.max(anchor, related));
        anchorIsLow.push(anchor < related);
      }
      if (relations.length > 0) {
        await c.query(
          `INSERT INTO part_relations (low_part, high_part, anchor_is_low, type, source, user_id, created_at)
           SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::bigint[])
           ON CONFLICT (low_part, high_part) DO UPDATE SET anchor_is_low = excluded.anchor_is_low, type = excluded.type,
             source = excluded.source, user_id = excluded.user_id, created_at = excluded.created_at`,
          [low, high, anchorIsLow, relations.map((r) => r.type), relations.map((r) => r.source), relations.map((r) => r.user_id), relations.map((r) => r.created)],
        );
      }
      return { written: relations.length, missing };
    });
  }

  async listRelations(after: { anchor_part_id: string; related_part_id: string } | undefined, limit: number): Promise<StoredRelation[]> {
    // Ids are never empty, so ('', '') sorts before every pair; part_id is COLLATE "C" (code point order).
    const rows = await this.db.query<{ anchor: string; related: string; type: RelationType; source: RelationSource; user_id: string | null; created_at: number }>(
      `SELECT a.part_id AS anchor, b.part_id AS related, r.type, r.source, r.user_id, r.created_at
         FROM part_relations r
         JOIN parts a ON a.pk = CASE WHEN r.anchor_is_low THEN r.low_part ELSE r.high_part END
         JOIN parts b ON b.pk = CASE WHEN r.anchor_is_low THEN r.high_part ELSE r.low_part END
        WHERE (a.part_id, b.part_id) > ($1::text COLLATE "C", $2::text COLLATE "C")
        ORDER BY a.part_id, b.part_id
        LIMIT $3`,
      [after?.anchor_part_id ?? '', after?.related_part_id ?? '', limit],
    );
    return rows.map((row) => ({ anchor_part_id: row.anchor, related_part_id: row.related, type: row.type, source: row.source, user_id: row.user_id, created: row.created_at }));
  }

  async relationsOf(partId: string, type: RelationType | undefined): Promise<StoredRelation[] | undefined> {
    // One snapshot: the part and its relations agree.
    return this.db.read(async (c) => {
      const self = (await c.query<{ pk: number }>('SELECT pk FROM parts WHERE part_id = $1', [partId])).rows[0]?.pk;
      if (self === undefined) return undefined;
      const rows = await c.query<RelationColumns>(
        `SELECT p.part_id AS other, true AS self_is_low, ${COLUMNS} FROM part_relations r JOIN parts p ON p.pk = r.high_part
           WHERE r.low_part = $1 AND ($2::text IS NULL OR r.type = $2)
         UNION ALL
         SELECT p.part_id AS other, false AS self_is_low, ${COLUMNS} FROM part_relations r JOIN parts p ON p.pk = r.low_part
           WHERE r.high_part = $1 AND ($2::text IS NULL OR r.type = $2)`,
        [self, type ?? null],
      );
      return rows.rows.map((row) => relationFromColumns(partId, row));
    });
  }
}
