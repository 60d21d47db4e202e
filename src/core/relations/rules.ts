/**
 * Part relation rules (spec 2.3, 4.3; decisions §6), pure: validating a POST /v1/parts/relations
 * body as a whole, the canonical key of an unordered pair, "the later item wins" within one body,
 * and the view of a stored relation from either of its parts (the automatic inverse).
 */
import { CatalogError, type FieldProblem } from '../../api/errors.js';
import {
  IdSchema, RelationInputSchema, RelationTypeSchema,
  type Relation, type RelationSource, type RelationType,
} from '../../api/schemas.js';

import { formatMicros } from '../time.js';
import { issuesToProblems } from '../validation.js';
import type { StoredRelation } from '../model.js';

/** A schema-valid item of a relations body, with its position in the body. */
export interface RelationItem {
  index: number;
  anchor_part_id: string;
  related_part_id: string;
  type: RelationType;
  source: RelationSource;
}

/** A problem of one item of the body; `index` orders the problems by item. */
export interface ItemProblem extends FieldProblem {
  index: number;
}

/** A relations body after the checks that need no store. */
export interface RelationBody {
  /** The items as sent, for naming the items that reference unknown parts. */
  raw: readonly unknown[];
  /** Items that passed every check that needs no store, in body order. */
  items: RelationItem[];
  /** Problems of the other items, in body order. */
  problems: ItemProblem[];
}

const ID_FIELDS = ['anchor_part_id', 'related_part_id'] as const;

function itemPath(index: number, field?: string): string {
  return field === undefined ? `items[${index}]` : `items[${index}].${field}`;
}

/**
 * Checks a POST /v1/parts/relations body without the store: the shape of each item (spec 4.3) and
 * that no part relates to itself. Throws 400 when the body is not an array and 413 when it has more
 * than `maxItems` items; every other problem is returned, so the caller can add unknown parts
 * before answering with ONE 400 (decisions §6: the body is validated as a whole).
 */
export function parseRelationBody(body: unknown, maxItems: number): RelationBody {
  if (!Array.isArray(body)) throw new CatalogError('bad_request', 'the request body must be a JSON array of relations');
  if (body.length > maxItems) {
    throw new CatalogError('payload_too_large', `at most ${maxItems} relations per call; this one has ${body.length}`);
  }
  const items: RelationItem[] = [];
  const problems: ItemProblem[] = [];
  body.forEach((raw: unknown, index) => {
    const result = RelationInputSchema.safeParse(raw);
    const itemProblems: FieldProblem[] = result.success ? [] : issuesToProblems(result.error.issues, itemPath(index));
    const anchor = result.success ? result.data.anchor_part_id : wellFormedId(raw, 'anchor_part_id');
    const related = result.success ? result.data.related_part_id : wellFormedId(raw, 'related_part_id');
    if (anchor !== undefined && anchor === related) {
      itemProblems.push({ path: itemPath(index, 'related_part_id'), message: `must differ from anchor_part_id: part '${anchor}' cannot relate to itself` });
    }
    if (itemProblems.length > 0) problems.push(...itemProblems.map((p) => ({ ...p, index })));
    else if (result.success) items.push({ index, ...result.data });
  });
  return { raw: body, items, problems };
}

/** The value of `field` of a raw item when it is a valid id, else undefined. */
function wellFormedId(raw: unknown, field: string): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const value = (raw as Record<string, unknown>)[field];
  return typeof value === 'string' && IdSchema.safeParse(value).success ? value : undefined;
}

/** Every valid part id named by any item of the body, valid item or not (to report unknown parts too). */
export function namedPartIds(body: RelationBody): string[] {
  const ids = new Set<string>();
  for (const raw of body.raw) {
    for (const field of ID_FIELDS) {
      const id = wellFormedId(raw, field);
      if (id !== undefined) ids.add(id);
    }
  }
  return [...ids];
}

/** One problem per item field that names a part in `missing`. */
export function unknownPartProblems(raw: readonly unknown[], missing: ReadonlySet<string>): ItemProblem[] {
  const problems: ItemProblem[] = [];
  if (missing.size === 0) return problems;
  raw.forEach((item, index) => {
    if (typeof item !== 'object' || item === null) return;
    for (const field of ID_FIELDS) {
      const value = (item as Record<string, unknown>)[field];
      if (typeof value === 'string' && missing.has(value)) {
        problems.push({ index, path: itemPath(index, field), message: `part '${value}' does not exist` });
      }
    }
  });
  return problems;
}

/**
 * The single 400 of a rejected relations body: `errors` names every problem by item path, ordered
 * by item; `detail` lists them all and says that nothing was written.
 */
export function relationBodyError(problems: readonly ItemProblem[]): CatalogError {
  const ordered = [...problems].sort((a, b) => a.index - b.index).map(({ path, message }) => ({ path, message }));
  const items = new Set(problems.map((p) => p.index)).size;
  const list = ordered.map((p) => `${p.path}: ${p.message}`).join('; ');
  return new CatalogError('bad_request', `invalid relations (${items} bad item${items === 1 ? '' : 's'}, nothing was written): ${list}`, ordered);
}

/**
 * The canonical key of the UNORDERED pair {a, b}: the same for (a, b) and (b, a). Ids never contain
 * control characters (decisions §1), so a NUL separator cannot be ambiguous.
 */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

/**
 * One item per unordered pair: when a body names a pair more than once, the later item wins
 * (the same rule as later writes, spec 2.3). Keeps the body order of each pair's first mention.
 */
export function latestPerPair<T extends { anchor_part_id: string; related_part_id: string }>(items: readonly T[]): T[] {
  const byPair = new Map<string, T>();
  for (const item of items) byPair.set(pairKey(item.anchor_part_id, item.related_part_id), item);
  return [...byPair.values()];
}

/** The stored form of an item written by `userId` at `now` (microseconds). */
export function toStoredRelation(item: RelationItem, userId: string, now: number): StoredRelation {
  return { anchor_part_id: item.anchor_part_id, related_part_id: item.related_part_id, type: item.type, source: item.source, user_id: userId, created: now };
}

/** Parses the `relation_type` of GET /v1/parts/{part_id}/relations/{relation_type}; 400 when unknown. */
export function parseRelationType(value: string): RelationType {
  const result = RelationTypeSchema.safeParse(value);
  if (result.success) return result.data;
  throw new CatalogError('bad_request', `unknown relation type '${value.slice(0, 100)}': must be one of: ${RelationTypeSchema.options.join(', ')}`, [
    { path: 'relation_type', message: `must be one of: ${RelationTypeSchema.options.join(', ')}` },
  ]);
}

/**
 * A stored relation as seen from `partId`, one of its two parts (spec 2.3): `part_id` is the OTHER
 * part and `part_role` the other part's role. So a substitute A→B (A predecessor) reads from A as
 * `{part_id: B, part_role: related_part}` and from B as `{part_id: A, part_role: anchor_part}`.
 */
export function viewRelation(partId: string, stored: StoredRelation): Relation {
  const selfIsAnchor = stored.anchor_part_id === partId;
  return {
    part_id: selfIsAnchor ? stored.related_part_id : stored.anchor_part_id,
    part_role: selfIsAnchor ? 'related_part' : 'anchor_part',
    type: stored.type,
    source: stored.source,
    ...(stored.user_id !== null ? { user_id: stored.user_id } : {}),
    created: formatMicros(stored.created),
  };
}

/** Binary (UTF-8 byte, i.e. code point) order of ids, the order SQLite and paging use (decisions §1). */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(j) ?? 0;
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** The relations of `partId` as returned by the API: ordered by `created` ascending, then `part_id` (decisions §6). */
export function viewRelations(partId: string, stored: readonly StoredRelation[]): Relation[] {
  const others = stored.map((s) => ({ created: s.created, view: viewRelation(partId, s) }));
  others.sort((a, b) => a.created - b.created || compareIds(a.view.part_id, b.view.part_id));
  return others.map((o) => o.view);
}
