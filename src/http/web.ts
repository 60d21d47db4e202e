/**
 * The web app served by `catalog serve` beside the API: the files Vite built into
 * dist/web (`npm run build`, run by `npm ci`'s prepare). The page itself is public — it holds no
 * data — and everything it shows comes from the API with the user's token, so roles, organizations
 * and visibility are exactly the API's.
 *
 * Paths: `/`, `/search`, `/sync` and `/parts/<part_id>` answer the app's index.html (client-side routes, so a
 * shared link reloads), `/assets/<file>` the hashed bundles. The API keeps every path under `/1/` and
 * `/v1/`; nothing here overlaps it.
 *
 * Cache headers: hashed assets never change under their name (`public, max-age=31536000, immutable`);
 * index.html is revalidated on every load (`no-cache` with an ETag, 304 when unchanged). Files are
 * read once at start-up and kept with their gzip and brotli encodings, chosen by Accept-Encoding.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Content types of the files Vite emits. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * The page may talk only to its own server (no CDN, no third party), and its images are blob: URLs
 * made from authenticated fetches.
 */
const CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' blob: data:; script-src 'self'; style-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

interface WebFile {
  type: string;
  etag: string;
  identity: Buffer;
  gzip?: Buffer;
  br?: Buffer;
  immutable: boolean;
}

/** Where the built app lives: dist/web beside dist/http; from the sources (tests) the built copy. */
export function defaultWebRoot(): string {
  const beside = join(import.meta.dirname, '..', 'web');
  if (existsSync(join(beside, 'index.html'))) return beside;
  return join(import.meta.dirname, '..', '..', 'dist', 'web');
}

/**
 * Whether a request is for the web app (public) rather than the API (authenticated): the app's
 * paths, and any other non-API GET of a browser asking for a page (`accept` has text/html), which
 * the app answers with its own "Page not found" instead of the API's 401.
 */
export function isWebAppRequest(method: string, url: string, accept?: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  // API paths (/1/..., /v1/...) first, without a split or a regular expression: every request asks.
  const digitAt = (i: number) => url.charCodeAt(i) >= 48 && url.charCodeAt(i) <= 57;
  if (digitAt(1) || (url.charCodeAt(1) === 118 /* v */ && digitAt(2))) return false;
  const path = url.split('?')[0] ?? '';
  if (path === '/' || path === '/index.html' || path === '/search' || path === '/sync' || path === '/favicon.svg' || /^\/parts\/[^/]+$/.test(path) || /^\/assets\/[\w.-]+$/.test(path)) return true;
  return accept !== undefined && accept.includes('text/html');
}

function loadFiles(root: string): Map<string, WebFile> {
  const files = new Map<string, WebFile>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      const identity = readFileSync(full);
      const urlPath = `/${relative(root, full).split(sep).join('/')}`;
      const type = TYPES[extname(name)] ?? 'application/octet-stream';
      const file: WebFile = { type, identity, etag: `"${createHash('sha256').update(identity).digest('hex').slice(0, 32)}"`, immutable: urlPath.startsWith('/assets/') };
      // Text compresses; images are compressed already.
      if (/^(text\/|application\/json|image\/svg)/.test(type) && identity.length > 512) {
        file.gzip = gzipSync(identity, { level: 9 });
        file.br = brotliCompressSync(identity, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } });
      }
      files.set(urlPath, file);
    }
  };
  walk(root);
  return files;
}

/** Sends one file with its cache headers, compressed when the client accepts it. */
function sendFile(request: FastifyRequest, reply: FastifyReply, file: WebFile): FastifyReply {
  reply.header('content-type', file.type);
  reply.header('etag', file.etag);
  reply.header('vary', 'Accept-Encoding');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (file.type.startsWith('text/html')) {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    reply.header('referrer-policy', 'no-referrer');
  }
  const inm = request.headers['if-none-match'];
  if (typeof inm === 'string' && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === file.etag)) return reply.code(304).send();
  const accepts = String(request.headers['accept-encoding'] ?? '');
  let body = file.identity;
  if (file.br && /\bbr\b/.test(accepts)) {
    body = file.br;
    reply.header('content-encoding', 'br');
  } else if (file.gzip && /\bgzip\b/.test(accepts)) {
    body = file.gzip;
    reply.header('content-encoding', 'gzip');
  }
  reply.header('content-length', String(body.length));
  return reply.send(body);
}

/**
 * Registers the web app's routes. When the app is not built (no index.html under `root`), its
 * paths answer 404 problem+json saying to run `npm run build`; the API works either way. Returns
 * the fallback for unknown paths: a browser's GET of one (see {@link isWebAppRequest}) gets the app
 * (which shows "Page not found", status 404); anything else is left to the API (`undefined`).
 */
export function registerWebApp(app: FastifyInstance, root: string = defaultWebRoot()): (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined {
  const files = existsSync(join(root, 'index.html')) ? loadFiles(root) : new Map<string, WebFile>();
  const index = files.get('/index.html');
  const notBuilt = (reply: FastifyReply) =>
    reply.code(404).type('application/problem+json').send({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found', detail: `the web app is not built (no ${join(root, 'index.html')}): run npm run build` });
  const page = async (request: FastifyRequest, reply: FastifyReply) => (index ? sendFile(request, reply, index) : notBuilt(reply));
  app.get('/', page);
  app.get('/index.html', page);
  app.get('/search', page);
  app.get('/sync', page);
  app.get('/parts/:part_id', page);
  app.get<{ Params: { file: string } }>('/assets/:file', async (request, reply) => {
    const file = files.get(`/assets/${request.params.file}`);
    if (!file) return reply.code(404).type('application/problem+json').send({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found', detail: `no web asset '${request.params.file}'` });
    return sendFile(request, reply, file);
  });
  app.get('/favicon.svg', async (request, reply) => {
    const file = files.get('/favicon.svg');
    return file ? sendFile(request, reply, file) : notBuilt(reply);
  });
  return (request, reply) => {
    if (!index || !isWebAppRequest(request.method, request.url, request.headers.accept)) return undefined;
    return sendFile(request, reply.code(404), index);
  };
}
