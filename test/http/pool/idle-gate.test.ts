/**
 * http/pool/idle-gate.ts: work no client asked for (rehearsal searches) waits while the server
 * is busy, on any of its threads, and goes once it has been idle a whole window.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { processCpuMs, untilIdle } from '../../../src/http/pool/idle-gate.js';

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

  it('resolves on an idle process', async () => {
    await expect(untilIdle()).resolves.toBeUndefined();
  });
});
