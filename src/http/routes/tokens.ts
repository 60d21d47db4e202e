/**
 * Token management over HTTP (our addition, docs/api.md "Tokens"): a catalogAdmin whose token
 * allows the `tokens` scope lists, creates, rotates and revokes tokens, so a deployment on
 * PostgreSQL needs no shell on a server. The same CatalogService methods as `catalog tokens` in
 * local mode: the same hashing, a secret shown once in the answer and never stored.
 */
import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../api/routes.js';
import type { CatalogService } from '../../core/catalog/service.js';

/** Registers GET/POST /1/auth/tokens, POST /1/auth/tokens/{name}/rotate and DELETE /1/auth/tokens/{name}. */
export function registerTokenRoutes(app: FastifyInstance, service: CatalogService): void {
  app.get(ROUTES.tokens, async (req) => service.listTokens(req.principal));
  app.post(ROUTES.tokens, async (req, reply) => {
    const created = await service.createToken(req.principal, req.body);
    // The secret is in this body only: no cache may keep it.
    return reply.status(201).header('cache-control', 'no-store').send(created);
  });
  app.post<{ Params: { name: string } }>(ROUTES.tokenRotate(':name'), async (req, reply) => {
    const rotated = await service.rotateToken(req.principal, req.params.name, req.body ?? {});
    return reply.header('cache-control', 'no-store').send(rotated);
  });
  app.delete<{ Params: { name: string } }>(ROUTES.token(':name'), async (req, reply) => {
    await service.revokeToken(req.principal, req.params.name);
    return reply.status(204).send();
  });
}
