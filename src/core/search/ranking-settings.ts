/**
 * The catalog's ranking settings (docs/api.md "Ranking settings"; docs/search.md "Ranking"): stored
 * as one JSON settings row, read at every search (the store keeps settings until something
 * commits), and turned into a search's order (TextSearchQuery.order) for the caller.
 */
import { MAX_ATTRIBUTE_ORDER, type Attribute, type Principal, type RankingSettings, type SearchSort } from '../../api/schemas.js';
import { errors, type FieldProblem } from '../../api/errors.js';
import type { SearchOrder } from '../model.js';
import { canSeeVisibility } from '../permissions.js';

/** The settings key of the ranking settings (a JSON RankingSettings). */
export const RANKING_SETTINGS_KEY = 'search_ranking';

/** The settings of a catalog that never set them. */
export const DEFAULT_RANKING_SETTINGS: RankingSettings = { customRanking: null, identifierAttributes: [], attributeOrder: [] };

/** The stored settings row as settings (absent or unreadable: the defaults). */
export function parseRankingSettings(stored: string | undefined): RankingSettings {
  if (stored === undefined) return DEFAULT_RANKING_SETTINGS;
  try {
    const value = JSON.parse(stored) as Partial<RankingSettings>;
    const custom = value.customRanking;
    const identifiers = Array.isArray(value.identifierAttributes) ? value.identifierAttributes.filter((a): a is string => typeof a === 'string') : [];
    const order = Array.isArray(value.attributeOrder) ? value.attributeOrder.filter((a): a is string => typeof a === 'string').slice(0, MAX_ATTRIBUTE_ORDER) : [];
    return {
      customRanking: custom && typeof custom.attribute_id === 'string' ? { attribute_id: custom.attribute_id, order: custom.order === 'asc' ? 'asc' : 'desc' } : null,
      identifierAttributes: identifiers,
      attributeOrder: order,
    };
  } catch {
    return DEFAULT_RANKING_SETTINGS;
  }
}

/** Why `attribute` cannot order hits (not filterable, per-organization), or undefined when it can. */
export function unorderable(attribute: Attribute): string | undefined {
  if (!attribute.filterable) return `attribute '${attribute.attribute_id}' is not filterable; only filterable attributes have their values indexed for ordering (make it filterable first)`;
  if (attribute.per_org_values) return `attribute '${attribute.attribute_id}' has per-organization values, which cannot order hits`;
  return undefined;
}

/** Why `attribute` cannot be an identifier attribute (not searchable, per-organization), or undefined when it can. */
export function notIdentifier(attribute: Attribute): string | undefined {
  if (!attribute.searchable) return `attribute '${attribute.attribute_id}' is not searchable; an identifier attribute's values must be searchable (make it searchable first)`;
  if (attribute.per_org_values) return `attribute '${attribute.attribute_id}' has per-organization values, which cannot be identifiers`;
  return undefined;
}

/**
 * The attribute order of the stored settings row `stored` as the search index builds its
 * documents with it (document.ts buildEngineDocument `order`: attribute_id → position); undefined
 * when there is none. Stores call it inside their write transactions, so documents always match
 * the row committed with them.
 */
export function attributeOrderOf(stored: string | undefined): Map<string, number> | undefined {
  const order = parseRankingSettings(stored).attributeOrder;
  return order.length > 0 ? new Map(order.map((id, i) => [id, i])) : undefined;
}

/** The attributes whose place in the attribute order differs between `before` and `after` (their parts must be re-indexed). */
export function attributeOrderChanges(before: ReadonlyMap<string, number> | undefined, after: ReadonlyMap<string, number> | undefined): string[] {
  const ids = new Set([...(before?.keys() ?? []), ...(after?.keys() ?? [])]);
  return [...ids].filter((id) => before?.get(id) !== after?.get(id));
}

/** Why `attribute` cannot be in the attribute order (not searchable, per-organization), or undefined when it can. */
export function notOrderable(attribute: Attribute): string | undefined {
  if (!attribute.searchable) return `attribute '${attribute.attribute_id}' is not searchable; only searchable attributes' words are found, so only they can be ordered (make it searchable first)`;
  if (attribute.per_org_values) return `attribute '${attribute.attribute_id}' has per-organization values, which the attribute order cannot rank`;
  return undefined;
}

/**
 * The identifier attributes of a search for `principal` (TextSearchQuery.identifiers): those of
 * `settings` that still exist, can be identifiers and that the caller may read (a value the caller
 * may not read never ranks a part first); undefined when none.
 */
export function searchIdentifiers(principal: Principal, attributes: ReadonlyMap<string, Attribute>, settings: RankingSettings): string[] | undefined {
  const out = settings.identifierAttributes.filter((id) => {
    const attribute = attributes.get(id);
    return attribute !== undefined && notIdentifier(attribute) === undefined && canSeeVisibility(principal, attribute.visibility);
  });
  return out.length > 0 ? out : undefined;
}

/**
 * The order of a search for `principal`: the request's `sort` (validated: 400 for an attribute
 * that does not exist or the caller may not read — the same answer for both, so a hidden
 * attribute's existence does not show — or one that cannot order hits), else the custom ranking
 * attribute when the caller may read it (else ties stay by BM25 and part id: its values never
 * order what the caller sees), else none.
 */
export function searchOrder(principal: Principal, attributes: ReadonlyMap<string, Attribute>, sort: readonly SearchSort[] | undefined, settings: RankingSettings): SearchOrder | undefined {
  const key = sort?.[0];
  if (key) {
    const direction = key.order ?? 'asc';
    if (key.attribute_id === undefined) return { kind: 'sort', direction };
    const attribute = attributes.get(key.attribute_id);
    const problems: FieldProblem[] = [];
    const path = 'sort[0].attribute_id';
    if (!attribute || !canSeeVisibility(principal, attribute.visibility)) problems.push({ path, message: `attribute '${key.attribute_id}' does not exist (or this token may not read it)` });
    else {
      const why = unorderable(attribute);
      if (why) problems.push({ path, message: why });
    }
    if (problems.length > 0) throw errors.badRequest(`invalid search request: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, problems);
    return { kind: 'sort', attributeId: key.attribute_id, direction };
  }
  const custom = settings.customRanking;
  if (!custom) return undefined;
  const attribute = attributes.get(custom.attribute_id);
  // An attribute deleted or changed since the setting was made is ignored until set again.
  if (!attribute || unorderable(attribute) !== undefined || !canSeeVisibility(principal, attribute.visibility)) return undefined;
  return { kind: 'tieBreak', attributeId: custom.attribute_id, direction: custom.order };
}
