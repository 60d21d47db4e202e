/**
 * A write whose request is given up while it runs (its connection closed, its time ran out) must
 * not commit afterwards (docs/api.md, "Connections and timeouts"): it could overwrite, unseen, a
 * later write that was answered. `catalog serve` runs each write inside {@link whileWanted}; a
 * store whose transaction commits on its own (PostgreSQL) asks {@link stillWanted} just before its
 * COMMIT and rolls back with {@link WriteGivenUpError} when the request is gone. (SQLite's group
 * commit checks the same question itself, before its one COMMIT.)
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const wantedNow = new AsyncLocalStorage<() => boolean>();

/** Runs `write` so that the transactions it opens commit only while `wanted()` holds. */
export function whileWanted<T>(wanted: () => boolean, write: () => Promise<T>): Promise<T> {
  return wantedNow.run(wanted, write);
}

/** Whether the write running now may still commit: true outside {@link whileWanted} (a CLI, a test). */
export function stillWanted(): boolean {
  return wantedNow.getStore()?.() ?? true;
}

/** Thrown by a store that rolled a transaction back because its request was given up. */
export class WriteGivenUpError extends Error {
  constructor() {
    super('the request was given up before its write committed; the write was rolled back');
    this.name = 'WriteGivenUpError';
  }
}
