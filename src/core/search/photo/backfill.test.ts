import { describe, expect, it } from 'vitest';
import type { ReferenceFeatureStore } from '../../ports.js';
import { backfillFeatures, type BackfillProgress } from './backfill.js';

const PREFIX = Uint8Array.of(0x50, 0x46, 2);

/** An in-memory store: image id → { sha256, features }. */
function fakeStore(rows: Map<string, { sha256: string; features: Uint8Array }>): ReferenceFeatureStore {
  const stale = (f: Uint8Array): boolean => !PREFIX.every((b, i) => f[i] === b);
  return {
    fingerprint: async () => '',
    async *all() {},
    changeVersion: async () => 0,
    changesSince: async () => ({ version: 0, complete: true, more: false, upserted: [], removed: [] }),
    async staleFeatures(_prefix, after, limit) {
      const ids = [...rows.keys()].filter((id) => stale(rows.get(id)?.features ?? new Uint8Array())).sort();
      return { images: ids.filter((id) => id > after).slice(0, limit).map((id) => ({ image_id: id, sha256: rows.get(id)?.sha256 ?? '' })), remaining: ids.length };
    },
    async replaceStaleFeatures(id, sha256, _prefix, features) {
      const row = rows.get(id);
      if (!row || row.sha256 !== sha256 || !stale(row.features)) return false;
      row.features = features;
      return true;
    },
  };
}

describe('backfillFeatures', () => {
  it('upgrades every stale row, counts undecodable ones, never overwrites a newer upload, and resumes', async () => {
    const rows = new Map<string, { sha256: string; features: Uint8Array }>();
    for (let i = 0; i < 10; i++) rows.set(`img${i}`, { sha256: `sha${i}`, features: Uint8Array.of(0x49, 0x46, 1) });
    rows.set('broken', { sha256: 'bad', features: Uint8Array.of(0x49, 0x46, 1) });
    const store = fakeStore(rows);
    const upgraded = Uint8Array.of(...PREFIX, 9);
    const uploaded = Uint8Array.of(...PREFIX, 7);
    let calls = 0;
    const seen: BackfillProgress[] = [];
    // First run: stops after 4 images (a close), while img8 is re-uploaded with current features.
    const first = await backfillFeatures({
      store, prefix: PREFIX, batch: 3,
      stopped: () => calls >= 4,
      async extract(sha) {
        calls++;
        if (calls === 2) rows.set('img8', { sha256: 'sha8-new', features: uploaded });
        if (sha === 'bad') throw new Error('cannot decode');
        return upgraded;
      },
      onProgress: (p) => seen.push({ ...p }),
    });
    expect(first.done + first.failed).toBe(4);
    // Second run (the next open) finishes.
    const second = await backfillFeatures({ store, prefix: PREFIX, extract: async (sha) => { if (sha === 'bad') throw new Error('x'); return upgraded; } });
    // img8 was re-uploaded (current features): 9 upgrades; the undecodable one stays stale and is
    // retried (and counted) by every run.
    expect(first.done + second.done).toBe(9);
    expect(first.failed).toBe(1);
    expect(second.failed).toBe(1);
    expect(second.remaining).toBe(1);
    expect(rows.get('img8')?.features).toEqual(uploaded);
    for (let i = 0; i < 10; i++) if (i !== 8) expect(rows.get(`img${i}`)?.features).toEqual(upgraded);
    expect(seen.length).toBeGreaterThan(0);
  });

  it('does nothing on a store without the backfill methods', async () => {
    const p = await backfillFeatures({ store: { fingerprint: async () => '', async *all() {}, changeVersion: async () => 0, changesSince: async () => ({ version: 0, complete: true, more: false, upserted: [], removed: [] }) }, prefix: PREFIX, extract: async () => undefined });
    expect(p).toEqual({ done: 0, failed: 0, remaining: 0 });
  });
});
