/**
 * When a `catalog serve` thread may do work no client asked for (rehearsal searches,
 * core/search/rehearsal.ts): only once the whole server has been idle a while. An idle thread is
 * not enough: on 2 cores a reader rehearsing beside the thread that answers a client takes half
 * the machine from that client.
 */
import { setTimeout as delay } from 'node:timers/promises';

/** The window over which the server must have been idle, in ms. */
export const IDLE_WINDOW_MS = 5;
/** The CPU the whole process (every thread) may have used in that window, as a share of one core. */
export const IDLE_MAX_CPU_SHARE = 0.1;

/** The CPU time of the whole process so far (every thread), in ms. */
export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Resolves once the process (every thread: `cpuMs`, default {@link processCpuMs}) used at most
 * {@link IDLE_MAX_CPU_SHARE} of one core over the last `windowMs` (default {@link IDLE_WINDOW_MS}):
 * a server answering requests, or rehearsing on another thread, keeps it waiting. Its timer does
 * not keep the process alive.
 */
export async function untilIdle(windowMs = IDLE_WINDOW_MS, cpuMs: () => number = processCpuMs): Promise<void> {
  for (;;) {
    const before = cpuMs();
    const began = performance.now();
    await delay(windowMs, undefined, { ref: false });
    if (cpuMs() - before <= IDLE_MAX_CPU_SHARE * (performance.now() - began)) return;
  }
}
