/**
 * GET /1/catalog/images/{image_id}/thumbnail?size=<px> (our addition, docs/api.md "Thumbnails"):
 * the image scaled down to fit a size × size box, as WebP, so pages never load the full
 * originals. Rendering is the ImageService's (its decoder: the bounded decode pool, the pixel limit). Cached two ways: the answer carries `ETag: "<sha256>-<size>"` (the original's content
 * hash plus the size), so a browser revalidates with If-None-Match and gets a 304 without any
 * decoding; and the server keeps recently rendered thumbnails in a bounded in-memory LRU.
 */
import type { FastifyInstance } from 'fastify';
import { errors } from '../../api/errors.js';
import { ROUTES } from '../../api/routes.js';
import type { ImageService } from '../../core/images/service.js';
import { queryString } from '../query.js';

/** The sizes a thumbnail may have, in CSS pixels of the longer side; a fixed set keeps the cache small. */
export const THUMBNAIL_SIZES = [64, 128, 256, 512, 1024] as const;
/** The size when `?size` is absent. */
export const DEFAULT_THUMBNAIL_SIZE = 256;
/** Bytes of rendered thumbnails the server keeps in memory (least recently used evicted first). */
const CACHE_BYTES = 32 * 1024 * 1024;

/** Whether an If-None-Match header (a list, weak tags, `*`) matches `etag` (RFC 9110 §13.1.2). */
function matches(header: string | string[] | undefined, etag: string): boolean {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined) return false;
  return value.split(',').some((raw) => {
    const tag = raw.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

/** A small LRU of rendered thumbnails by `<sha256>-<size>`, bounded by total bytes. */
class ThumbnailCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;
  constructor(private readonly maxBytes: number) {}

  get(key: string): Buffer | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      // Map keeps insertion order: re-inserting makes it the most recently used.
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: Buffer): void {
    if (value.length > this.maxBytes) return;
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [oldest, buffer] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= buffer.length;
    }
  }
}

/** The `size` query parameter: one of THUMBNAIL_SIZES (default 256); anything else is a 400. */
function sizeOf(query: unknown): number {
  const raw = queryString(query, 'size');
  if (raw === undefined || raw === '') return DEFAULT_THUMBNAIL_SIZE;
  const size = Number(raw);
  if (!(THUMBNAIL_SIZES as readonly number[]).includes(size)) {
    throw errors.badRequest(`query parameter 'size' must be one of ${THUMBNAIL_SIZES.join(', ')} (pixels), not '${raw.slice(0, 40)}'`);
  }
  return size;
}

/**
 * Registers the thumbnail route. Errors: 400 for a bad `size`, 404 for an unknown image (as the
 * original), 503 with Retry-After while the decode queue is full, 413 for an image over the pixel
 * limit, 415 when the stored file does not decode (ImageService.thumbnail).
 */
export function registerThumbnailRoutes(app: FastifyInstance, images: ImageService): void {
  const cache = new ThumbnailCache(CACHE_BYTES);
  const rendering = new Map<string, Promise<Buffer>>();

  const render = (key: string, imageId: string, principal: Parameters<ImageService['openOriginal']>[0]): Promise<Buffer> => {
    const running = rendering.get(key);
    if (running) return running;
    const size = Number(key.slice(key.lastIndexOf('-') + 1));
    const job = images.thumbnail(principal, imageId, size).then((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    rendering.set(key, job);
    void job.then((buffer) => cache.set(key, buffer), () => undefined).finally(() => rendering.delete(key));
    return job;
  };

  app.get<{ Params: { image_id: string } }>(ROUTES.imageThumbnail(':image_id'), async (req, reply) => {
    const size = sizeOf(req.query);
    // `*` makes the service answer "not modified" with the current ETag without opening the file:
    // an unknown image is still a 404, and a revalidation never touches the blob store.
    const probe = await images.openOriginal(req.principal, req.params.image_id, { ifNoneMatch: '*' });
    const sha = probe.etag.replaceAll('"', '');
    const key = `${sha}-${size}`;
    const etag = `"${key}"`;
    reply.header('etag', etag);
    // Private data behind a token: a cache may keep it but must revalidate (cheap with the ETag).
    reply.header('cache-control', 'private, no-cache');
    if (matches(req.headers['if-none-match'], etag)) return reply.code(304).send();
    const body = cache.get(key) ?? (await render(key, req.params.image_id, req.principal));
    return reply.type('image/webp').header('content-length', String(body.length)).send(body);
  });
}
