/**
 * RelationService: the part relation operations of api-spec.md §4.3 with api-decisions.md §6, used
 * by the HTTP routes (per request, with the token's principal) and the local client (as the owner).
 */
import { errors } from '../../api/errors.js';
import {
  DEFAULT_PAGE_LIMIT, IdSchema, normalizeId, RelationListRequestSchema, type Page, type Principal, type Relation, type RelationCreateResult,
  type RelationRecord,
} from '../../api/schemas.js';
import type { StoredRelation } from '../model.js';
import { formatMicros } from '../time.js';
import { parseBody } from '../validation.js';
import type { RelationStore } from '../ports.js';
import {
  latestPerPair, namedPartIds, parseRelationBody, parseRelationType, relationBodyError, toStoredRelation,
  unknownPartProblems, viewRelations,
} from './rules.js';
import type { ServiceContext } from '../context.js';
import { assertScope } from '../permissions.js';

export class RelationService {
  private readonly catalog: ServiceContext;
  private readonly store: RelationStore;

  /** `context`: the catalog's shared context (clock, limits, write check); `store`: the relations. */
  constructor(context: ServiceContext, store: RelationStore) {
    this.catalog = context;
    this.store = store;
  }

  /**
   * POST /v1/parts/relations: body = array of `{anchor_part_id, related_part_id, type, source?}`.
   * All or nothing: any bad item (bad field, unknown type, unknown part, anchor = related) is ONE
   * 400 naming every bad item (`items[3].related_part_id`), and nothing is written. A pair named
   * twice: the later item wins. Returns `{created}` = the number of relations (pairs) written.
   * Throws 403 for non-writers, 503 in maintenance mode, 413 over the bulk item limit.
   */
  async createRelations(principal: Principal, body: unknown): Promise<RelationCreateResult> {
    assertScope(principal, 'relations:write');
    await this.catalog.assertWritable(principal);
    const parsed = parseRelationBody(body, this.catalog.limits.maxBulkItems);
    if (parsed.problems.length > 0) {
      // Rejected anyway: look up the parts too, so the one answer names every bad item.
      const missing = await this.store.missingParts(namedPartIds(parsed));
      throw relationBodyError([...parsed.problems, ...unknownPartProblems(parsed.raw, missing)]);
    }
    const now = this.catalog.clock.nowMicros();
    const relations = latestPerPair(parsed.items).map((item) => toStoredRelation(item, principal.name, now));
    const result = await this.store.writeRelations(relations);
    if (result.missing.length > 0) throw relationBodyError(unknownPartProblems(parsed.raw, new Set(result.missing)));
    return { created: result.written };
  }

  /**
   * POST /v1/parts/relations/list (our addition, docs/api.md): every relation of the catalog in its
   * import shape plus `user_id` and `created`, paged (spec 2.4) in (anchor_part_id, related_part_id)
   * code point order. `last_object_id` is an opaque cursor (the JSON array of the last pair); on an
   * empty page it echoes the request's. 400 for a bad body or cursor. Any valid token may read.
   */
  async listRelations(principal: Principal, body: unknown): Promise<Page<RelationRecord>> {
    assertScope(principal, 'relations:read');
    const request = parseBody(RelationListRequestSchema, body ?? {}, 'list request');
    const limit = request.paging?.limit ?? DEFAULT_PAGE_LIMIT;
    const cursor = request.paging?.last_object_id;
    const after = cursor === undefined || cursor === '' ? undefined : parseRelationCursor(cursor);
    // One more than asked tells whether more data follows.
    const stored = await this.store.listRelations(after, limit + 1);
    const page = stored.slice(0, limit);
    const last = page[page.length - 1];
    return {
      result: page.map(toRelationRecord),
      last_object_id: last ? JSON.stringify([last.anchor_part_id, last.related_part_id]) : (cursor ?? ''),
      more_data: stored.length > limit,
    };
  }

  /**
   * GET /v1/parts/{part_id}/relations/{relation_type} (spec 4.3), or every type when `type` is
   * undefined (GET /v1/parts/{part_id}/relations, our addition). Each relation is seen from
   * `partId` (spec 2.3), ordered by created, then part_id. 400 for an unknown type or a malformed
   * id; 404 when the part does not exist. Any valid token may read.
   */
  async getRelations(principal: Principal, partId: string, type?: string): Promise<Relation[]> {
    assertScope(principal, 'relations:read');
    const relationType = type === undefined ? undefined : parseRelationType(type);
    if (!IdSchema.safeParse(partId).success) {
      throw errors.badRequest(`invalid part id '${partId.slice(0, 300)}': 1 to 256 characters, no control characters, no "/"`, [
        { path: 'part_id', message: 'must be 1 to 256 characters without control characters or "/"' },
      ]);
    }
    partId = normalizeId(partId);
    const stored = await this.store.relationsOf(partId, relationType);
    if (!stored) throw errors.notFound(`part '${partId}' does not exist`);
    return viewRelations(partId, stored);
  }
}

/** A stored relation in the listing's shape. */
function toRelationRecord(stored: StoredRelation): RelationRecord {
  return {
    anchor_part_id: stored.anchor_part_id,
    related_part_id: stored.related_part_id,
    type: stored.type,
    source: stored.source,
    ...(stored.user_id !== null ? { user_id: stored.user_id } : {}),
    created: formatMicros(stored.created),
  };
}

/** Reads a relations-list cursor `["<anchor>","<related>"]`; 400 when it is not one. */
function parseRelationCursor(cursor: string): { anchor_part_id: string; related_part_id: string } {
  let value: unknown;
  try {
    value = JSON.parse(cursor);
  } catch {
    value = undefined;
  }
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') {
    return { anchor_part_id: value[0], related_part_id: value[1] };
  }
  throw errors.badRequest('paging.last_object_id: not a cursor of this listing (pass the last_object_id of the previous page)', [
    { path: 'paging.last_object_id', message: 'must be the last_object_id of a previous page' },
  ]);
}
