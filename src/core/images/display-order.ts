/**
 * Display order of a part's images: api-spec.md §2.2 rules 1–4, settled by api-decisions.md §4.
 * One pure function of the part's images and the catalog image configuration.
 */
import { priorityOf } from './info-tokens.js';
import type { ParsedInfo } from './info-tokens.js';

/**
 * One image of a part, as display order sees it.
 * - `image_id`: unique id; the tie-breaker (binary / code-point order, same as SQLite BINARY on UTF-8).
 * - `info`: the parsed info (see `parseImageInfo`); only images with `info.display` take part.
 * - `position`: the `position` FIELD (integer >= 1) when set; not the deprecated `position=` token.
 * - `createdAt`: creation time in microseconds; the catalog default ordering is `createdAt`, then `image_id`.
 */
export interface DisplayImageInput {
  image_id: string;
  info: ParsedInfo;
  position?: number;
  createdAt: number;
}

/**
 * Catalog image configuration (decisions §4).
 * - `maxDisplayImages`: how many images the UI shows (integer >= 0; default 5, spec §8).
 * - `priorityDirection`: `'ascending'` (default) = lower priority value first and higher values
 *   discarded first under rule 4b; `'descending'` = the other way.
 */
export interface DisplayOrderConfig {
  maxDisplayImages: number;
  priorityDirection: 'ascending' | 'descending';
}

/** The standard catalog configuration: 5 images, ascending priority (spec §8, decisions §4). */
export const DEFAULT_DISPLAY_ORDER_CONFIG: Readonly<DisplayOrderConfig> = Object.freeze({
  maxDisplayImages: 5,
  priorityDirection: 'ascending',
});

/**
 * Result of {@link displayOrder}: image ids.
 * - `ordered`: every display image in display order (rules 1–3).
 * - `shown`: the images the UI shows (rule 4), in display order (`ordered` filtered); at most `maxDisplayImages`.
 */
export interface DisplayOrderResult {
  ordered: string[];
  shown: string[];
}

/** Binary string order by Unicode code point (= UTF-8 byte order, = SQLite BINARY collation). */
function compareBinary(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done === true) return cb.done === true ? 0 : -1;
    if (cb.done === true) return 1;
    const pa = ca.value.codePointAt(0) ?? 0;
    const pb = cb.value.codePointAt(0) ?? 0;
    if (pa !== pb) return pa < pb ? -1 : 1;
  }
}

/** Catalog default ordering: creation time, then image_id. */
function compareDefault(a: DisplayImageInput, b: DisplayImageInput): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return compareBinary(a.image_id, b.image_id);
}

/**
 * Indexes of `k` evenly spaced picks among `n` candidates (0 <= k <= n): first and last included
 * when k >= 2, only the first when k = 1; index i = round(i·(n−1)/(k−1)), halves rounding up.
 * Example: n = 5, k = 3 → [0, 2, 4]. Exported for tests and for callers explaining a selection.
 */
export function evenlySpacedIndexes(n: number, k: number): number[] {
  if (k <= 0 || n <= 0) return [];
  if (k >= n) return Array.from({ length: n }, (_, i) => i);
  if (k === 1) return [0];
  return Array.from({ length: k }, (_, i) => Math.round((i * (n - 1)) / (k - 1)));
}

/**
 * Orders a part's display images and selects those the UI shows (spec §2.2 rules 1–4, decisions §4).
 *
 * Only images whose `info.display` is true take part. Display order (`ordered`):
 * 1. images with a `position` field, by position ascending;
 * 2. equal positions by `image_id` (binary order);
 * 3. then images with a priority token (`weight=x`, else deprecated `position=x`; weight wins), by
 *    value per `priorityDirection` (ascending = lower first), ties in default order (createdAt, then
 *    image_id); then images without a priority token, in default order.
 *
 * Selection (`shown`) when there are more display images than `maxDisplayImages`:
 * (a) positioned images, lowest positions first, up to the maximum; (b) priority images fill the
 * remaining slots, best values first (ascending: higher values discarded first; descending: lower
 * first); when a group of EQUAL values does not fit in the k remaining slots, k evenly spaced members
 * of it (in default order) are taken, see {@link evenlySpacedIndexes}; (c) the remaining images fill
 * what is left, in default order. `shown` keeps display order.
 *
 * `config` fields default to {@link DEFAULT_DISPLAY_ORDER_CONFIG}. Input is not mutated.
 * @throws RangeError if `maxDisplayImages` is not an integer >= 0 or `priorityDirection` is invalid.
 */
export function displayOrder(
  images: readonly DisplayImageInput[],
  config: Partial<DisplayOrderConfig> = {},
): DisplayOrderResult {
  const max = config.maxDisplayImages ?? DEFAULT_DISPLAY_ORDER_CONFIG.maxDisplayImages;
  const direction = config.priorityDirection ?? DEFAULT_DISPLAY_ORDER_CONFIG.priorityDirection;
  if (!Number.isSafeInteger(max) || max < 0) throw new RangeError(`maxDisplayImages must be an integer >= 0, got ${String(max)}`);
  if (direction !== 'ascending' && direction !== 'descending') {
    throw new RangeError(`priorityDirection must be 'ascending' or 'descending', got ${String(direction)}`);
  }
  const sign = direction === 'ascending' ? 1 : -1;

  const positioned: (DisplayImageInput & { position: number })[] = [];
  const prioritized: { image: DisplayImageInput; priority: number }[] = [];
  const rest: DisplayImageInput[] = [];
  for (const image of images) {
    if (!image.info.display) continue;
    const { position } = image;
    if (position !== undefined && position !== null) {
      positioned.push({ ...image, position });
      continue;
    }
    const priority = priorityOf(image.info);
    if (priority !== undefined) prioritized.push({ image, priority });
    else rest.push(image);
  }

  // Rules 1 and 2.
  positioned.sort((a, b) => (a.position !== b.position ? a.position - b.position : compareBinary(a.image_id, b.image_id)));
  // Rule 3.
  prioritized.sort((a, b) => (a.priority !== b.priority ? sign * (a.priority - b.priority) : compareDefault(a.image, b.image)));
  rest.sort(compareDefault);

  const ordered = [
    ...positioned.map((i) => i.image_id),
    ...prioritized.map((p) => p.image.image_id),
    ...rest.map((i) => i.image_id),
  ];
  if (ordered.length <= max) return { ordered, shown: [...ordered] };

  // Rule 4.
  const selected = new Set<string>();
  // (a) positioned: already sorted lowest first.
  for (const image of positioned.slice(0, max)) selected.add(image.image_id);
  let remaining = max - selected.size;
  // (b) priority groups, best value first; evenly spaced picks in the group that does not fit.
  for (let start = 0; start < prioritized.length && remaining > 0; ) {
    const value = prioritized[start]?.priority;
    let end = start;
    while (end < prioritized.length && prioritized[end]?.priority === value) end++;
    const group = prioritized.slice(start, end);
    for (const index of evenlySpacedIndexes(group.length, remaining)) {
      const pick = group[index];
      if (pick !== undefined) selected.add(pick.image.image_id);
    }
    remaining = max - selected.size;
    start = end;
  }
  // (c) the rest, default order.
  for (const image of rest.slice(0, remaining)) selected.add(image.image_id);

  return { ordered, shown: ordered.filter((id) => selected.has(id)) };
}
