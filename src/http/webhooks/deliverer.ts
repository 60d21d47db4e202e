/**
 * Delivers webhooks from the outbox (docs/api.md "Webhooks"): every `intervalMs` the server claims
 * the due rows (a lease of `leaseMs`, so another server skips them and a killed server's rows
 * come due again), posts each change to its webhook with undici, signed, and records the attempt:
 * a 2xx settles the row; anything else (a status, a refused connection, a timeout) is retried
 * with exponential backoff until `maxAttempts`, then recorded as failed. Delivery is at least
 * once: a receiver deduplicates by the change number (header `Catalog-Change`, also the body's
 * `change`).
 *
 * Signature (like Stripe's): header `Catalog-Signature: t=<unix seconds>,v1=<hex>` where
 * v1 = HMAC-SHA256(secret, `<t>.<raw body>`); a receiver recomputes it over the raw body and
 * refuses a t older than a few minutes (replays).
 */
import { createHmac } from 'node:crypto';
import { request } from 'undici';
import type { ClaimedDelivery, DeliveryAttempt } from '../../core/model.js';
import type { WebhookStore } from '../../core/ports.js';
import { changeView } from '../../core/changes/service.js';

/** Options of {@link WebhookDeliverer}; times in milliseconds. */
export interface DelivererOptions {
  /** How often the outbox is read (default 500). */
  intervalMs?: number;
  /** How long a claimed row is skipped by others (default 60,000: longer than a delivery's timeout). */
  leaseMs?: number;
  /** Timeout of one delivery: connect, headers and body (default 10,000). */
  timeoutMs?: number;
  /** Attempts before a delivery is recorded as failed (default 10: about 17 hours with the defaults). */
  maxAttempts?: number;
  /** Wait after the first failed attempt; doubled after each (default 1,000), at most maxDelayMs (default 6 hours). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Rows claimed per round (default 50). */
  batch?: number;
  /** The clock (tests). */
  now?: () => number;
}

/** The signature header's value for `body` at unix second `t` (docs/api.md "Webhooks"). */
export function signature(secret: string, t: number, body: string): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** The outbox's deliverer of one server. */
export class WebhookDeliverer {
  private readonly store: WebhookStore;
  private readonly options: Required<Omit<DelivererOptions, 'now'>> & { now: () => number };
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(store: WebhookStore, options: DelivererOptions = {}) {
    this.store = store;
    this.options = {
      intervalMs: options.intervalMs ?? 500,
      leaseMs: options.leaseMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxAttempts: options.maxAttempts ?? 10,
      baseDelayMs: options.baseDelayMs ?? 1_000,
      maxDelayMs: options.maxDelayMs ?? 6 * 3600_000,
      batch: options.batch ?? 50,
      now: options.now ?? Date.now,
    };
  }

  /** Starts the rounds (idempotent). */
  start(): void {
    if (this.timer !== undefined || this.stopped) return;
    const round = () => {
      this.running = this.deliverDue()
        .then(() => undefined, () => undefined) // a store that cannot be read now is read again next round
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.timer = setTimeout(round, this.options.intervalMs);
        });
    };
    this.timer = setTimeout(round, 0);
  }

  /** Stops the rounds and waits for the one in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }

  /** One round: claims the due rows and delivers them, one webhook's rows in change order. Returns how many were attempted. */
  async deliverDue(): Promise<number> {
    const now = this.options.now();
    const claimed = await this.store.claimDeliveries(now * 1000, (now + this.options.leaseMs) * 1000, this.options.batch);
    const byWebhook = new Map<string, ClaimedDelivery[]>();
    for (const c of claimed) byWebhook.set(c.webhook.webhook_id, [...(byWebhook.get(c.webhook.webhook_id) ?? []), c]);
    await Promise.all([...byWebhook.values()].map(async (rows) => {
      for (const row of rows) {
        if (this.stopped) return; // left leased: due again when the lease ends
        await this.store.recordDelivery(await this.attempt(row));
      }
    }));
    return claimed.length;
  }

  private async attempt(row: ClaimedDelivery): Promise<DeliveryAttempt> {
    const attempt = row.attempts + 1;
    const base = { webhook_id: row.webhook.webhook_id, change: row.changeNumber, attempt };
    if (row.change === undefined) {
      return { ...base, at: this.options.now() * 1000, status: null, outcome: 'failed', error: 'the change was pruned (retention) before it could be delivered' };
    }
    const body = JSON.stringify({ webhook_id: row.webhook.webhook_id, ...changeView(row.change) });
    const t = Math.floor(this.options.now() / 1000);
    let status: number | null = null;
    let error: string | null = null;
    try {
      const response = await request(row.webhook.url, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'catalog-webhooks',
          'catalog-webhook-id': row.webhook.webhook_id,
          'catalog-change': String(row.changeNumber),
          'catalog-signature': signature(row.webhook.secret, t, body),
        },
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
      status = response.statusCode;
      await response.body.dump();
      if (status >= 200 && status < 300) return { ...base, at: this.options.now() * 1000, status, outcome: 'delivered', error: null };
      error = `HTTP ${status}`;
    } catch (e) {
      error = (e as Error).message || String(e);
    }
    const at = this.options.now();
    if (attempt >= this.options.maxAttempts) return { ...base, at: at * 1000, status, outcome: 'failed', error: `${error} (gave up after ${attempt} attempts)` };
    const delay = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (attempt - 1));
    return { ...base, at: at * 1000, status, outcome: 'retry', error, nextAttemptAt: (at + delay) * 1000 };
  }
}
