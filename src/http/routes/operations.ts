/**
 * Probes and metrics (our addition; docs/deploy.md "Probes and metrics"):
 * - `GET /healthz`: liveness, no token: 200 `{"status":"ok"}` while the process answers at all.
 * - `GET /readyz`: readiness, no token: 200 `{"status":"ready", checks}` when the database and the
 *   blob store answer within 2 s each, else 503 `{"status":"unavailable", checks}` (with
 *   Retry-After) naming what failed; 503 `{"status":"starting", "stage"}` while the server is still
 *   loading (startup-gate.ts). Maintenance mode does not make a server unready: it still serves reads.
 * - `GET /metrics`: Prometheus text; a token allowed the `metrics` scope unless the server makes
 *   them public.
 */
import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../api/routes.js';
import { assertScope } from '../../core/permissions.js';
import type { CatalogOperations } from '../../core/services.js';
import type { ServerMetrics } from '../metrics.js';
import type { StartupGate } from '../startup-gate.js';

/** Registers the three routes; `publicMetrics` serves /metrics without a token; `startup` makes /readyz say `starting` until it opens. */
export function registerOperationRoutes(app: FastifyInstance, operations: CatalogOperations, metrics: ServerMetrics, publicMetrics: boolean, startup?: StartupGate): void {
  app.get(ROUTES.healthz, async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get(ROUTES.readyz, async (_req, reply) => {
    const stage = startup?.stage;
    if (stage !== undefined) return reply.status(503).header('cache-control', 'no-store').header('retry-after', '2').send({ status: 'starting', stage });
    const { ready, checks } = await operations.readiness();
    reply.header('cache-control', 'no-store');
    if (!ready) reply.status(503).header('retry-after', '5');
    return reply.send({ status: ready ? 'ready' : 'unavailable', checks });
  });
  app.get(ROUTES.metrics, async (req, reply) => {
    if (!publicMetrics) assertScope(req.principal, 'metrics');
    const { contentType, body } = await metrics.render();
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  });
}
