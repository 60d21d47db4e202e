/**
 * The change feed and the webhooks' outbox on SQLite (migration 12): the triggers of the catalog's
 * tables write `changes` and `webhook_outbox` in every writing transaction; this module reads
 * them and settles deliveries. Implements ChangeLog and WebhookStore.
 */
import type { ChangeType } from '../../api/change-schemas.js';
import type { ClaimedDelivery, DeliveryAttempt, StoredChange, StoredWebhook } from '../../core/model.js';
import type { ChangeLog, WebhookStore } from '../../core/ports.js';
import { DELIVERY_LOG_ROWS, webhookOf, type WebhookRow } from '../webhook-rows.js';
import type { SqliteDatabase } from './database.js';

/** ChangeLog over catalog.db. */
export class SqliteChangeLog implements ChangeLog {
  private readonly db: SqliteDatabase;
  private readonly pageStmt;
  private readonly stateStmt;

  constructor(db: SqliteDatabase) {
    this.db = db;
    this.pageStmt = db.prepare<[number, string | null, string | null, number], StoredChange>(
      // types: a JSON array or NULL (every type), given twice.
      'SELECT change, at, type, op, id, related_id FROM changes WHERE change > ? AND (? IS NULL OR type IN (SELECT value FROM json_each(?))) ORDER BY change LIMIT +?',
    );
    this.stateStmt = db.prepare<[], { pruned: number; latest: number | null }>(
      "SELECT (SELECT pruned_through FROM change_log) AS pruned, (SELECT seq FROM sqlite_sequence WHERE name = 'changes') AS latest",
    );
  }

  async changesSince(since: number, limit: number, types: readonly ChangeType[] | undefined): Promise<{ changes: StoredChange[]; prunedThrough: number; latest: number }> {
    // One read transaction: the page and the counters from the same snapshot.
    return this.db.transaction(() => {
      const state = this.stateStmt.get();
      const typeList = types === undefined ? null : JSON.stringify(types);
      const changes = this.pageStmt.all(since, typeList, typeList, limit);
      return { changes, prunedThrough: state?.pruned ?? 0, latest: state?.latest ?? 0 };
    }).deferred();
  }
}

/** WebhookStore over catalog.db. */
export class SqliteWebhookStore implements WebhookStore {
  private readonly db: SqliteDatabase;
  private readonly stmts;

  constructor(db: SqliteDatabase) {
    this.db = db;
    this.stmts = {
      add: db.prepare<[string, string, string, string | null, number]>('INSERT INTO webhooks (webhook_id, url, secret, types, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING'),
      list: db.prepare<[], WebhookRow & { pending: number }>(
        'SELECT w.*, (SELECT count(*) FROM webhook_outbox o WHERE o.webhook_id = w.webhook_id) AS pending FROM webhooks w ORDER BY w.webhook_id',
      ),
      remove: db.prepare<[string]>('DELETE FROM webhooks WHERE webhook_id = ?'),
      removeLog: db.prepare<[string]>('DELETE FROM webhook_deliveries WHERE webhook_id = ?'),
      due: db.prepare<[number, number], { webhook_id: string; change: number; attempts: number }>(
        'SELECT webhook_id, change, attempts FROM webhook_outbox WHERE next_attempt_at <= ? ORDER BY change, webhook_id LIMIT +?',
      ),
      lease: db.prepare<[number, string, number]>('UPDATE webhook_outbox SET next_attempt_at = ? WHERE webhook_id = ? AND change = ?'),
      webhook: db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE webhook_id = ?'),
      change: db.prepare<[number], StoredChange>('SELECT change, at, type, op, id, related_id FROM changes WHERE change = ?'),
      log: db.prepare<[string, number, number, number, number | null, string, string | null]>(
        'INSERT INTO webhook_deliveries (webhook_id, change, attempt, at, status, outcome, error) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      trimLog: db.prepare<[number]>('DELETE FROM webhook_deliveries WHERE seq <= ?'),
      settle: db.prepare<[string, number]>('DELETE FROM webhook_outbox WHERE webhook_id = ? AND change = ?'),
      retry: db.prepare<[number, number, string, number]>('UPDATE webhook_outbox SET attempts = ?, next_attempt_at = ? WHERE webhook_id = ? AND change = ?'),
      deliveries: db.prepare<[string | null, string | null, number], Omit<DeliveryAttempt, 'nextAttemptAt'>>(
        'SELECT webhook_id, change, attempt, at, status, outcome, error FROM webhook_deliveries WHERE ? IS NULL OR webhook_id = ? ORDER BY seq DESC LIMIT +?',
      ),
    };
  }

  async addWebhook(webhook: StoredWebhook): Promise<boolean> {
    const types = webhook.types === null ? null : JSON.stringify(webhook.types);
    return this.stmts.add.run(webhook.webhook_id, webhook.url, webhook.secret, types, webhook.createdAt).changes === 1;
  }

  async listWebhooks(): Promise<(StoredWebhook & { pending: number })[]> {
    return this.stmts.list.all().map((row) => ({ ...webhookOf(row), pending: row.pending }));
  }

  async removeWebhook(webhookId: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.stmts.removeLog.run(webhookId);
      return this.stmts.remove.run(webhookId).changes === 1;
    }).immediate();
  }

  async claimDeliveries(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]> {
    // A round with nothing due (no webhook, or none behind) reads and takes no write lock.
    if (this.stmts.due.get(now, 1) === undefined) return [];
    return this.db.transaction(() => {
      const webhooks = new Map<string, StoredWebhook | undefined>();
      const claimed: ClaimedDelivery[] = [];
      for (const row of this.stmts.due.all(now, limit)) {
        this.stmts.lease.run(leaseUntil, row.webhook_id, row.change);
        if (!webhooks.has(row.webhook_id)) {
          const found = this.stmts.webhook.get(row.webhook_id);
          webhooks.set(row.webhook_id, found ? webhookOf(found) : undefined);
        }
        const webhook = webhooks.get(row.webhook_id);
        if (webhook) claimed.push({ webhook, change: this.stmts.change.get(row.change), changeNumber: row.change, attempts: row.attempts });
      }
      return claimed;
    }).immediate();
  }

  async recordDelivery(attempt: DeliveryAttempt): Promise<void> {
    this.db.transaction(() => {
      const seq = Number(this.stmts.log.run(attempt.webhook_id, attempt.change, attempt.attempt, attempt.at, attempt.status, attempt.outcome, attempt.error).lastInsertRowid);
      if (seq % 100 === 0) this.stmts.trimLog.run(seq - DELIVERY_LOG_ROWS);
      if (attempt.outcome === 'retry') this.stmts.retry.run(attempt.attempt, attempt.nextAttemptAt ?? attempt.at, attempt.webhook_id, attempt.change);
      else this.stmts.settle.run(attempt.webhook_id, attempt.change);
    }).immediate();
  }

  async deliveries(webhookId: string | undefined, limit: number): Promise<DeliveryAttempt[]> {
    return this.stmts.deliveries.all(webhookId ?? null, webhookId ?? null, limit);
  }
}
