/**
 * Search results (spec 2.5, decisions §8): the fields captured for a hit at search time (a
 * "result card"), the name-language choice, and projections.
 */
import { errors } from '../../api/errors.js';
import { ROUTES } from '../../api/routes.js';
import { DEFAULT_SEARCH_PROJECTION, SEARCH_PROJECTION, type LangMap, type PartAttribute, type SearchHighlight, type SearchProjection, type SearchResult } from '../../api/schemas.js';
import type { ResultCard } from '../model.js';
import { formatMicros } from '../time.js';

/**
 * The name to show: the one in `language` (exact key, else the same key ignoring case), else the
 * first available language in sorted order. Undefined only for a part without names.
 */
export function chooseName(names: LangMap, language: string | undefined): { name: string; language: string } | undefined {
  if (language !== undefined) {
    const exact = names[language];
    if (exact !== undefined) return { name: exact, language };
    const lower = language.toLowerCase();
    const key = Object.keys(names).sort().find((k) => k.toLowerCase() === lower);
    if (key !== undefined) return { name: names[key] ?? '', language: key };
  }
  const first = Object.keys(names).sort()[0];
  return first === undefined ? undefined : { name: names[first] ?? '', language: first };
}

/**
 * What a hit shows besides its card, read when its page is read: the shown display
 * images (image ids in UI order) and the values the caller may see (viewPart).
 */
export interface HitDetails {
  images?: readonly string[];
  attributes?: PartAttribute[];
  highlights?: SearchHighlight[];
  /** The hit's image-search score in [0, 1]; undefined in a text search (then `score` is null). */
  score?: number;
}

/** The default six fields as a set: built once, not once per result card. */
const DEFAULT_PROJECTION_SET: ReadonlySet<SearchProjection> = new Set<SearchProjection>(DEFAULT_SEARCH_PROJECTION);

/** The projection in force: the one given, else the default six fields. */
export function projectionInForce(projection: readonly SearchProjection[] | undefined): ReadonlySet<SearchProjection> {
  return projection && projection.length > 0 ? new Set<SearchProjection>(projection) : DEFAULT_PROJECTION_SET;
}

/** Builds a result with the projected fields, in the order of SEARCH_PROJECTION. */
export function toSearchResult(card: ResultCard, language: string | undefined, projection: readonly SearchProjection[] | undefined, details: HitDetails = {}): SearchResult {
  const wanted = projectionInForce(projection);
  const out: SearchResult = {};
  if (wanted.has('results.id')) out.id = card.partId;
  if (wanted.has('results.serviceId')) out.serviceId = card.serviceId;
  if (wanted.has('results.name') || wanted.has('results.nameLanguage')) {
    const chosen = chooseName(card.names, language);
    if (wanted.has('results.name')) out.name = chosen?.name ?? '';
    if (wanted.has('results.nameLanguage')) out.nameLanguage = chosen?.language ?? '';
  }
  if (wanted.has('results.createdAt')) out.createdAt = formatMicros(card.createdAt);
  if (wanted.has('results.modifiedAt')) out.modifiedAt = formatMicros(card.modifiedAt);
  if (wanted.has('results.images')) out.images = (details.images ?? []).map((image_id) => ({ image_id, path: ROUTES.imageOriginal(image_id) }));
  if (wanted.has('results.attributes')) out.attributes = details.attributes ?? [];
  if (wanted.has('results.highlights')) out.highlights = details.highlights ?? [];
  // Four decimals: the stored precision is 1/65,535, and more digits would only be noise.
  if (wanted.has('results.score')) out.score = details.score === undefined ? null : Math.round(details.score * 10_000) / 10_000;
  return out;
}

function isProjection(value: string): value is SearchProjection {
  return (SEARCH_PROJECTION as readonly string[]).includes(value);
}

/** Validates projection values; throws 400 naming the allowed ones (decisions §1). */
export function checkProjection(values: readonly string[], where: string): SearchProjection[] {
  const bad = values.filter((v) => !isProjection(v));
  if (bad.length > 0) {
    throw errors.badRequest(`${where}: unknown value(s) ${bad.map((b) => `'${b}'`).join(', ')}; allowed: ${SEARCH_PROJECTION.join(', ')}`);
  }
  return values.filter(isProjection);
}

/** Parses the comma-separated `projection` query parameter of search state; undefined or "" = all. */
export function parseProjectionParam(raw: string | undefined): SearchProjection[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  return checkProjection(raw.split(',').map((v) => v.trim()).filter((v) => v !== ''), 'projection');
}
