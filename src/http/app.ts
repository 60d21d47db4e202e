/**
 * Builds the fastify instance of the HTTP API (api-spec.md §4) over a CatalogService. Never
 * listens: tests use `inject()` or `listen({port: 0})`, src/http/server.ts listens for real.
 * Every request is authenticated (spec §5); every error is problem+json (decisions §1).
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { CatalogError, toProblem, type ErrorCode } from '../api/errors.js';
import type { Principal } from '../api/schemas.js';
import type { Catalog } from '../core/services.js';
import { registerAttributeRoutes } from './routes/attributes.js';
import { registerMaintenanceRoutes } from './routes/maintenance.js';
import { registerOrganizationRoutes } from './routes/organizations.js';
import { registerPartRoutes } from './routes/parts.js';
import { registerRelationRoutes } from './routes/relations.js';
import { registerImageRoutes } from './routes/images.js';
import { registerSearchRoutes } from './routes/search.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook for every routed request. */
    principal: Principal;
  }
}

export interface AppOptions {
  catalog: Catalog;
  /** Where the access log goes (one line per request); `null` for none. Default: process.stderr. */
  accessLog?: NodeJS.WritableStream | null;
  /** Largest JSON body in bytes (default 64 MiB: 1,000 parts with many values). */
  jsonBodyLimit?: number;
}

/** Fastify's own error codes that are client errors, mapped to ours. */
function codeForFastifyError(error: FastifyError): ErrorCode | undefined {
  const status = error.statusCode ?? 500;
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 404) return 'not_found';
  if (status >= 400 && status < 500) return 'bad_request';
  return undefined;
}

/** Sends a CatalogError as problem+json with the headers its status calls for. */
export function sendProblem(reply: FastifyReply, error: CatalogError): FastifyReply {
  const problem = toProblem(error);
  if (problem.status === 401) reply.header('www-authenticate', 'Bearer');
  if (problem.status === 503) reply.header('retry-after', '60');
  return reply.status(problem.status).type('application/problem+json').send(problem);
}

/** Builds the app; call `ready()` or `listen()` on it. */
export function buildApp(options: AppOptions): FastifyInstance {
  const { catalog } = options;
  const { service } = catalog;
  const accessLog = options.accessLog === undefined ? process.stderr : options.accessLog;
  const app = Fastify({
    logger: false,
    bodyLimit: options.jsonBodyLimit ?? 64 * 1024 * 1024,
    // Ids may hold any character but "/" and controls; encoded slashes must not split segments.
    routerOptions: { maxParamLength: 1024 },
    return503OnClosing: true,
    // Errors fastify raises before routing (a malformed URL, a bad Content-Type header) as problem+json too.
    frameworkErrors: (error, _request, reply) => {
      const code = codeForFastifyError(error as FastifyError) ?? 'bad_request';
      void sendProblem(reply, new CatalogError(code, error.message));
    },
  });

  app.decorateRequest('principal', null as unknown as Principal);

  app.addHook('onRequest', async (request) => {
    request.principal = await service.authenticate(request.headers.authorization);
  });

  if (accessLog) {
    app.addHook('onResponse', async (request, reply) => {
      const ms = reply.elapsedTime.toFixed(1);
      accessLog.write(`${new Date().toISOString()} ${request.ip} ${request.principal?.name ?? '-'} "${request.method} ${request.url}" ${reply.statusCode} ${ms}ms\n`);
    });
  }

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error instanceof CatalogError) return sendProblem(reply, error);
    const code = codeForFastifyError(error);
    if (code) return sendProblem(reply, new CatalogError(code, error.message));
    process.stderr.write(`internal error: ${error.stack ?? String(error)}\n`);
    return sendProblem(reply, new CatalogError('internal', 'internal error: the server logged the details'));
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new CatalogError('not_found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`)),
  );

  registerAttributeRoutes(app, service);
  registerPartRoutes(app, service);
  registerOrganizationRoutes(app, service);
  registerMaintenanceRoutes(app, service);
  registerRelationRoutes(app, catalog.relations);
  registerImageRoutes(app, catalog.images);
  registerSearchRoutes(app, catalog.search);
  return app;
}
