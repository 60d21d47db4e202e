/**
 * Builds the fastify instance of the HTTP API (api-spec.md §4) over a CatalogService. Never
 * listens: tests use `inject()` or `listen({port: 0})`, src/http/server.ts listens for real.
 * Every request is authenticated (spec §5); every error is problem+json (decisions §1).
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { CatalogError, toProblem, type ErrorCode } from '../api/errors.js';
import type { Principal } from '../api/schemas.js';
import type { Catalog } from '../core/services.js';
import { registerAttributeRoutes, registerSynonymRoutes } from './routes/attributes.js';
import { registerCatalogInfoRoutes } from './routes/catalog-info.js';
import { registerChangeRoutes } from './routes/changes.js';
import { registerMaintenanceRoutes } from './routes/maintenance.js';
import { registerOrganizationRoutes } from './routes/organizations.js';
import { registerPartRoutes } from './routes/parts.js';
import { registerRelationRoutes } from './routes/relations.js';
import { registerImageRoutes } from './routes/images.js';
import { registerSearchRoutes } from './routes/search.js';
import { registerThumbnailRoutes } from './routes/thumbnails.js';
import { registerTokenRoutes } from './routes/tokens.js';
import { registerOperationRoutes } from './routes/operations.js';
import { ServerMetrics } from './metrics.js';
import { isWebAppRequest, registerWebApp } from './web.js';
import { jsonBodyLimitFor, serverLimits, type JsonBodyLimits, type ServerLimits } from './limits.js';
import { ROUTES } from '../api/routes.js';
import { isStoreUnavailable, unavailableError } from '../adapters/unavailable.js';
import { problemClientErrorHandler, rawProblemResponse, redactUrl, secretInQueryError, secretQueryParameter } from './wire-guards.js';
import { AuthFailureLimiter, capConnectionsPerAddress, DEFAULT_ABUSE_LIMITS, type AbuseLimits } from './abuse-limits.js';
import { jsonDepthProblem, multipartBoundaryProblem } from './body-guards.js';
import { requestScope, withRequestScope } from '../core/request-scope.js';
import type { StartupGate } from './startup-gate.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook for every routed request. */
    principal: Principal;
  }
  interface FastifyReply {
    /** The problem+json code of an error answer (sendProblem), for the error metrics. */
    errorCode: string | undefined;
  }
}

/** What the access log is written to: a stream, or any sink taking whole lines (e.g. sonic-boom). */
export interface AccessLogSink {
  write(line: string): unknown;
}

export interface AppOptions {
  catalog: Catalog;
  /** Where the access log goes (one line per request); `null` for none. Default: process.stderr. */
  accessLog?: AccessLogSink | null;
  /** Timeouts, connection cap and JSON body limits per endpoint (src/http/limits.ts; docs/api.md). */
  limits?: Partial<Omit<ServerLimits, 'jsonBody'>> & { jsonBody?: Partial<JsonBodyLimits> };
  /** Failed authentications and connections per client address (src/http/abuse-limits.ts; docs/api.md). */
  abuse?: Partial<AbuseLimits>;
  /** Serve the web app at `/` (src/http/web.ts). Default: true. */
  webApp?: boolean;
  /** Where the built web app is. Default: dist/web (see `defaultWebRoot`). */
  webRoot?: string;
  /**
   * `GET /metrics` (docs/deploy.md "Probes and metrics"): by default it needs a token allowed the
   * `metrics` scope; `{public: true}` serves it without a token (a scraper on a private network).
   */
  metrics?: { public?: boolean };
  /**
   * Every request acts as this principal instead of authenticating a token: `catalog api` in
   * local mode answers as the data directory's owner, through the same routes as a server.
   */
  principal?: Principal;
  /**
   * A server still starting (src/http/startup-gate.ts): probes and the web app's files are
   * answered, API requests wait for it to open. Default: open from the first request.
   */
  startup?: StartupGate;
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

/** Methods a 405's Allow header may list. */
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** The 415 for a body whose Content-Type the route does not take, naming the type(s) it does take. */
function unsupportedContentType(contentType: string | undefined, route: string | undefined): CatalogError {
  const expected = route === ROUTES.images ? 'multipart/form-data' : route === ROUTES.search ? 'application/json or multipart/form-data' : 'application/json';
  const given = contentType ? `Content-Type '${contentType}'` : 'a body without Content-Type';
  return new CatalogError('unsupported_media_type', `${given} is not accepted here: send ${expected}`);
}

/** Sends a CatalogError as problem+json with the headers its status calls for. */
export function sendProblem(reply: FastifyReply, error: CatalogError): FastifyReply {
  const problem = toProblem(error);
  reply.errorCode = error.code;
  if (problem.status === 401) reply.header('www-authenticate', 'Bearer');
  if (problem.status === 503 || problem.status === 429) reply.header('retry-after', String(error.retryAfterSeconds ?? 60));
  return reply.status(problem.status).type('application/problem+json').send(problem);
}

/**
 * A signal that aborts when `response`'s connection closes before the answer is finished (the
 * client left, or a timeout closed it); already aborted when that happened before it was asked for.
 */
function givenUpSignal(response: import('node:http').ServerResponse): AbortSignal {
  if (response.closed) return response.writableFinished ? new AbortController().signal : AbortSignal.abort();
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** Builds the app; call `ready()` or `listen()` on it. */
export function buildApp(options: AppOptions): FastifyInstance {
  const { catalog } = options;
  const { service } = catalog;
  const accessLog = options.accessLog === undefined ? process.stderr : options.accessLog;
  const limits = serverLimits(options.limits);
  const webApp = options.webApp ?? true;
  const app = Fastify({
    logger: false,
    // Per route below (onRoute); this is the limit of anything routed without one.
    bodyLimit: limits.jsonBody.other,
    // Slow clients: a request, headers included, must arrive in time; idle sockets close.
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    http: { headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs), requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: limits.timeoutCheckIntervalMs },
    // Ids may hold any character but "/" and controls; encoded slashes must not split segments.
    routerOptions: { maxParamLength: 1024 },
    return503OnClosing: true,
    // The HTTP parser's own errors (400, 408, 431) as problem+json on the raw socket.
    clientErrorHandler: problemClientErrorHandler,
    // Errors fastify raises before routing (a malformed URL, a bad Content-Type header) as problem+json too.
    frameworkErrors: (error, _request, reply) => {
      const code = codeForFastifyError(error as FastifyError) ?? 'bad_request';
      void sendProblem(reply, new CatalogError(code, error.message));
    },
  });

  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateReply('errorCode', undefined);
  const metrics = new ServerMetrics(catalog.operations);
  const publicMetrics = options.metrics?.public ?? false;
  const fixedPrincipal = options.principal;
  const startup = options.startup;
  app.server.maxConnections = limits.maxConnections;
  const abuse = { ...DEFAULT_ABUSE_LIMITS, ...options.abuse };
  capConnectionsPerAddress(app.server, abuse.maxConnectionsPerAddress);
  const authFailures = new AuthFailureLimiter(abuse);
  // A socket silent for connectionTimeoutMs in the middle of a request's body gets the documented
  // 408 before it is closed (Node would close it without a word); any other silent socket (idle
  // keep-alive, a request being answered) is closed as before.
  app.server.on('timeout', (socket: import('node:net').Socket) => {
    const response = (socket as import('node:net').Socket & { _httpMessage?: { headersSent?: boolean; req?: { complete?: boolean } } })._httpMessage;
    if (socket.writable && response && !response.headersSent && response.req?.complete === false) {
      socket.end(rawProblemResponse(new CatalogError('request_timeout', `the request body stalled: no bytes for ${Math.round(limits.connectionTimeoutMs / 1000)} s; the connection is closed`)));
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    socket.destroy();
  });
  // JSON body limits per endpoint (docs/api.md); routes that set their own (search) keep it.
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= jsonBodyLimitFor(route.method, route.url, limits.jsonBody);
  });
  // Hooks that do not wait take fastify's callback form: an async hook costs a promise and a
  // microtask turn on every request (GET part against a hello-world).
  app.addHook('preParsing', (request, _reply, payload, done) => {
    // A declared body over the route's limit is refused before a byte of it is read, naming the limit.
    const declared = Number(request.headers['content-length'] ?? Number.NaN);
    const limit = request.routeOptions.bodyLimit;
    if (Number.isFinite(declared) && limit !== undefined && declared > limit && !/^multipart\//i.test(request.headers['content-type'] ?? '')) {
      done(new CatalogError('payload_too_large', `the request body is ${declared} bytes, over the limit of ${limit} bytes for ${request.method} ${request.routeOptions.url ?? ''}`));
      return;
    }
    // A multipart boundary longer than RFC 2046 allows is refused before the parser sees it.
    const boundaryProblem = multipartBoundaryProblem(request.headers['content-type']);
    if (boundaryProblem !== undefined) {
      done(new CatalogError('bad_request', boundaryProblem));
      return;
    }
    // No content coding is supported: a compressed body would otherwise reach the JSON parser as bytes.
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      done(new CatalogError('unsupported_media_type', `Content-Encoding '${encoding}' is not supported: send the body uncompressed (identity)`));
      return;
    }
    done(null, payload);
  });
  // An answer sent before the body was read (401, 413, 415 ...) closes the connection: Node would
  // otherwise read and discard the rest of the body to keep the connection, however slowly it comes.
  app.addHook('onSend', (request, reply, payload, done) => {
    const declaresBody = request.headers['content-length'] !== undefined ? request.headers['content-length'] !== '0' : request.headers['transfer-encoding'] !== undefined;
    if (declaresBody && !request.raw.complete) reply.header('connection', 'close');
    // No browser may guess another type than the one sent (an uploaded original served as HTML).
    reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });
  // Bodies are JSON (or multipart where a route registers it): fastify's default text/plain parser
  // would hand a string to JSON endpoints, which must answer 415 naming the type they take.
  app.removeContentTypeParser('text/plain');

  // Each request runs in a scope of its own (core/request-scope.ts): what its token's read learned
  // of the catalog's attributes, organizations and settings serves the rest of it. A callback hook,
  // so that the hooks and the handler after it run inside the scope.
  app.addHook('onRequest', (_request, _reply, done) => {
    withRequestScope(() => done());
  });
  app.addHook('onRequest', async (request) => {
    // A token in the URL is refused before anything else, valid or not: URLs end up in logs.
    const secret = secretQueryParameter(request.url);
    if (secret !== undefined) throw secretInQueryError(secret);
    // The web app's files are public (they hold no data); the page calls the API with a token.
    if (webApp && isWebAppRequest(request.method, request.url, request.headers.accept)) return;
    // Probes need no token: a load balancer or kubelet has none (docs/deploy.md).
    const path = request.routeOptions.url;
    if (path === ROUTES.healthz || path === ROUTES.readyz || (publicMetrics && path === ROUTES.metrics)) return;
    // Once open, no request pays a promise for the gate.
    if (startup?.stage !== undefined) await startup.pass();
    // An address that failed too often is refused before its token is even looked at.
    authFailures.check(request.ip);
    try {
      request.principal = fixedPrincipal ?? await service.authenticate(request.headers.authorization);
    } catch (error) {
      if (error instanceof CatalogError && error.code === 'unauthorized') authFailures.fail(request.ip);
      throw error;
    }
  });
  // Bodies nested deeper than any request of the API are refused before validation: walking them
  // (zod, the structured clone to a worker thread) would overflow the stack.
  app.addHook('preValidation', (request, _reply, done) => {
    const problem = jsonDepthProblem(request.body);
    done(problem === undefined ? undefined : new CatalogError('bad_request', problem));
  });
  // A write whose connection closes before it is answered is given up (core/request-scope.ts): a
  // write still queued for the writer thread is dropped. The signal is made when a write asks for
  // it, so a POST that reads (a search, facet values) pays for none. GET and HEAD change nothing.
  app.addHook('preHandler', (request, reply, done) => {
    const scope = requestScope();
    if (scope && request.method !== 'GET' && request.method !== 'HEAD') {
      let signal: AbortSignal | undefined;
      scope.abortSignal = () => (signal ??= givenUpSignal(reply.raw));
    }
    done();
  });

  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest({
      method: request.method, route: request.routeOptions.url, status: reply.statusCode, seconds: reply.elapsedTime / 1000,
      errorCode: reply.errorCode, photo: /^multipart\//i.test(request.headers['content-type'] ?? ''),
    });
    done();
  });

  if (accessLog) {
    app.addHook('onResponse', (request, reply, done) => {
      const ms = reply.elapsedTime.toFixed(1);
      // Query values are redacted; headers are never logged, so no Authorization either.
      const line = `${new Date().toISOString()} ${request.ip} ${request.principal?.name ?? '-'} "${request.method} ${redactUrl(request.url)}" ${reply.statusCode} ${ms}ms\n`;
      accessLog.write(line);
      done();
    });
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof CatalogError) return sendProblem(reply, error);
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || error.code === 'FST_ERR_CTP_EMPTY_TYPE') {
      return sendProblem(reply, unsupportedContentType(request.headers['content-type'], request.routeOptions.url));
    }
    const code = codeForFastifyError(error);
    if (code) return sendProblem(reply, new CatalogError(code, error.message));
    // A store's server gone away on a path no adapter wrapper maps (a driver error straight from a
    // pool): a 503 the client retries, not a bug.
    if (isStoreUnavailable(error)) return sendProblem(reply, unavailableError('a storage server of the catalog'));
    process.stderr.write(`internal error: ${error.stack ?? String(error)}\n`);
    return sendProblem(reply, new CatalogError('internal', 'internal error: the server logged the details'));
  });

  // Set when the web app is registered (below): a browser's unknown page gets the app's "Page not found".
  let webAppNotFound: ((request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined) | undefined;
  app.setNotFoundHandler((request, reply) => {
    const page = webAppNotFound?.(request, reply);
    if (page) return page;
    const path = request.url.split('?')[0] ?? '';
    // A known path with another method: 405 with the methods it has.
    const allowed = HTTP_METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, new CatalogError('method_not_allowed', `${request.method} is not allowed on ${path}: use ${allowed.join(', ')}`));
    }
    return sendProblem(reply, new CatalogError('not_found', `no route ${request.method} ${path}`));
  });

  registerAttributeRoutes(app, service);
  registerPartRoutes(app, service);
  registerOrganizationRoutes(app, service);
  registerSynonymRoutes(app, service);
  registerMaintenanceRoutes(app, service);
  registerRelationRoutes(app, catalog.relations);
  registerImageRoutes(app, catalog.images);
  registerSearchRoutes(app, catalog.search);
  registerCatalogInfoRoutes(app, catalog);
  registerTokenRoutes(app, service);
  registerOperationRoutes(app, catalog.operations, metrics, publicMetrics, startup);
  registerChangeRoutes(app, catalog.changes);
  registerThumbnailRoutes(app, catalog.images);
  if (webApp) webAppNotFound = registerWebApp(app, options.webRoot);
  return app;
}
