/** Part relation endpoints (api-spec.md §4.3, decisions §6), under the /v1/ prefix (spec §9). */
import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../api/routes.js';
import type { RelationService } from '../../core/relations/service.js';

export function registerRelationRoutes(app: FastifyInstance, relations: RelationService): void {
  app.post(ROUTES.relations, async (req) => relations.createRelations(req.principal, req.body));
  app.get<{ Params: { part_id: string } }>(ROUTES.partRelations(':part_id'), async (req) =>
    relations.getRelations(req.principal, req.params.part_id),
  );
  app.get<{ Params: { part_id: string; relation_type: string } }>(ROUTES.partRelationsOfType(':part_id', ':relation_type'), async (req) =>
    relations.getRelations(req.principal, req.params.part_id, req.params.relation_type),
  );
}
