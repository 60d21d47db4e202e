/** Maintenance mode endpoints (decisions §7). */
import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../api/routes.js';
import type { CatalogService } from '../../core/catalog/service.js';

export function registerMaintenanceRoutes(app: FastifyInstance, service: CatalogService): void {
  app.get(ROUTES.maintenance, async (req) => service.getMaintenance(req.principal));
  app.put(ROUTES.maintenance, async (req) => service.setMaintenance(req.principal, req.body));
}
