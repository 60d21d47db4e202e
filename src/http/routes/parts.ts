/** Part endpoints (decisions §5). */
import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../api/routes.js';
import type { CatalogService } from '../../core/catalog/service.js';
import { queryString } from '../query.js';

export function registerPartRoutes(app: FastifyInstance, service: CatalogService): void {
  app.post(ROUTES.parts, async (req) => service.upsertParts(req.principal, req.body));
  app.delete(ROUTES.parts, async (req) => service.deleteParts(req.principal, req.body));
  app.post(ROUTES.partsList, async (req) => service.listParts(req.principal, req.body));
  app.post(ROUTES.partsSelect, async (req) => service.selectParts(req.principal, req.body));
  app.get<{ Params: { part_id: string } }>(ROUTES.part(':part_id'), async (req) =>
    service.getPart(req.principal, req.params.part_id, queryString(req.query, 'organization')),
  );
}
