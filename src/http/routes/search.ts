/**
 * Search endpoints (spec 4.4; decisions §8): POST /1/find/search and
 * GET /1/find/search/state/{sessionId}.
 *
 * POST takes JSON, or multipart/form-data with a part `input` (the JSON request) and a part
 * `image` (the query image). Both shapes end in the same SearchService.search(principal, input,
 * image), so image search plugs in at the service without touching this route. The whole body is
 * at most MAX_SEARCH_BODY_BYTES (5.5 MiB), else 413.
 */
import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CatalogError, errors } from '../../api/errors.js';
import { ROUTES } from '../../api/routes.js';
import { MAX_SEARCH_BODY_BYTES } from '../../api/schemas.js';
import type { SearchImage, SearchService } from '../../core/search/service.js';
import { queryNumber, queryString } from '../query.js';

export interface SearchRouteOptions {
  /** Largest search request body in bytes (default 5.5 MiB). */
  maxBodyBytes?: number;
}

async function readAll(stream: Readable, max: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw errors.tooLarge(`${what} is larger than the search request limit of ${max} bytes`);
    chunks.push(chunk);
  }
  if ((stream as Readable & { truncated?: boolean }).truncated) throw errors.tooLarge(`${what} is larger than the search request limit of ${max} bytes`);
  return Buffer.concat(chunks);
}

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw errors.badRequest(`the part 'input' is not valid JSON: ${(error as Error).message}`);
  }
}

/** Reads a multipart search request: `input` (JSON, as a field or a file part) and an optional `image`. */
async function readMultipartSearch(req: FastifyRequest, max: number): Promise<{ input: unknown; image: SearchImage | undefined }> {
  let input: unknown;
  let image: SearchImage | undefined;
  let seenInput = false;
  try {
    for await (const part of req.parts()) {
      if (part.fieldname === 'input' && !seenInput) {
        seenInput = true;
        if (part.type === 'file') input = parseInput((await readAll(part.file, max, "the part 'input'")).toString('utf8'));
        // @fastify/multipart already parses a field sent as application/json.
        else input = typeof part.value === 'string' ? parseInput(part.value) : part.value;
      } else if (part.fieldname === 'image' && part.type === 'file' && image === undefined) {
        image = { bytes: await readAll(part.file, max, "the part 'image'"), contentType: part.mimetype };
      } else {
        if (part.type === 'file') part.file.resume();
        throw errors.badRequest(`unexpected multipart part '${part.fieldname}': a search has one part 'input' (JSON) and at most one part 'image'`);
      }
    }
  } catch (error) {
    if (error instanceof CatalogError) throw error;
    const e = error as { statusCode?: number; message?: string };
    if (e.statusCode === 413) throw errors.tooLarge(`a search request is at most ${max} bytes`);
    throw errors.badRequest(`malformed multipart body: ${e.message ?? String(error)}`);
  }
  if (!seenInput) throw errors.badRequest("a multipart search needs a part 'input' with the JSON search request");
  return { input, image };
}

/** Registers the search routes; the multipart parser only in their own scope. */
export function registerSearchRoutes(app: FastifyInstance, search: SearchService, options: SearchRouteOptions = {}): void {
  const max = options.maxBodyBytes ?? MAX_SEARCH_BODY_BYTES;
  void app.register(async (scope) => {
    if (!scope.hasContentTypeParser('multipart/form-data')) {
      await scope.register(multipart, { limits: { fieldSize: max, fileSize: max, files: 2, fields: 2, parts: 4 } });
    }
    scope.post(ROUTES.search, { bodyLimit: max }, async (req) => {
      if (!req.isMultipart()) return search.search(req.principal, req.body);
      const declared = Number(req.headers['content-length'] ?? Number.NaN);
      if (declared > max) throw errors.tooLarge(`a search request is at most ${max} bytes, this one declares ${declared}`);
      const { input, image } = await readMultipartSearch(req, max);
      return search.search(req.principal, input, image);
    });
  });
  app.post(ROUTES.facetValues, async (req) => search.facetValues(req.principal, req.body));
  // Ranking settings (our addition, docs/api.md "Ranking settings"): search's own settings.
  app.get(ROUTES.ranking, async (req) => search.getRanking(req.principal));
  app.put(ROUTES.ranking, async (req) => search.setRanking(req.principal, req.body));
  app.get<{ Params: { sessionId: string } }>(ROUTES.searchState(':sessionId'), async (req) =>
    search.searchState(req.principal, req.params.sessionId, {
      // Ranges, types and defaults are checked by the core alone (one validation for both modes); it
      // takes these values as unknown at run time, so a non-numeric string reaches it as given.
      skip: queryNumber(req.query, 'skip') as number | undefined,
      limit: queryNumber(req.query, 'limit') as number | undefined,
      projection: queryString(req.query, 'projection'),
    }),
  );
}
