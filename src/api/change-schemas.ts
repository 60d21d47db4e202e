/**
 * The wire contract of the change feed and of webhooks (docs/api.md "Changes", "Webhooks"): zod
 * schemas of the requests and the shapes of the answers. Built on first use (`z.lazy`), as
 * schemas.ts explains.
 */
import { z } from 'zod';
import { IdSchema } from './schemas.js';

/** What a change is about. `setting` is the maintenance setting only. */
export const CHANGE_TYPES = ['attribute', 'part', 'image', 'relation', 'synonym', 'organization', 'setting'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** Changes per page of POST /1/catalog/changes: at most, and when `limit` is not given. */
export const MAX_CHANGES_LIMIT = 1000;
export const DEFAULT_CHANGES_LIMIT = 100;

/**
 * One change: a number, growing in commit order; when it committed; what it is about and whether
 * the item was written (`upsert`) or deleted (`delete`, a tombstone). `id` is the item's id (a
 * relation: its anchor_part_id, with `related_part_id`). A change names its item, never its
 * values: a reader reads the item through the ordinary endpoints, which show what its token may
 * read.
 */
export interface Change {
  change: number;
  /** ISO 8601 UTC with microseconds, as every timestamp of the API. */
  at: string;
  type: ChangeType;
  op: 'upsert' | 'delete';
  id: string;
  related_part_id?: string;
}

/** POST /1/catalog/changes: `{since?, limit?, types?}`; `since` is exclusive (0: from the first kept change). */
export const ChangesRequestSchema = z.lazy(() => z.strictObject({
  since: z.number().int('must be an integer').min(0, 'must be at least 0').optional(),
  limit: z.number().int('must be an integer').min(1, 'must be at least 1').max(MAX_CHANGES_LIMIT, `must be at most ${MAX_CHANGES_LIMIT}`).optional(),
  types: z.array(z.enum(CHANGE_TYPES, { error: `must be one of: ${CHANGE_TYPES.join(', ')}` })).min(1, 'must name at least one type').optional(),
}));
export type ChangesRequest = z.infer<typeof ChangesRequestSchema>;

/**
 * A page of changes: `next` is the `since` of the next page (the last change read, or `since`
 * again when none came), `latest` the newest change number of the catalog, `more` whether
 * changes after `next` exist already.
 */
export interface ChangesPage {
  changes: Change[];
  next: number;
  latest: number;
  more: boolean;
}

/** POST /1/catalog/webhooks: a receiver of every change (or of `types`), signed with `secret`. */
export const WebhookInputSchema = z.lazy(() => z.strictObject({
  webhook_id: IdSchema,
  url: z.string().url('must be an http:// or https:// URL').refine((u) => /^https?:\/\//i.test(u), 'must be an http:// or https:// URL').pipe(z.string().max(2048, 'must be at most 2,048 characters')),
  secret: z.string().min(16, 'must be at least 16 characters').max(256, 'must be at most 256 characters').optional(),
  types: z.array(z.enum(CHANGE_TYPES, { error: `must be one of: ${CHANGE_TYPES.join(', ')}` })).min(1, 'must name at least one type').optional(),
}));
export type WebhookInput = z.infer<typeof WebhookInputSchema>;

/** A webhook as listed (never its secret). */
export interface Webhook {
  webhook_id: string;
  url: string;
  /** The change types it receives; absent: every type. */
  types?: ChangeType[];
  createdAt: string;
  /** Deliveries waiting (or retrying). */
  pending: number;
}

/** The answer of creating a webhook: its description and the signing secret, shown once. */
export interface WebhookCreated {
  webhook: Webhook;
  secret: string;
}

/** One delivery attempt of the delivery log (newest first). */
export interface WebhookDelivery {
  webhook_id: string;
  change: number;
  attempt: number;
  at: string;
  /** The receiver's HTTP status; absent when none came (refused, timed out). */
  status?: number;
  outcome: 'delivered' | 'retry' | 'failed';
  error?: string;
}
