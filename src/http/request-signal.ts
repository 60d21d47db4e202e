/**
 * The abort signal of the HTTP request being handled, for code far below the route (the writer
 * thread's queue, pool/pooled-catalog.ts) that must not do what a request the server has given up
 * on asked for: when the connection closes before the answer was sent (the client left, or a
 * timeout closed it), a write still waiting for the writer thread is dropped instead of committing
 * unseen later, after writes that were answered.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` with `signal` as the current request's signal (for everything `fn` starts). */
export function withRequestSignal<T>(signal: AbortSignal, fn: () => T): T {
  return current.run(signal, fn);
}

/** The signal of the request this code runs for, or undefined outside one (CLI, tests, start-up). */
export function requestSignal(): AbortSignal | undefined {
  return current.getStore();
}
