/**
 * How a text search is answered (decisions §8), decided purely from the query, the caller's view
 * and one fact from the index per word (does it occur in any per-organization value at all).
 *
 * The index row of a part holds what is the same for every reader: id, names and the values of
 * attributes that are not per-organization, by visibility column. What an organization sees of a
 * per-organization attribute (own, inherited under `sub`, else the default) is not in it. So:
 * - `exact`: no query word occurs in any per-organization value or in a default the caller sees,
 *   and no filter is on a per-organization attribute: the index answers exactly, for every part.
 * - `split`: otherwise. Parts WITHOUT per-organization values ("non-holders") see every default,
 *   so words found in a default are satisfied and dropped, and a per-organization filter passes
 *   or fails for all of them at once by the default: the index still answers exactly. Parts WITH
 *   per-organization values ("holders") are narrowed by the index with the words that cannot
 *   come from a per-organization value or default, then evaluated one by one (match.ts).
 * The cost of `split` grows with the number of holders among the candidates; catalogs where most
 * parts carry per-organization values pay it only for queries that touch such values.
 */

import { FILTER_COLUMN, HOLDER_TOKEN, META_COLUMN, VALUE_COLUMNS, filterToken } from './document.js';
import type { Visibility } from '../../../api/schemas.js';
import type { ExpandedWord, PartViewContext, SearchFilter } from '../../../core/model.js';
import { canSeeVisibility, VISIBILITY_ORDER } from '../../../core/permissions.js';
import { valuePasses, wordMatches } from '../../../core/search/match.js';
import { foldFilterValue, langTexts, tokenize } from '../../../core/search/text.js';
import { ftsAnd, ftsNot, ftsTokenClause, ftsWordClause } from './fts-query.js';

/** A full-text query: `match` selects the hits; `names` the hits of the higher tier (a subset). */
export interface FtsQuery {
  match: string;
  /** The hits whose every word is in the id or a name (they rank first); undefined: no words, no tiers. */
  names: string | undefined;
}

export type TextPlan =
  /** Nothing can match (e.g. a filter on an attribute the caller may not see). */
  | { kind: 'nothing' }
  /** No words and no filters: every part, by part id. */
  | { kind: 'everything' }
  /** The index answers exactly. */
  | { kind: 'exact'; query: FtsQuery }
  /**
   * Non-holders through the index (`all`: every non-holder, by part id; `none`: none can match);
   * holders: index candidates of `holders` (always restricted to holders), each evaluated exactly.
   */
  | { kind: 'split'; nonHolders: FtsQuery | 'all' | 'none'; holders: string };

export interface PlanInput {
  words: readonly ExpandedWord[];
  /** Per word: it occurs in some per-organization value text the caller's roles may see. */
  inOrgText: readonly boolean[];
  /** The value fields the caller may see (TextSearchQuery.visibleValues). */
  visibleValues: readonly Visibility[];
  filters: readonly SearchFilter[];
  ctx: PartViewContext;
}

/** The word columns besides the id (names, visible value columns) a caller's words may match. */
export function textColumns(visibleValues: readonly Visibility[]): string[] {
  return ['names', ...VISIBILITY_ORDER.filter((v) => visibleValues.includes(v)).map((v) => VALUE_COLUMNS[v])];
}

/** Per word: satisfied by the default_value of a searchable per-organization attribute the caller sees (organization views only). */
export function wordsInDefaults(words: readonly ExpandedWord[], ctx: PartViewContext): boolean[] {
  if (ctx.organization === undefined) return words.map(() => false);
  const defaults: string[][] = [];
  for (const a of ctx.attributes.values()) {
    if (a.per_org_values && a.searchable && a.default_value && canSeeVisibility(ctx.principal, a.visibility)) {
      for (const text of langTexts(a.default_value)) defaults.push(tokenize(text));
    }
  }
  return words.map((w) => defaults.length > 0 && wordMatches(w, defaults));
}

/** Decides how to answer a text search; see the module comment. */
export function planTextSearch(input: PlanInput): TextPlan {
  const { words, filters, ctx } = input;
  if (words.length === 0 && filters.length === 0) return { kind: 'everything' };
  const columns = textColumns(input.visibleValues);
  const wordClauses = words.map((w) => ftsWordClause(w, columns));
  const nameClauses = words.map((w) => ftsWordClause(w, ['names']));
  const inDefaults = wordsInDefaults(words, ctx);

  const sharedFilterClauses: string[] = [];
  const orgFilters: SearchFilter[] = [];
  for (const filter of filters) {
    if (!canSeeVisibility(ctx.principal, filter.attribute.visibility) || filter.values.length === 0) return { kind: 'nothing' };
    if (filter.attribute.per_org_values) orgFilters.push(filter);
    else sharedFilterClauses.push(ftsTokenClause([...new Set(filter.values.map((v) => filterToken(filter.attribute.attribute_id, v)))], [FILTER_COLUMN]));
  }
  const names = words.length > 0 ? ftsAnd([...nameClauses, ...sharedFilterClauses]) : undefined;
  const orgSensitive = orgFilters.length > 0 || words.some((_, i) => inDefaults[i] === true || input.inOrgText[i] === true);
  if (!orgSensitive) {
    const match = ftsAnd([...wordClauses, ...sharedFilterClauses]);
    return match === undefined ? { kind: 'everything' } : { kind: 'exact', query: { match, names } };
  }

  const holder = ftsTokenClause([HOLDER_TOKEN], [META_COLUMN]);
  // Non-holders see defaults only: a per-organization filter holds for all of them or for none.
  const defaultsPass = orgFilters.every((f) => {
    const fallback = ctx.organization !== undefined ? f.attribute.default_value : undefined;
    return fallback !== undefined && valuePasses(fallback, new Set(f.values.map(foldFilterValue)));
  });
  let nonHolders: FtsQuery | 'all' | 'none' = 'none';
  if (defaultsPass) {
    const positive = ftsAnd([...wordClauses.filter((_, i) => inDefaults[i] !== true), ...sharedFilterClauses]);
    nonHolders = positive === undefined ? 'all' : { match: ftsNot(positive, holder), names: names === undefined ? undefined : ftsNot(names, holder) };
  }
  const holderClauses = wordClauses.filter((_, i) => inDefaults[i] !== true && input.inOrgText[i] !== true);
  const holders = ftsAnd([...holderClauses, ...sharedFilterClauses, holder]) ?? holder;
  return { kind: 'split', nonHolders, holders };
}
