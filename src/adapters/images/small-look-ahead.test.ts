import { describe, expect, it } from 'vitest';
import { emptyLocalFeatures, type LocalFeatures } from '../../core/search/photo/local-features.js';
import { SmallLookAhead } from './small-look-ahead.js';

/** A describe function whose extractions the test finishes by hand, in any order. */
function manual(): { describe: (image: Uint8Array) => Promise<LocalFeatures>; started: number[]; finish(image: number, fail?: boolean): Promise<void> } {
  const pending = new Map<number, { resolve(f: LocalFeatures): void; reject(e: Error): void }>();
  const started: number[] = [];
  return {
    started,
    describe: (image) =>
      new Promise<LocalFeatures>((resolve, reject) => {
        started.push(image[0] ?? -1);
        pending.set(image[0] ?? -1, { resolve, reject });
      }),
    async finish(image, fail = false) {
      const p = pending.get(image);
      if (!p) throw new Error(`look ${image} is not running`);
      if (fail) p.reject(new Error('cannot decode'));
      else p.resolve({ ...emptyLocalFeatures(image, 1) });
      // Let the settle, the finally and the next start run.
      for (let i = 0; i < 5; i++) await Promise.resolve();
    },
  };
}

describe('small looks started ahead', () => {
  it('runs one at a time; a look asked for meanwhile starts when the running one ends', async () => {
    const m = manual();
    const ahead = new SmallLookAhead(m.describe);
    const a = ahead.start(Uint8Array.of(1));
    const b = ahead.start(Uint8Array.of(2));
    expect(m.started).toEqual([1]);
    await m.finish(1);
    expect((await a.features)?.width).toBe(1);
    expect(m.started).toEqual([1, 2]);
    await m.finish(2);
    expect((await b.features)?.width).toBe(2);
    expect(ahead.started).toBe(2);
  });

  it('keeps one waiting: a newer look takes an older waiting one\'s place, which resolves to undefined', async () => {
    const m = manual();
    const ahead = new SmallLookAhead(m.describe);
    ahead.start(Uint8Array.of(1));
    const older = ahead.start(Uint8Array.of(2));
    const newer = ahead.start(Uint8Array.of(3));
    expect(await older.features).toBeUndefined();
    await m.finish(1);
    expect(m.started).toEqual([1, 3]);
    await m.finish(3);
    expect((await newer.features)?.width).toBe(3);
  });

  it('drops a waiting look whose photo was answered, and lets a running one finish', async () => {
    const m = manual();
    const ahead = new SmallLookAhead(m.describe);
    const running = ahead.start(Uint8Array.of(1));
    const waiting = ahead.start(Uint8Array.of(2));
    waiting.drop();
    running.drop();
    expect(await waiting.features).toBeUndefined();
    await m.finish(1);
    expect((await running.features)?.width).toBe(1);
    expect(m.started).toEqual([1]);
    // Nothing waits now: the next look starts at once.
    ahead.start(Uint8Array.of(4));
    expect(m.started).toEqual([1, 4]);
  });

  it('a failed extraction resolves to undefined and the next look still starts', async () => {
    const m = manual();
    const ahead = new SmallLookAhead(m.describe);
    const a = ahead.start(Uint8Array.of(1));
    const b = ahead.start(Uint8Array.of(2));
    await m.finish(1, true);
    expect(await a.features).toBeUndefined();
    expect(m.started).toEqual([1, 2]);
    await m.finish(2);
    expect((await b.features)?.width).toBe(2);
  });
});
