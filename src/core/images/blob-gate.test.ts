import { describe, expect, it } from 'vitest';
import { BlobGate } from './blob-gate.js';
import type { BlobStore } from '../ports.js';

function fakeStore() {
  const blobs = new Set<string>();
  const store = {
    blobs,
    delete: async (sha: string) => {
      blobs.delete(sha);
    },
  };
  return store as unknown as BlobStore & { blobs: Set<string> };
}

describe('BlobGate', () => {
  it('deletes an unreferenced candidate at once when no put is in flight', async () => {
    const store = fakeStore();
    store.blobs.add('a');
    const gate = new BlobGate(store, async () => false);
    gate.release(['a']);
    await gate.drain();
    expect(store.blobs.has('a')).toBe(false);
  });

  it('waits for puts in flight (one may be deduping onto the blob), then re-checks references', async () => {
    const store = fakeStore();
    store.blobs.add('x');
    const referenced = new Set<string>();
    const gate = new BlobGate(store, async (sha) => referenced.has(sha));
    await gate.beginPut();
    gate.release(['x']);
    await gate.drain();
    expect(store.blobs.has('x')).toBe(true);
    // The put found x already stored: it pins it until its metadata commits.
    gate.endPut('x');
    await gate.drain();
    expect(store.blobs.has('x')).toBe(true);
    referenced.add('x');
    gate.unpin(['x']);
    await gate.drain();
    expect(store.blobs.has('x')).toBe(true);
    expect(gate.pending).toBe(0);
  });

  it('a put waits while a drain deletes', async () => {
    const store = fakeStore();
    store.blobs.add('y');
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const gate = new BlobGate(store, async () => {
      await slow;
      return false;
    });
    gate.release(['y']);
    const draining = gate.drain();
    let started = false;
    const put = gate.beginPut().then(() => (started = true));
    await Promise.resolve();
    expect(started).toBe(false);
    release();
    await draining;
    await put;
    expect(started).toBe(true);
    expect(store.blobs.has('y')).toBe(false);
  });
});
