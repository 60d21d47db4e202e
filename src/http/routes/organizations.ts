/** Organization endpoints (decisions §5). */
import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../api/routes.js';
import type { CatalogService } from '../../core/catalog/service.js';

export function registerOrganizationRoutes(app: FastifyInstance, service: CatalogService): void {
  app.post(ROUTES.organizations, async (req) => service.upsertOrganizations(req.principal, req.body));
  app.post(ROUTES.organizationsList, async (req) => service.listOrganizations(req.principal, req.body));
}
