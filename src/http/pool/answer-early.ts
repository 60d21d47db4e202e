/**
 * A text search on a `catalog serve` reader thread, answered as soon as its first page is ranked.
 * With block-max pruning a page of 25 of a frequent word costs ~1.3 ms at 1,000,000 parts, the
 * session's 10,000 hits ~9 ms: the client has its answer while the thread ranks the session.
 */
import type { Principal, SearchResponse } from '../../api/schemas.js';
import type { NewSession } from '../../core/ports.js';
import type { SearchService } from '../../core/search/service.js';

/**
 * POST /1/find/search: calls `onAnswer` with exactly what SearchService.search would return as
 * soon as the first page is ranked, then ranks the session's hits (up to maxSessionHits) in the
 * SAME read snapshot (SearchService.readSnapshot), so the session is the snapshot the answer came
 * from, and stores it (SearchService.storeSessions); resolves once it is stored. A search with
 * facets, or on an index without read snapshots, answers when done. Errors before the answer
 * reject and `onAnswer` is never called; a session that fails to be ranked or stored after it is
 * lost, as a deferred session write is (its pages answer 404, "start a new search"). Only where
 * nothing writes on the search's connection meanwhile (a reader thread).
 */
export async function searchAnsweringEarly(search: SearchService, principal: Principal, body: unknown, onAnswer: (response: SearchResponse) => void): Promise<void> {
  const maxHits = search.limits.maxSessionHits;
  let answered = false;
  let entry: NewSession | undefined;
  try {
    const snapshot = await search.readSnapshot(async () => {
      const plan = await search.planTextSearch(principal, body);
      if (!plan) return false;
      const limit = Math.min(plan.limit, maxHits);
      const page = await search.rankPlan(plan, limit, limit);
      const pageable = Math.min(page.hits.total, maxHits);
      const { response, session } = await search.answerPlan(principal, plan, page, pageable);
      answered = true;
      onAnswer(response);
      const hits = pageable > page.hits.cardIds.length ? (await search.rankPlan(plan, maxHits)).hits : page.hits;
      session.stored = hits.cardIds.length;
      entry = { session, hits };
      return true;
    });
    if (snapshot?.value !== true) {
      onAnswer(await search.search(principal, body));
      return;
    }
    if (entry) await search.storeSessions([entry]);
  } catch (error) {
    // Before the answer: the caller's error. After it: only the session is lost (see above).
    if (!answered) throw error;
  }
}
