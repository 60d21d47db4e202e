/** The change feed and webhook endpoints (docs/api.md "Changes", "Webhooks"): authenticate, call, serialise. */
import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../api/routes.js';
import type { ChangeService } from '../../core/changes/service.js';
import { queryNumber, queryString } from '../query.js';

export function registerChangeRoutes(app: FastifyInstance, changes: ChangeService): void {
  app.post(ROUTES.changes, async (req) => changes.changes(req.principal, req.body));
  app.post(ROUTES.webhooks, async (req, reply) => {
    const created = await changes.addWebhook(req.principal, req.body);
    return reply.code(201).send(created);
  });
  app.post(ROUTES.webhooksList, async (req) => changes.listWebhooks(req.principal));
  app.get(ROUTES.webhookDeliveries, async (req) => changes.deliveries(req.principal, queryString(req.query, 'webhook_id'), queryNumber(req.query, 'limit')));
  app.delete(ROUTES.webhook(':webhook_id'), async (req, reply) => {
    await changes.removeWebhook(req.principal, (req.params as { webhook_id: string }).webhook_id);
    return reply.code(204).send();
  });
}
