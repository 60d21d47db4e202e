/**
 * Cheap text searches answered on `catalog serve`'s main thread. The pool hands text searches to
 * reader threads so that a costly one never stalls the event loop; but for a rare word the hop to
 * a thread and back costs more than the search itself (~0.3 ms against ~0.1 ms at 1,000,000
 * parts). So the main thread first tries a search within {@link MAIN_THREAD_SEARCH_POSTINGS}
 * postings, counted by the index before they are read (SearchIndex.searchTextWithin); one that
 * would read more gives up before storing anything and goes to a reader.
 */
import type { Principal, SearchResponse } from '../../api/schemas.js';
import type { SearchService } from '../../core/search/service.js';

/**
 * Postings a text search may read on the main thread: at most ~0.2 ms of ranking (~64 blocks to
 * decode, ~8,000 postings to score), so a request waiting behind it barely notices; rare and
 * medium words (≤ ~1,000 hits, each word ≤ 64 blocks) stay under it, frequent words (5-30 % of
 * the parts) and most prefixes do not.
 */
export const MAIN_THREAD_SEARCH_POSTINGS = 8192;

/**
 * POST /1/find/search answered here, exactly as SearchService.search would, when it is a text
 * search without facets that ranks within `maxPostings` postings; undefined otherwise (facets
 * count every hit, whatever the words), having stored nothing. A bad request throws its error as
 * SearchService.search does.
 */
export async function searchWithinPostings(search: SearchService, principal: Principal, body: unknown, maxPostings: number): Promise<SearchResponse | undefined> {
  const plan = await search.planTextSearch(principal, body);
  if (!plan) return undefined;
  const ranked = await search.rankPlanWithin(plan, search.limits.maxSessionHits, plan.limit, maxPostings);
  if (!ranked) return undefined;
  const { response, session } = await search.answerPlan(principal, plan, ranked);
  await search.storeSessions([{ session, hits: ranked.hits }]);
  return response;
}
