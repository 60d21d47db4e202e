/**
 * Retry policy shared by every HTTP client path (design/cli.md: retry 429/502/503/504 with backoff
 * honouring Retry-After, a bounded number of times; never a 4xx; maintenance is reported at once).
 */

/** Statuses worth retrying (a maintenance 503 is told apart by its detail). */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Connection-level failures worth retrying. */
export const RETRY_ERRORS: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED']);

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Seconds or an HTTP date in Retry-After, as milliseconds (capped at 30 s); undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 30_000) : undefined;
}
