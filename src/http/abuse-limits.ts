/**
 * What one client address may cost the server (docs/api.md, "Connections and timeouts"): failed
 * authentications are limited per address (a token cannot be guessed at thousands a second), and
 * open connections per address are capped, so idle sockets of one address cannot take every
 * connection slot from everyone else. Both tables are bounded (lru-cache): an attacker with many
 * addresses evicts old entries instead of growing memory.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { LRUCache } from 'lru-cache';
import { CatalogError } from '../api/errors.js';

/** Limits per client address. Times in milliseconds. */
export interface AbuseLimits {
  /** Failed authentications (401) an address may have per window (default 20). */
  maxAuthFailures: number;
  /** The window of maxAuthFailures (default 60 s); beyond it, 429 with Retry-After until the window ends. */
  authFailureWindowMs: number;
  /** Open connections one address may hold (default 128); a connection beyond is closed at accept. */
  maxConnectionsPerAddress: number;
  /** Addresses remembered at most (default 10,000); the least recently seen are forgotten first. */
  maxTrackedAddresses: number;
}

/** The defaults of {@link AbuseLimits} (docs/api.md). */
export const DEFAULT_ABUSE_LIMITS: Readonly<AbuseLimits> = Object.freeze({
  maxAuthFailures: 20,
  authFailureWindowMs: 60_000,
  maxConnectionsPerAddress: 128,
  maxTrackedAddresses: 10_000,
});

interface FailureWindow {
  failures: number;
  /** When the window ends (ms since the epoch). */
  endsAt: number;
}

/**
 * Failed authentications per address in fixed windows. `check` before authenticating refuses an
 * address over its limit with 429 `too_many_requests` (Retry-After: the rest of its window); `fail`
 * counts a failure.
 */
export class AuthFailureLimiter {
  private readonly windows: LRUCache<string, FailureWindow>;
  private readonly limits: AbuseLimits;
  private readonly now: () => number;

  constructor(limits: AbuseLimits, now: () => number = Date.now) {
    this.limits = limits;
    this.now = now;
    this.windows = new LRUCache({ max: limits.maxTrackedAddresses, ttl: limits.authFailureWindowMs, ttlAutopurge: false });
  }

  /** Throws the 429 when `address` has used up its failures in the current window. */
  check(address: string): void {
    const window = this.windows.get(address);
    if (window === undefined || window.failures < this.limits.maxAuthFailures) return;
    const seconds = Math.max(1, Math.ceil((window.endsAt - this.now()) / 1000));
    throw new CatalogError('too_many_requests', `too many failed authentications from this address: ${window.failures} in ${Math.round(this.limits.authFailureWindowMs / 1000)} s; retry after ${seconds} s with a valid token`, undefined, { retryAfterSeconds: seconds });
  }

  /** Counts one failed authentication of `address`. */
  fail(address: string): void {
    const window = this.windows.get(address);
    if (window === undefined || window.endsAt <= this.now()) this.windows.set(address, { failures: 1, endsAt: this.now() + this.limits.authFailureWindowMs });
    else window.failures += 1;
  }
}

/**
 * Caps the open connections of each address on `server`: a connection over the cap is destroyed
 * as it is accepted. Counts live in a Map holding only addresses with open connections.
 */
export function capConnectionsPerAddress(server: Server, maxPerAddress: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > maxPerAddress) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
