/**
 * http/pool/idle-gate.ts: work no client asked for (rehearsal searches) waits while the thread's
 * event loop is busy, and goes once it has been idle a while.
 */
import { describe, expect, it } from 'vitest';
import { IDLE_WINDOW_MS, untilIdle } from '../../../src/http/pool/idle-gate.js';

/** Keeps this thread's event loop busy: every millisecond, 4 ms of work. Returns the stop. */
function busyLoop(): () => void {
  const timer = setInterval(() => {
    const until = performance.now() + 4;
    while (performance.now() < until) {
      // busy, as a request's ranking is
    }
  }, 1);
  return () => clearInterval(timer);
}

describe('untilIdle', () => {
  it('waits while the event loop is busy and resolves once it is idle', async () => {
    const stop = busyLoop();
    let resolvedAt: number | undefined;
    const gate = untilIdle().then(() => {
      resolvedAt = performance.now();
    });
    await new Promise((resolve) => setTimeout(resolve, 40 * IDLE_WINDOW_MS));
    expect(resolvedAt).toBeUndefined();
    const stoppedAt = performance.now();
    stop();
    await gate;
    expect(resolvedAt).toBeGreaterThanOrEqual(stoppedAt);
  });

  it('resolves on an idle thread', async () => {
    await expect(untilIdle()).resolves.toBeUndefined();
  });
});
