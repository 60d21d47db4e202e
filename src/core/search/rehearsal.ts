/**
 * Rehearsal searches: a fresh `catalog serve` thread runs searches built from its own catalog's
 * part names while no client needs it, so that the first clients' searches run the search code
 * already compiled by the JavaScript engine and find the lists, dictionary ranges and cards they
 * read already loaded. Until then a fresh thread's searches cost several times a warm thread's,
 * and a server started into a busy load answers its first seconds of searches slowly
 * (docs/search.md, "Rehearsal searches").
 *
 * What runs is what clients send: one word, two adjacent words, a word being typed (its first
 * 2 to 5 letters), a word with a typo, and facet values of each filterable attribute; each
 * ranked as a thread ranks a client's first page, with its cards; but nothing is stored: no
 * session, no write. The session's hits a reader ranks after answering are not rehearsed: they
 * run the same code with more hits, after the client has its answer.
 */
import type { Attribute, FacetValuesRequest, Principal, SearchRequest } from '../../api/schemas.js';
import type { CatalogStore } from '../ports.js';
import type { SearchService } from './service.js';

/** Part names a rehearsal samples. */
export const REHEARSAL_NAMES = 120;
/** Searches a rehearsal runs at most (each of one of the kinds of {@link rehearsalSearches}). */
export const REHEARSAL_SEARCHES = 400;
/**
 * Time a rehearsal may spend searching, in ms (waits for an idle thread not counted): a large
 * catalog's first searches cost seconds, and a rehearsal must not keep a core busy long after
 * start-up (docs/decisions/0053).
 */
export const REHEARSAL_BUDGET_MS = 2000;

/** The words of a name a rehearsal query is made of: runs of letters and digits, 3 or more long. */
function wordsOf(name: string): string[] {
  return name.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3);
}

/** `word` with its two middle letters swapped (a typing slip); the word itself under 5 letters. */
function withTypo(word: string): string {
  if (word.length < 5) return word;
  const at = Math.floor((word.length - 1) / 2);
  return `${word.slice(0, at)}${word[at + 1]}${word[at]}${word.slice(at + 2)}`;
}

/**
 * Search request bodies (spec 4.4 POST /1/find/search) made from `names`, at most `max`, the
 * kinds in turn: one word, two adjacent words, the first 2 to 5 letters of a word (typed so far),
 * a word with a typo. Deterministic; names without a word of 3 letters give none.
 */
export function rehearsalSearches(names: readonly string[], max = REHEARSAL_SEARCHES): SearchRequest[] {
  const texts: string[] = [];
  const kinds = 4;
  for (let pass = 0; texts.length < max && pass < kinds; pass++) {
    for (const [i, name] of names.entries()) {
      if (texts.length >= max) break;
      const words = wordsOf(name);
      if (words.length === 0) continue;
      const kind = (i + pass) % kinds;
      const at = (i * 7 + pass) % words.length;
      const word = words[at] as string;
      const next = words[at + 1];
      if (kind === 0) texts.push(word);
      else if (kind === 1) texts.push(next === undefined ? word : `${word} ${next}`);
      else if (kind === 2) texts.push(word.slice(0, 2 + ((i + pass) % 4)));
      else texts.push(withTypo(word));
    }
  }
  return texts.map((text) => ({ matches: { text }, resultOptions: { limit: 25 } }));
}

/**
 * Facet-values request bodies (POST /1/find/facet-values) for each filterable attribute: over
 * every part, and over the hits of a word of `names`.
 */
export function rehearsalFacetValues(attributes: readonly Pick<Attribute, 'attribute_id' | 'filterable'>[], names: readonly string[]): FacetValuesRequest[] {
  const word = names.map(wordsOf).find((words) => words.length > 0)?.[0];
  return attributes
    .filter((a) => a.filterable)
    .flatMap((a) => [{ attribute_id: a.attribute_id }, ...(word === undefined ? [] : [{ attribute_id: a.attribute_id, matches: { text: word } }])]);
}

/** Options of {@link rehearse}. */
export interface RehearsalOptions {
  /** Count the facet values of each filterable attribute too (on a thread that answers facets). */
  facets?: boolean;
  /**
   * Rank only within this many postings (SearchService.rankPlanWithin), as a thread that answers
   * only cheap searches does; a search that would read more is skipped.
   */
  maxPostings?: number;
  /** Time the rehearsal may spend searching, in ms (default {@link REHEARSAL_BUDGET_MS}). */
  budgetMs?: number;
}

/**
 * Runs the rehearsal on `search` as `principal` (every attribute visible: a catalog admin), one
 * request at a time, each once `idle()` resolves (the server has no client's request to run);
 * resolves with how many were answered. Nothing is stored. Every read ends with
 * `store.endTurn()` in the same turn of the event loop: where the thread's stores keep what they
 * read for a turn, a client's request handled later in that turn must see the catalog afresh. A
 * failing request ends the rehearsal quietly: a client's own request reports such a failure.
 */
export async function rehearse(
  search: SearchService, store: Pick<CatalogStore, 'allAttributes' | 'endTurn'>, principal: Principal, idle: () => Promise<void>, options: RehearsalOptions = {},
): Promise<number> {
  let answered = 0;
  let left = options.budgetMs ?? REHEARSAL_BUDGET_MS;
  /** Runs `request` once the server is idle, its time charged to the budget; false once the budget is spent. */
  const turn = async (request: () => Promise<boolean>): Promise<boolean> => {
    if (left <= 0) return false;
    await idle();
    const began = performance.now();
    try {
      if (await request()) answered++;
    } finally {
      store.endTurn?.();
    }
    left -= performance.now() - began;
    return true;
  };
  const searchOnce = async (body: SearchRequest): Promise<boolean> => {
    const plan = await search.planTextSearch(principal, body);
    if (!plan) return false;
    const page = options.maxPostings === undefined
      ? await search.rankPlan(plan, plan.limit, plan.limit)
      : await search.rankPlanWithin(plan, search.limits.maxSessionHits, plan.limit, options.maxPostings);
    if (!page) return false;
    await search.answerPlan(principal, plan, page);
    return true;
  };
  try {
    const names = await search.sampleNames(REHEARSAL_NAMES);
    const attributes = options.facets ? await store.allAttributes() : [];
    store.endTurn?.();
    for (const body of rehearsalSearches(names)) if (!(await turn(() => searchOnce(body)))) return answered;
    for (const body of rehearsalFacetValues(attributes, names)) {
      if (!(await turn(async () => (await search.facetValues(principal, body), true)))) return answered;
    }
  } catch {
    // Ended quietly (see above).
  }
  return answered;
}
