/**
 * http/pool/idle-gate.ts: work no client asked for (rehearsal searches) waits while the server
 * is busy, on any of its threads, and goes once it has been idle a whole window.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { IDLE_MAX_PAUSE_MS, processCpuMs, untilIdle } from '../../../src/http/pool/idle-gate.js';

describe('untilIdle', () => {
  it('waits through every window in which the process used more than a tenth of a core, and goes after the first that it did not', async () => {
    // The process's CPU as the gate reads it: two reads a window; a second a window for three windows (busy), then none.
    let reads = 0;
    let cpu = 0;
    const cpuMs = () => {
      reads++;
      if (reads % 2 === 0 && reads <= 6) cpu += 1000;
      return cpu;
    };
    await untilIdle(5, cpuMs);
    expect(reads).toBe(8);
  });

  it('counts every thread of the process: a busy worker thread moves the figure it reads', async () => {
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker('const { workerData } = require("node:worker_threads"); while (Atomics.load(workerData, 0) === 0) {}', { eval: true, workerData: stop });
    try {
      await new Promise((resolve) => worker.once('online', resolve));
      const before = processCpuMs();
      const began = performance.now();
      // This thread sleeps meanwhile: what moves the figure is the worker.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(processCpuMs() - before).toBeGreaterThan(0.1 * (performance.now() - began));
    } finally {
      Atomics.store(stop, 0, 1);
      await new Promise((resolve) => worker.once('exit', resolve));
    }
  });

  it('looks less and less often while the process stays busy (a server under constant load is not polled every window)', async () => {
    let reads = 0;
    let cpu = 0;
    let busy = true;
    // Busy until the end of the test: a second of CPU between any two reads.
    const cpuMs = () => {
      reads++;
      if (busy) cpu += 1000;
      return cpu;
    };
    const gate = untilIdle(5, cpuMs);
    await new Promise((resolve) => setTimeout(resolve, 600));
    // Polled every 5 ms it would have read ~240 times; backing off (doubling the pause up to IDLE_MAX_PAUSE_MS), ~16.
    expect(reads).toBeLessThan(30);
    expect(reads).toBeGreaterThan(4);
    expect(IDLE_MAX_PAUSE_MS).toBeLessThanOrEqual(1000);
    busy = false;
    await gate;
  });

  it('resolves on an idle process', async () => {
    await expect(untilIdle()).resolves.toBeUndefined();
  });
});
