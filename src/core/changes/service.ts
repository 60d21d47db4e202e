/**
 * ChangeService: the change feed (POST /1/catalog/changes) and the management of webhooks
 * (docs/api.md "Changes", "Webhooks"). The stores number every write in its own transaction
 * (ChangeLog); this service pages through those numbers and says when a reader fell behind the
 * retention. Delivery of webhooks is the server's (src/http/webhooks).
 *
 * A change names its item and never carries values, so the feed shows nothing a token may not
 * read: the reader reads the item through the ordinary endpoints, which apply its roles.
 */
import { errors } from '../../api/errors.js';
import {
  ChangesRequestSchema, DEFAULT_CHANGES_LIMIT, WebhookInputSchema, type Change, type ChangesPage, type Webhook, type WebhookCreated,
  type WebhookDelivery,
} from '../../api/change-schemas.js';
import { normalizeId, type Principal } from '../../api/schemas.js';
import type { ServiceContext } from '../context.js';
import type { DeliveryAttempt, StoredChange, StoredWebhook } from '../model.js';
import { assertCatalogAdmin, assertScope } from '../permissions.js';
import type { ChangeLog, WebhookStore } from '../ports.js';
import { formatMicros } from '../time.js';
import { parseBody } from '../validation.js';

/** Attempts listed by `deliveries` at most. */
export const MAX_DELIVERIES_LISTED = 1000;

/** The wire form of a stored change. */
export function changeView(c: StoredChange): Change {
  const view: Change = { change: c.change, at: formatMicros(c.at), type: c.type, op: c.op, id: c.id };
  if (c.related_id !== null) view.related_part_id = c.related_id;
  return view;
}

function webhookView(w: StoredWebhook & { pending: number }): Webhook {
  return { webhook_id: w.webhook_id, url: w.url, ...(w.types !== null ? { types: w.types } : {}), createdAt: formatMicros(w.createdAt), pending: w.pending };
}

function deliveryView(d: DeliveryAttempt): WebhookDelivery {
  return {
    webhook_id: d.webhook_id,
    change: d.change,
    attempt: d.attempt,
    at: formatMicros(d.at),
    ...(d.status !== null ? { status: d.status } : {}),
    outcome: d.outcome,
    ...(d.error !== null ? { error: d.error } : {}),
  };
}

/** The change feed and webhooks of one catalog. */
export class ChangeService {
  private readonly context: ServiceContext;
  private readonly log: ChangeLog;
  /** The webhooks' store; exposed for the server's deliverer (src/http/webhooks), not for other services. */
  readonly webhooks: WebhookStore;

  constructor(context: ServiceContext, log: ChangeLog, webhooks: WebhookStore) {
    this.context = context;
    this.log = log;
    this.webhooks = webhooks;
  }

  /**
   * POST /1/catalog/changes `{since?, limit?, types?}`: the changes numbered above `since`
   * (exclusive; default 0), oldest first, at most `limit` (default 100, at most 1,000). Any valid
   * token may read it (with the `changes` scope when it has scopes).
   *
   * @throws CatalogError bad_request for a malformed body or a `since` beyond the newest change
   *   (another catalog's number); gone (410) when changes after `since` were pruned (retention):
   *   the reader must read the catalog whole and follow the feed from `latest`.
   */
  async changes(principal: Principal, body: unknown): Promise<ChangesPage> {
    assertScope(principal, 'changes');
    const request = parseBody(ChangesRequestSchema, body ?? {}, 'changes request');
    const since = request.since ?? 0;
    const limit = request.limit ?? DEFAULT_CHANGES_LIMIT;
    const { changes, prunedThrough, latest } = await this.log.changesSince(since, limit + 1, request.types);
    if (since < prunedThrough) {
      throw errors.gone(`changes after ${since} are no longer kept: changes up to ${prunedThrough} were pruned (retention, docs/deploy.md); read the catalog whole again and follow the feed from its latest change, ${latest}`);
    }
    if (since > latest) {
      throw errors.badRequest(`invalid changes request: since ${since} is beyond this catalog's latest change, ${latest} (a number from another catalog, or from before a restore?)`, [{ path: 'since', message: `must be at most ${latest}` }]);
    }
    const page = changes.slice(0, limit);
    return { changes: page.map(changeView), next: page.at(-1)?.change ?? since, latest, more: changes.length > limit };
  }

  /**
   * POST /1/catalog/webhooks (catalogAdmin): adds a receiver of every later change (or of
   * `types`); the signing secret is generated unless given, and answered once.
   *
   * @throws CatalogError forbidden unless catalogAdmin; bad_request for bad input or a taken id.
   */
  async addWebhook(principal: Principal, body: unknown): Promise<WebhookCreated> {
    assertCatalogAdmin(principal);
    assertScope(principal, 'webhooks');
    const input = parseBody(WebhookInputSchema, body, 'webhook');
    const stored: StoredWebhook = {
      webhook_id: input.webhook_id,
      url: input.url,
      secret: input.secret ?? `whsec_${this.context.ids.secret()}`,
      types: input.types ?? null,
      createdAt: this.context.clock.nowMicros(),
    };
    if (!(await this.webhooks.addWebhook(stored))) {
      throw errors.badRequest(`invalid webhook: a webhook '${input.webhook_id}' exists already; remove it first or pick another id`, [{ path: 'webhook_id', message: 'is taken' }]);
    }
    return { webhook: webhookView({ ...stored, pending: 0 }), secret: stored.secret };
  }

  /** POST /1/catalog/webhooks/list (catalogAdmin): every webhook, never a secret. */
  async listWebhooks(principal: Principal): Promise<Webhook[]> {
    assertCatalogAdmin(principal);
    assertScope(principal, 'webhooks');
    return (await this.webhooks.listWebhooks()).map(webhookView);
  }

  /** DELETE /1/catalog/webhooks/{webhook_id} (catalogAdmin): its pending deliveries and log go with it; 404 when unknown. */
  async removeWebhook(principal: Principal, webhookId: string): Promise<void> {
    assertCatalogAdmin(principal);
    assertScope(principal, 'webhooks');
    if (!(await this.webhooks.removeWebhook(normalizeId(webhookId)))) throw errors.notFound(`no webhook '${webhookId}'`);
  }

  /** GET /1/catalog/webhooks/deliveries[?webhook_id=&limit=] (catalogAdmin): the newest attempts first (default 100). */
  async deliveries(principal: Principal, webhookId: string | undefined, limit: unknown): Promise<WebhookDelivery[]> {
    assertCatalogAdmin(principal);
    assertScope(principal, 'webhooks');
    const n = limit ?? 100;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_DELIVERIES_LISTED) {
      throw errors.badRequest(`invalid limit: must be an integer from 1 to ${MAX_DELIVERIES_LISTED}`, [{ path: 'limit', message: `must be an integer from 1 to ${MAX_DELIVERIES_LISTED}` }]);
    }
    if (webhookId !== undefined && !(await this.webhooks.listWebhooks()).some((w) => w.webhook_id === webhookId)) throw errors.notFound(`no webhook '${webhookId}'`);
    return (await this.webhooks.deliveries(webhookId, n)).map(deliveryView);
  }
}
