/**
 * http/pool/idle-gate.ts: work no client asked for (rehearsal searches) waits while the server
 * is busy, on any of its threads, and goes once it has been idle a while.
 */
import { describe, expect, it } from 'vitest';
import { IDLE_WINDOW_MS, untilIdle } from '../../../src/http/pool/idle-gate.js';

/** Keeps this thread busy: every millisecond, 4 ms of work. Returns the stop. */
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
  it('waits while the process is busy and resolves once it is idle', async () => {
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

  it('waits while another thread of the process is busy', async () => {
    const { Worker } = await import('node:worker_threads');
    const worker = new Worker('const end = Date.now() + 400; while (Date.now() < end) {}', { eval: true });
    await new Promise((resolve) => worker.once('online', resolve));
    let resolved = false;
    const gate = untilIdle().then(() => {
      resolved = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(resolved).toBe(false);
    await new Promise((resolve) => worker.once('exit', resolve));
    await gate;
    expect(resolved).toBe(true);
  });

  it('resolves on an idle process', async () => {
    await expect(untilIdle()).resolves.toBeUndefined();
  });
});
