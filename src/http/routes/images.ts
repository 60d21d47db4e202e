/**
 * Part image endpoints (api-spec.md §4.2; api-decisions.md §4, §9) and GET
 * /1/catalog/parts/{part_id}/display-images (decisions §4, our addition).
 *
 * The upload route streams: @fastify/multipart (busboy) hands over one part at a time and each
 * `files` part goes straight into the BlobStore through the core's UploadSession, so a 200 MB
 * request never sits in memory. Order of checks: 401 (app hook) → 403 → 503 → 415/413/400 → items.
 */
import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CatalogError, errors } from '../../api/errors.js';
import { ROUTES } from '../../api/routes.js';
import type { UploadMode } from '../../api/image-schemas.js';
import type { ImageService } from '../../core/images/service.js';
import { queryString } from '../query.js';

/** Busboy/multipart parse failures that are the client's fault, by message prefix. */
const MALFORMED = [/^Multipart: /, /^Unexpected end of/, /terminated early/, /^Malformed/, /^Boundary not found/];

/**
 * Iterates a busboy file stream; stopping early (an item error, an I/O error) does NOT destroy it but
 * reads the rest away, so the parser reaches the next part and the other items still count.
 */
async function* drainOnReturn(stream: Readable, onChunk: () => void): AsyncGenerator<Uint8Array, void, undefined> {
  let finished = false;
  try {
    for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>) {
      onChunk();
      yield chunk;
    }
    finished = true;
  } finally {
    if (!finished) stream.resume();
  }
}

/** Reads a stream into one buffer of at most `max` bytes; 413 beyond. */
async function readBounded(stream: Readable, max: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      stream.resume();
      throw errors.tooLarge(`${what} is larger than ${max} bytes`);
    }
    chunks.push(chunk);
  }
  if ((stream as Readable & { truncated?: boolean }).truncated) throw errors.tooLarge(`${what} is larger than ${max} bytes`);
  return Buffer.concat(chunks);
}

function parseDefinitionsText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw errors.badRequest(`the part 'images' is not valid JSON: ${(error as Error).message}`);
  }
}

/** Turns what the multipart parser throws into the catalog's errors (never a 500 for a bad body). */
function toCatalogError(error: unknown): unknown {
  if (error instanceof CatalogError) return error;
  const e = error as { statusCode?: number; message?: string; code?: string };
  // The client went away mid-body: nothing was committed and no one is left to answer.
  if (e.code === 'ERR_STREAM_PREMATURE_CLOSE' || e.code === 'ECONNRESET' || e.message === 'aborted') return errors.badRequest('the upload was cut off by the client; nothing was stored');
  if (typeof e.statusCode === 'number' && e.statusCode === 413) return errors.tooLarge(e.message ?? 'upload over a limit');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return errors.badRequest(e.message ?? 'malformed multipart body');
  if (typeof e.message === 'string' && MALFORMED.some((re) => re.test(e.message ?? ''))) return errors.badRequest(`malformed multipart body: ${e.message}`);
  return error;
}

async function upload(images: ImageService, req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const limits = images.limits;
  const mode = queryString(req.query, 'mode');
  const session = await images.beginUpload(req.principal, mode === undefined ? {} : { mode: mode as UploadMode });
  if (!req.isMultipart()) {
    throw new CatalogError('unsupported_media_type', "an image upload is multipart/form-data with a part 'images' (JSON array of definitions) and parts 'files'");
  }
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  const tooLarge = () => errors.tooLarge(`an upload request is at most ${limits.maxRequestBytes} bytes (${(limits.maxRequestBytes / 1048576).toFixed(0)} MiB); send the files in several requests`);
  // Chunked bodies have no length up front: count what arrives.
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
  };
  const checkTotal = () => {
    if (received > limits.maxRequestBytes) throw tooLarge();
  };
  try {
    if (Number.isFinite(declared) && declared > limits.maxRequestBytes) throw tooLarge();
    req.raw.on('data', count);
    const parts = req.parts({
      limits: {
        fileSize: limits.maxFileBytes,
        fieldSize: limits.maxDefinitionsBytes,
        fields: 16,
        files: limits.maxDefinitions * 2 + 16,
        parts: limits.maxDefinitions * 2 + 32,
      },
      // Ids may contain "\" (only "/" is excluded), which busboy would otherwise treat as a path separator.
      preservePath: true,
      throwFileSizeLimit: false,
    } as Parameters<FastifyRequest['parts']>[0]);
    for await (const part of parts) {
      checkTotal();
      if (part.type === 'field') {
        if (part.fieldname !== 'images') throw errors.badRequest(`unexpected part '${part.fieldname}': an image upload has a part 'images' and parts 'files'`);
        if (part.valueTruncated) throw errors.tooLarge(`the part 'images' is larger than ${limits.maxDefinitionsBytes} bytes`);
        session.setDefinitions(typeof part.value === 'string' ? parseDefinitionsText(part.value) : part.value);
      } else if (part.fieldname === 'images') {
        // `curl -F images=@defs.json;type=application/json` sends the definitions as a file part.
        const bytes = await readBounded(part.file, limits.maxDefinitionsBytes, "the part 'images'");
        session.setDefinitions(parseDefinitionsText(bytes.toString('utf8')));
      } else if (part.fieldname === 'files') {
        const file = part.file;
        await session.addFile({
          filename: part.filename,
          source: drainOnReturn(file, checkTotal),
          truncated: () => file.truncated,
        });
      } else {
        part.file.resume();
        session.rejectFile(part.filename, `file '${part.filename}' is in a part named '${part.fieldname}'; image files go in parts named 'files'`);
      }
    }
    checkTotal();
    return await session.commit();
  } catch (error) {
    await session.abort();
    const mapped = toCatalogError(error);
    if (!req.raw.complete) {
      req.raw.unpipe();
      if (mapped instanceof CatalogError && mapped.code === 'payload_too_large') {
        // Over the request limit: do not read the rest; close the connection after the answer.
        reply.header('connection', 'close');
        reply.raw.once('finish', () => req.raw.destroy());
      } else {
        // Read the rest away (bounded by the request limit) so the client gets the answer cleanly.
        req.raw.resume();
      }
    }
    throw mapped;
  } finally {
    req.raw.off('data', count);
  }
}

/** Registers the image routes; the multipart parser only in their own scope. */
export function registerImageRoutes(app: FastifyInstance, images: ImageService): void {
  void app.register(async (scope) => {
    if (!scope.hasContentTypeParser('multipart/form-data')) await scope.register(multipart, { throwFileSizeLimit: false });
    scope.post(ROUTES.images, async (req, reply) => upload(images, req, reply as FastifyReply));
  });
  app.delete(ROUTES.images, async (req) => images.deleteImages(req.principal, req.body));
  app.post(ROUTES.imagesList, async (req) => images.listImages(req.principal, req.body));
  app.post(ROUTES.imagesSelect, async (req) => images.selectImages(req.principal, req.body));
  app.post(ROUTES.imagesAudit, async (req) => images.auditImages(req.principal, req.body));
  app.get<{ Params: { image_id: string } }>(ROUTES.image(':image_id'), async (req) => images.getImage(req.principal, req.params.image_id));
  app.get<{ Params: { image_id: string } }>(ROUTES.imageOriginal(':image_id'), async (req, reply) => {
    const header = req.headers['if-none-match'];
    const original = await images.openOriginal(req.principal, req.params.image_id, { ifNoneMatch: Array.isArray(header) ? header.join(',') : header });
    reply.header('etag', original.etag);
    // Private data behind a token: caches may keep it but must revalidate (the ETag makes that cheap).
    reply.header('cache-control', 'private, no-cache');
    if (original.notModified) return reply.code(304).send();
    reply.header('content-type', original.mime);
    reply.header('content-length', String(original.size));
    return reply.send(original.stream);
  });
  app.get<{ Params: { part_id: string } }>(ROUTES.partDisplayImages(':part_id'), async (req) => images.displayImages(req.principal, req.params.part_id));
}
