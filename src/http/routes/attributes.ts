/** Attribute endpoints (spec 4.1). */
import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../api/routes.js';
import type { CatalogService } from '../../core/catalog/service.js';

export function registerAttributeRoutes(app: FastifyInstance, service: CatalogService): void {
  app.post(ROUTES.attributes, async (req) => service.upsertAttributes(req.principal, req.body));
  app.delete(ROUTES.attributes, async (req) => service.deleteAttributes(req.principal, req.body));
  app.post(ROUTES.attributesList, async (req) => service.listAttributes(req.principal, req.body));
  app.post(ROUTES.attributesSelect, async (req) => service.selectAttributes(req.principal, req.body));
}

/** Synonym endpoints (docs/api.md "Synonyms"): the attribute resource's conventions. */
export function registerSynonymRoutes(app: FastifyInstance, service: CatalogService): void {
  app.post(ROUTES.synonyms, async (req) => service.upsertSynonyms(req.principal, req.body));
  app.delete(ROUTES.synonyms, async (req) => service.deleteSynonyms(req.principal, req.body));
  app.post(ROUTES.synonymsList, async (req) => service.listSynonyms(req.principal, req.body));
}
