/**
 * The gap between `catalog serve` accepting connections and being able to answer: the crash sweep
 * and the reader threads loading the search index take seconds on a large catalog. The server
 * listens first, so a load balancer or a script sees it alive (`GET /healthz` 200, `GET /readyz`
 * 503 `starting`) at once; an API request that arrives meanwhile waits for the start-up, up to a
 * bound, and then gets a 503 with Retry-After naming what the server is doing (docs/api.md
 * "Start-up").
 */
import { CatalogError } from '../api/errors.js';

/** How long an API request waits for a starting server before its 503 (ms). */
export const STARTUP_HOLD_MS = 15_000;

/** What a starting server is doing, and a promise that settles when it can answer. */
export class StartupGate {
  private current: string | undefined = 'starting';
  private readonly startedAt = Date.now();
  private opened = false;
  private failure: string | undefined;
  private readonly waiters = new Set<() => void>();

  /** `holdMs`: how long an API request waits for the start-up before its 503 (default {@link STARTUP_HOLD_MS}). */
  constructor(private readonly holdMs: number = STARTUP_HOLD_MS) {}

  /** The stage in progress (`loading the search index on 2 reader threads`), or undefined once open. */
  get stage(): string | undefined {
    return this.opened ? undefined : this.current;
  }

  /** Names the stage in progress; a later stage replaces it. */
  enter(stage: string): void {
    this.current = stage;
  }

  /** The server can answer: every waiting request goes on. */
  open(): void {
    this.opened = true;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /** The start-up failed (the server is closing): every waiting request gets a 503 now. */
  fail(reason: string): void {
    this.failure = reason;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /**
   * Resolves at once on an open gate; otherwise when it opens, or throws a CatalogError
   * (`unavailable`, 503, Retry-After 2 s) after the hold time without it opening, or at once when
   * the start-up failed.
   */
  async pass(): Promise<void> {
    const holdMs = this.holdMs;
    if (this.opened) return;
    if (this.failure !== undefined) throw new CatalogError('unavailable', `the server failed to start: ${this.failure}`);
    const opened = await new Promise<boolean>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(false);
      }, holdMs);
      this.waiters.add(wake);
    });
    if (this.failure !== undefined) throw new CatalogError('unavailable', `the server failed to start: ${this.failure}`);
    if (!opened) {
      const seconds = Math.round((Date.now() - this.startedAt) / 1000);
      throw new CatalogError('unavailable', `the server is starting (${this.current ?? 'starting'}, ${seconds} s so far) and cannot answer yet; retry in a moment`, undefined, { retryAfterSeconds: 2 });
    }
  }
}
