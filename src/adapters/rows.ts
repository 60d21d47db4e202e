/**
 * The row shapes every SQL store adapter shares (SQLite and PostgreSQL use the same column names;
 * only their row keys differ) and their mapping to the core's stored shapes. Times are integer
 * microseconds; names and attribute values are JSON text.
 */
import type { LangMap, PartAttribute, RelationSource, RelationType, Role, Scope } from '../api/schemas.js';
import type { StoredImage, StoredPart, StoredRelation, StoredToken } from '../core/model.js';

/** The columns of a `parts` row that make a StoredPart. */
export interface PartColumns {
  part_id: string;
  service_id: string;
  name: string;
  attributes: string;
  created_at: number;
  modified_at: number;
}

/** Parses a `parts` row into a StoredPart. */
export function partFromColumns(row: PartColumns): StoredPart {
  return {
    part_id: row.part_id,
    serviceId: row.service_id,
    name: JSON.parse(row.name) as LangMap,
    attributes: JSON.parse(row.attributes) as PartAttribute[],
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
  };
}

/** An `images` row joined with its part's id. */
export interface ImageColumns {
  image_id: string;
  part_id: string;
  sha256: string;
  size: number;
  mime: string;
  info: string;
  position: number | null;
  created_at: number;
  modified_at: number;
}

/** The select list of {@link ImageColumns} over `images i` joined with `parts p`. */
export const IMAGE_COLUMNS = 'i.image_id, p.part_id, i.sha256, i.size, i.mime, i.info, i.position, i.created_at, i.modified_at';

/** Maps an images row to a StoredImage. */
export function imageFromColumns(row: ImageColumns): StoredImage {
  return {
    image_id: row.image_id, part_id: row.part_id, sha256: row.sha256, size: row.size, mime: row.mime, info: row.info,
    position: row.position, createdAt: row.created_at, modifiedAt: row.modified_at,
  };
}

/** A `tokens` row: roles and scopes as JSON text, times in microseconds (null: never). */
export interface TokenColumns {
  name: string;
  secret_hash: string;
  roles: string;
  organization: string | null;
  scopes: string | null;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
}

/** Maps a tokens row to a StoredToken. */
export function tokenFromColumns(row: TokenColumns): StoredToken {
  return {
    name: row.name, secretHash: row.secret_hash, roles: JSON.parse(row.roles) as Role[], organization: row.organization,
    scopes: row.scopes === null ? null : (JSON.parse(row.scopes) as Scope[]), createdAt: row.created_at,
    expiresAt: row.expires_at, lastUsedAt: row.last_used_at,
  };
}

/**
 * A `part_relations` row read from one part's side: the other part's id, whether this part is the
 * pair's low end, and the stored direction (SQLite gives 0/1 where PostgreSQL gives booleans).
 */
export interface RelationColumns {
  other: string;
  self_is_low: boolean | 0 | 1;
  anchor_is_low: boolean | 0 | 1;
  type: RelationType;
  source: RelationSource;
  user_id: string | null;
  created_at: number;
}

/** Maps a relation row read from `partId`'s side to a StoredRelation with its anchor and related part. */
export function relationFromColumns(partId: string, row: RelationColumns): StoredRelation {
  const selfIsAnchor = Boolean(row.self_is_low) === Boolean(row.anchor_is_low);
  return {
    anchor_part_id: selfIsAnchor ? partId : row.other,
    related_part_id: selfIsAnchor ? row.other : partId,
    type: row.type,
    source: row.source,
    user_id: row.user_id,
    created: row.created_at,
  };
}
