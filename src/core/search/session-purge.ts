/**
 * When a search service deletes expired sessions (api-decisions §8: sessions expire; reads check
 * expiry themselves, so deleting them is housekeeping): now and then after sessions are written
 * ({@link SessionPurge.afterWrite}, at most once per {@link PURGE_INTERVAL_MICROS}), and every
 * expired session on the service's timer ({@link SessionPurge.all}).
 *
 * An object of its own, not fields of SearchService: V8 treats a field never reassigned as a
 * constant of its object's hidden class, and the first purge of a server's life (a client's, never
 * the warm-up's, which writes nothing) reassigned these, throwing away the optimized code of every
 * SearchService method at once (docs/search.md).
 */
import type { Clock, SessionStore } from '../ports.js';

/** The least time between two purges after writes, in µs. */
export const PURGE_INTERVAL_MICROS = 60 * 1_000_000;
/** Sessions deleted per transaction. */
export const PURGE_BATCH = 1000;

export class SessionPurge {
  /** When the last purge after a write began (µs). */
  private last = Number.NEGATIVE_INFINITY;
  /** The purge of every expired session under way, if any. */
  private running: Promise<void> | undefined;

  constructor(private readonly sessions: SessionStore, private readonly clock: Clock) {}

  /** After sessions were written at `now` (µs): deletes up to PURGE_BATCH expired ones, unless a purge began within PURGE_INTERVAL_MICROS. Rejects with the store's error. */
  async afterWrite(now: number): Promise<void> {
    if (now - this.last < PURGE_INTERVAL_MICROS) return;
    this.last = now;
    await this.sessions.purgeExpired(now, PURGE_BATCH);
  }

  /**
   * Deletes every expired session, PURGE_BATCH per transaction, letting requests in between; one
   * run at a time (a call during a run joins it). Never rejects: a busy file waits for the next run.
   */
  all(): Promise<void> {
    this.running ??= (async () => {
      try {
        const now = this.clock.nowMicros();
        while ((await this.sessions.purgeExpired(now, PURGE_BATCH)) === PURGE_BATCH) {
          await new Promise((resolve) => setImmediate(resolve));
        }
      } catch {
        // Sessions are a cache and reads check expiry themselves: the next run retries.
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** Resolves when no purge of every expired session is under way. */
  async idle(): Promise<void> {
    await this.running;
  }
}
