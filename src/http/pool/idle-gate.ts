/**
 * When a `catalog serve` thread may do work no client asked for (rehearsal searches,
 * core/search/rehearsal.ts): only once its event loop has been idle a while, so that such work
 * runs between bursts of requests, never among them.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';

/** The window over which a thread must have been idle, in ms. */
export const IDLE_WINDOW_MS = 5;
/** The share of that window the event loop may have been busy (handling a request's callbacks, say). */
export const IDLE_MAX_UTILIZATION = 0.1;

/**
 * Resolves once this thread's event loop was busy for at most {@link IDLE_MAX_UTILIZATION} of the
 * last {@link IDLE_WINDOW_MS} (Node's event-loop utilization): a thread serving requests keeps it
 * waiting. Its timer does not keep the process alive.
 */
export async function untilIdle(): Promise<void> {
  for (;;) {
    const before = performance.eventLoopUtilization();
    await delay(IDLE_WINDOW_MS, undefined, { ref: false });
    if (performance.eventLoopUtilization(before).utilization <= IDLE_MAX_UTILIZATION) return;
  }
}
