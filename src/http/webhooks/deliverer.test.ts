/**
 * WebhookDeliverer over an in-memory outbox and a loopback receiver: the signature a receiver
 * recomputes, a failed attempt retried after 1 s, 2 s ..., a 2xx settling the row, giving up after
 * maxAttempts, and a pruned change logged as failed without a request.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClaimedDelivery, DeliveryAttempt, StoredChange } from '../../core/model.js';
import type { WebhookStore } from '../../core/ports.js';
import { signature, WebhookDeliverer } from './deliverer.js';

const change: StoredChange = { change: 7, at: 1_700_000_000_000_000, type: 'part', op: 'upsert', id: 'p1', related_id: null };

/** An outbox of one row whose claims and records are kept for the test. */
function outbox(url: string, row: Partial<ClaimedDelivery> = {}) {
  const records: DeliveryAttempt[] = [];
  let due = true;
  const store: WebhookStore = {
    addWebhook: async () => true,
    listWebhooks: async () => [],
    removeWebhook: async () => true,
    claimDeliveries: async () => {
      if (!due) return [];
      due = false;
      return [{ webhook: { webhook_id: 'hook', url, secret: 'whsec_abcdefghijklmnop', types: null, createdAt: 0 }, change, changeNumber: 7, attempts: records.length, ...row }];
    },
    recordDelivery: async (attempt) => {
      records.push(attempt);
      due = attempt.outcome === 'retry';
    },
    deliveries: async () => records,
  };
  return { store, records };
}

describe('WebhookDeliverer', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  });

  async function receiver(statuses: number[]): Promise<{ url: string; bodies: { body: string; signature: string; change: string }[] }> {
    const bodies: { body: string; signature: string; change: string }[] = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        bodies.push({ body, signature: String(req.headers['catalog-signature']), change: String(req.headers['catalog-change']) });
        res.writeHead(statuses.shift() ?? 200).end();
      });
    });
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}/hook`, bodies };
  }

  it('signs each body, retries with exponential backoff and settles on a 2xx', async () => {
    const { url, bodies } = await receiver([500, 503, 204]);
    const { store, records } = outbox(url);
    let now = 1_000_000;
    const deliverer = new WebhookDeliverer(store, { now: () => now, baseDelayMs: 1000 });
    for (let i = 0; i < 3; i++) {
      await deliverer.deliverDue();
      now += 10_000;
    }
    expect(records.map((r) => [r.attempt, r.status, r.outcome, r.error, r.nextAttemptAt])).toEqual([
      [1, 500, 'retry', 'HTTP 500', (1_000_000 + 1000) * 1000],
      [2, 503, 'retry', 'HTTP 503', (1_010_000 + 2000) * 1000],
      [3, 204, 'delivered', null, undefined],
    ]);
    const first = bodies[0]!;
    expect(JSON.parse(first.body)).toEqual({ webhook_id: 'hook', change: 7, at: '2023-11-14T22:13:20.000000Z', type: 'part', op: 'upsert', id: 'p1' });
    expect(first.change).toBe('7');
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(first.signature) ?? [];
    expect(t).toBe('1000');
    expect(v1).toBe(createHmac('sha256', 'whsec_abcdefghijklmnop').update(`${t}.${first.body}`).digest('hex'));
    expect(first.signature).toBe(signature('whsec_abcdefghijklmnop', 1000, first.body));
  });

  it('gives up after maxAttempts, and logs a pruned change as failed without posting it', async () => {
    const { url, bodies } = await receiver([500, 500]);
    const failing = outbox(url);
    const deliverer = new WebhookDeliverer(failing.store, { maxAttempts: 2, now: () => 5_000 });
    await deliverer.deliverDue();
    await deliverer.deliverDue();
    expect(failing.records.map((r) => [r.attempt, r.outcome, r.error])).toEqual([[1, 'retry', 'HTTP 500'], [2, 'failed', 'HTTP 500 (gave up after 2 attempts)']]);
    const pruned = outbox(url, { change: undefined });
    await new WebhookDeliverer(pruned.store, { now: () => 5_000 }).deliverDue();
    expect(pruned.records.map((r) => [r.outcome, r.error])).toEqual([['failed', 'the change was pruned (retention) before it could be delivered']]);
    expect(bodies.length).toBe(2);
  });
});
