/**
 * Our additions for the CLI's bulk tools and the web page (docs/api.md): `GET /1/catalog/info` (the
 * catalog's identity, which import checkpoints are bound to), `GET /1/auth/token` (the calling
 * token's roles and permissions) and `POST /v1/parts/relations/list` (every
 * relation of the catalog, paged, in its import shape, for `catalog relations list`).
 */
import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../api/routes.js';
import type { Catalog } from '../../core/services.js';

/** Registers both routes; authentication is the app's hook, as for every route. */
export function registerCatalogInfoRoutes(app: FastifyInstance, catalog: Catalog): void {
  app.get(ROUTES.catalogInfo, async (req) => catalog.service.getCatalogInfo(req.principal));
  app.get(ROUTES.tokenInfo, async (req) => catalog.service.describeToken(req.principal));
  app.post(ROUTES.relationsList, async (req) => catalog.relations.listRelations(req.principal, req.body));
}
