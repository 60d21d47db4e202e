/**
 * What both database stores share of the webhooks' tables (docs/api.md "Webhooks"): the row of a
 * webhook as both read it, and how many delivery attempts the log keeps.
 */
import type { ChangeType } from '../api/change-schemas.js';
import type { StoredWebhook } from '../core/model.js';

/** Rows of the delivery log kept (the newest). */
export const DELIVERY_LOG_ROWS = 10_000;

/** A `webhooks` row as both stores select it. */
export interface WebhookRow {
  webhook_id: string;
  url: string;
  secret: string;
  /** JSON array of change types; null: every type. */
  types: string | null;
  /** Microseconds since the epoch. */
  created_at: number;
}

/** The stored webhook of a `webhooks` row. */
export function webhookOf(row: WebhookRow): StoredWebhook {
  return { webhook_id: row.webhook_id, url: row.url, secret: row.secret, types: row.types === null ? null : (JSON.parse(row.types) as ChangeType[]), createdAt: row.created_at };
}
