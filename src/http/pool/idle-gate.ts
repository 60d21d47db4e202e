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

/**
 * Resolves once the process (every thread: its CPU time, `process.cpuUsage`) used at most
 * {@link IDLE_MAX_CPU_SHARE} of one core over the last {@link IDLE_WINDOW_MS}: a server answering
 * requests, or rehearsing on another thread, keeps it waiting. Its timer does not keep the process
 * alive.
 */
export async function untilIdle(): Promise<void> {
  for (;;) {
    const before = process.cpuUsage();
    const began = performance.now();
    await delay(IDLE_WINDOW_MS, undefined, { ref: false });
    const used = process.cpuUsage(before);
    if ((used.user + used.system) / 1000 <= IDLE_MAX_CPU_SHARE * (performance.now() - began)) return;
  }
}
