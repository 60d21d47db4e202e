/**
 * The search service's session sink (SearchServiceDeps.sessionSink, core/ports.ts SessionSink):
 * the core gives each new session to the sink instead of storing it, and waits for the sink's
 * flush before it reads a session, so whatever the sink schedules, a page of a session finds it.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import type { NewSession, SessionBudget, SessionSink, SessionStore } from '../../src/core/ports.js';
import type { Catalog } from '../../src/core/services.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';

/** A sink that holds what it is given until flushed, then stores it through `sessions`. */
class HoldingSink implements SessionSink {
  readonly kept: { entry: NewSession; budget: SessionBudget }[] = [];
  flushes = 0;
  constructor(private readonly sessions: SessionStore) {}
  keep(entry: NewSession, budget: SessionBudget): void {
    this.kept.push({ entry, budget });
  }
  async flush(): Promise<void> {
    this.flushes++;
    for (const { entry, budget } of this.kept.splice(0)) await this.sessions.create(entry.session, entry.hits, budget);
  }
}

describe('a search service with a session sink', () => {
  let dir: string;
  let catalog: Catalog;
  let sink: HoldingSink;

  beforeEach(async () => {
    dir = tempDir('catalog-sink-');
    catalog = openCatalog({ dataDir: dir, searchLimits: { maxSessionsPerToken: 7 }, sessionSink: (sessions) => (sink = new HoldingSink(sessions)) });
    await catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: 12 }, (_, i) => ({ part_id: `p${String(i).padStart(2, '0')}`, name: { en: `Cog ${i}` } })));
  });
  afterEach(async () => {
    await catalog.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives each new session to the sink with the session budget, and flushes it before reading one', async () => {
    const answer = await catalog.search.search(LOCAL_OWNER, { matches: { text: 'cog' }, resultOptions: { limit: 5 } });
    expect(sink.kept.map((k) => k.entry.session.sessionId)).toEqual([answer.sessionId]);
    expect(sink.kept[0]?.budget.maxSessionsPerOwner).toBe(7);
    expect(sink.flushes).toBe(0);
    const page = await catalog.search.searchState(LOCAL_OWNER, answer.sessionId, { skip: 5, limit: 5 });
    expect(page.results.map((r) => r.id)).toEqual(['p05', 'p06', 'p07', 'p08', 'p09']);
    expect(sink.flushes).toBe(1);
    expect(sink.kept).toEqual([]);
  });

  it('gives sessions ranked elsewhere (storeSessions) to the sink too, and flushes it on close', async () => {
    const answer = await catalog.search.search(LOCAL_OWNER, { matches: { text: 'cog 3' } });
    const [entry] = sink.kept.splice(0);
    await catalog.search.storeSessions([(entry as { entry: NewSession }).entry]);
    expect(sink.kept).toHaveLength(1);
    await catalog.close();
    catalog = openCatalog({ dataDir: dir });
    expect((await catalog.search.searchState(LOCAL_OWNER, answer.sessionId)).resultsTotalCount).toBe(answer.resultsTotalCount);
  });
});
