/**
 * The change feed and the webhooks' outbox on PostgreSQL (migration 9): triggers number each
 * change under the 'changes' counter row's lock (so in commit order, migrations.ts says why) and
 * add the outbox rows in the writing transaction. Implements ChangeLog and WebhookStore.
 *
 * Claims use `FOR UPDATE SKIP LOCKED` and move the rows' next attempt into the future (a lease):
 * two servers delivering from one catalog never post the same row at the same time, and a
 * server killed mid-delivery leaves its rows due again when the lease ends.
 */
import type { ChangeType } from '../../api/change-schemas.js';
import type { ClaimedDelivery, DeliveryAttempt, StoredChange, StoredWebhook } from '../../core/model.js';
import type { ChangeLog, WebhookStore } from '../../core/ports.js';
import { DELIVERY_LOG_ROWS, webhookOf, type WebhookRow } from '../webhook-rows.js';
import type { PgDatabase } from './database.js';

const CHANGE_COLUMNS = 'change, at, type, op, id, related_id';

/** ChangeLog over the catalog's PostgreSQL schema. */
export class PgChangeLog implements ChangeLog {
  private readonly db: PgDatabase;

  constructor(db: PgDatabase) {
    this.db = db;
  }

  async changesSince(since: number, limit: number, types: readonly ChangeType[] | undefined): Promise<{ changes: StoredChange[]; prunedThrough: number; latest: number }> {
    // One snapshot: a change is visible only once committed, and numbers are given in commit
    // order, so the page never skips a lower number that commits later.
    return this.db.read(async (c) => {
      const state = (await c.query<{ pruned: number; latest: number }>(
        "SELECT (SELECT pruned_through FROM change_log) AS pruned, (SELECT version FROM change_counters WHERE name = 'changes') AS latest",
      )).rows[0];
      const changes = (await c.query<StoredChange>(
        `SELECT ${CHANGE_COLUMNS} FROM changes WHERE change > $1 AND ($2::text[] IS NULL OR type = ANY($2::text[])) ORDER BY change LIMIT $3`,
        [since, types === undefined ? null : [...types], limit],
      )).rows;
      return { changes, prunedThrough: state?.pruned ?? 0, latest: state?.latest ?? 0 };
    });
  }
}

/** WebhookStore over the catalog's PostgreSQL schema. */
export class PgWebhookStore implements WebhookStore {
  private readonly db: PgDatabase;

  constructor(db: PgDatabase) {
    this.db = db;
  }

  async addWebhook(webhook: StoredWebhook): Promise<boolean> {
    const rows = await this.db.query(
      'INSERT INTO webhooks (webhook_id, url, secret, types, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING webhook_id',
      [webhook.webhook_id, webhook.url, webhook.secret, webhook.types === null ? null : JSON.stringify(webhook.types), webhook.createdAt],
    );
    return rows.length === 1;
  }

  async listWebhooks(): Promise<(StoredWebhook & { pending: number })[]> {
    const rows = await this.db.query<WebhookRow & { pending: number }>(
      'SELECT w.*, (SELECT count(*) FROM webhook_outbox o WHERE o.webhook_id = w.webhook_id) AS pending FROM webhooks w ORDER BY w.webhook_id',
    );
    return rows.map((row) => ({ ...webhookOf(row), pending: row.pending }));
  }

  async removeWebhook(webhookId: string): Promise<boolean> {
    return this.db.write(async (c) => {
      await c.query('DELETE FROM webhook_deliveries WHERE webhook_id = $1', [webhookId]);
      return ((await c.query('DELETE FROM webhooks WHERE webhook_id = $1', [webhookId])).rowCount ?? 0) === 1;
    });
  }

  async claimDeliveries(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]> {
    const rows = await this.db.query<WebhookRow & { change_number: number; attempts: number; c_change: number | null; c_at: number; c_type: ChangeType; c_op: 'upsert' | 'delete'; c_id: string; c_related: string | null }>(
      `WITH due AS (
         SELECT webhook_id, change FROM webhook_outbox WHERE next_attempt_at <= $1 ORDER BY change, webhook_id LIMIT $3 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_outbox o SET next_attempt_at = $2 FROM due WHERE o.webhook_id = due.webhook_id AND o.change = due.change
         RETURNING o.webhook_id, o.change, o.attempts
       )
       SELECT w.*, claimed.change AS change_number, claimed.attempts, ch.change AS c_change, ch.at AS c_at, ch.type AS c_type, ch.op AS c_op, ch.id AS c_id, ch.related_id AS c_related
       FROM claimed JOIN webhooks w ON w.webhook_id = claimed.webhook_id LEFT JOIN changes ch ON ch.change = claimed.change
       ORDER BY claimed.change, claimed.webhook_id`,
      [now, leaseUntil, limit],
    );
    return rows.map((r) => ({
      webhook: webhookOf(r),
      change: r.c_change === null ? undefined : { change: r.c_change, at: r.c_at, type: r.c_type, op: r.c_op, id: r.c_id, related_id: r.c_related },
      changeNumber: r.change_number,
      attempts: r.attempts,
    }));
  }

  async recordDelivery(attempt: DeliveryAttempt): Promise<void> {
    await this.db.write(async (c) => {
      const seq = (await c.query<{ seq: number }>(
        'INSERT INTO webhook_deliveries (webhook_id, change, attempt, at, status, outcome, error) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING seq',
        [attempt.webhook_id, attempt.change, attempt.attempt, attempt.at, attempt.status, attempt.outcome, attempt.error],
      )).rows[0]?.seq ?? 0;
      if (seq % 100 === 0) await c.query('DELETE FROM webhook_deliveries WHERE seq <= $1', [seq - DELIVERY_LOG_ROWS]);
      if (attempt.outcome === 'retry') {
        await c.query('UPDATE webhook_outbox SET attempts = $1, next_attempt_at = $2 WHERE webhook_id = $3 AND change = $4', [attempt.attempt, attempt.nextAttemptAt ?? attempt.at, attempt.webhook_id, attempt.change]);
      } else {
        await c.query('DELETE FROM webhook_outbox WHERE webhook_id = $1 AND change = $2', [attempt.webhook_id, attempt.change]);
      }
    });
  }

  async deliveries(webhookId: string | undefined, limit: number): Promise<DeliveryAttempt[]> {
    return this.db.query<DeliveryAttempt>(
      'SELECT webhook_id, change, attempt, at, status, outcome, error FROM webhook_deliveries WHERE $1::text IS NULL OR webhook_id = $1 ORDER BY seq DESC LIMIT $2',
      [webhookId ?? null, limit],
    );
  }
}
