/**
 * ImageService: the part image operations of api-spec.md §4.2 with api-decisions.md §4 and §9, used
 * by the HTTP routes (per request, with the token's principal) and by the local client (as the
 * directory's owner).
 *
 * An upload is an {@link UploadSession} that the HTTP route drives part by part as the multipart body
 * streams in, and that the local client drives from files on disk: `setDefinitions` (the `images`
 * part, whenever it comes), `addFile` per file (streamed straight into the BlobStore: written,
 * fsynced and renamed BEFORE any metadata commits), then `commit` (one metadata transaction) or
 * `abort`. Nothing of a request is held in memory but its definitions and one chunk of one file.
 */
import { CatalogError, errors } from '../../api/errors.js';
import {
  ImageListRequestSchema, ImageSelectRequestSchema, type DisplayImages, type ImageDescription, type ImageView, type UploadOptions,
} from '../../api/image-schemas.js';
import { IdSchema, normalizeId, type BulkDeleteResult, type BulkWriteResult, type Page, type Principal } from '../../api/schemas.js';
import { BlobGate } from './blob-gate.js';
import { BlobTooLargeError } from './blobs.js';
import {
  decideImageDelete, describeImage, etagOf, ifNoneMatchMatches, normalizeFilename, type StoredFile, type ValidDefinition,
} from './definitions.js';
import { DEFAULT_DISPLAY_ORDER_CONFIG, displayOrder, type DisplayImageInput, type DisplayOrderConfig } from './display-order.js';
import { parseImageInfo } from './info-tokens.js';
import { imageIntake, NotAnImageError, type IntakeResult } from './intake.js';
import { keysetFor, project, toPage } from '../paging.js';
import { bulkDeleteResult } from '../bulk-results.js';
import type { BlobStore, BlobSweepResult, ImageDecoder, ImageFeatureIndexer, ImageStore } from '../ports.js';
import type { ServiceContext } from '../context.js';
import { parseBody, parseIdList } from '../validation.js';
import type { StoredImage } from '../model.js';
import { DEFAULT_IMAGE_LIMITS, mib, type ImageLimits } from './limits.js';
import { UploadSession, type UploadHost, type UploadInput } from './upload-session.js';
import { writeUploadedImages, type UploadedImageOutcomes, type UploadedImageWrites } from './upload-writes.js';
import { assertScope } from '../permissions.js';
import type { ImageAudit } from './audit.js';
import type { ImageAuditResult } from '../../api/image-schemas.js';

export type { ImageLimits, UploadInput };
export { DEFAULT_IMAGE_LIMITS, UploadSession };

export interface ImageServiceDeps {
  context: ServiceContext;
  store: ImageStore;
  blobs: BlobStore;
  limits?: Partial<ImageLimits>;
  /** The catalog image configuration (decisions §4); default 5 images, ascending priority. */
  displayConfig?: Partial<DisplayOrderConfig>;
  /** Describes a searchable image for photo search before its metadata commits (see {@link ImageFeatureIndexer}); unset: no features stored. */
  indexer?: ImageFeatureIndexer;
  /**
   * Decodes originals: the decode check of uploaded files the indexer does not decode, and
   * thumbnails. Without it uploads are checked by their first bytes only and there are no thumbnails.
   */
  decoder?: ImageDecoder;
  /** The image audit (audit.ts); without it POST /1/catalog/images/audit is a 415. */
  audit?: ImageAudit;
  /**
   * The blob store is shared with other servers (object storage): blobs that lose their
   * last image are left to the periodic orphan sweep instead of being deleted at once (BlobGate).
   */
  sharedBlobs?: boolean;
}

/** An open blob of an original, for GET .../original. */
export interface OpenedOriginal {
  notModified: false;
  etag: string;
  sha256: string;
  size: number;
  mime: string;
  stream: NodeJS.ReadableStream;
}

/**
 * An image as list/select answer it (spec 4.2): the projected fields of its description, and its
 * original's ETag (`"<sha256>"`) when the projection names `etag` (never by default).
 */
function viewImage(image: StoredImage, projection: readonly string[] | undefined): ImageView {
  const view = project(describeImage(image), 'image_id', projection) as ImageView;
  if (projection?.includes('etag')) view.etag = etagOf(image.sha256);
  return view;
}

/** The part image use cases over an ImageStore and a BlobStore. */
export class ImageService implements UploadHost {
  readonly limits: ImageLimits;
  readonly displayConfig: DisplayOrderConfig;
  readonly context: ServiceContext;
  readonly store: ImageStore;
  readonly blobs: BlobStore;
  readonly indexer: ImageFeatureIndexer | undefined;
  readonly decoder: ImageDecoder | undefined;
  readonly gate: BlobGate;
  private readonly audit: ImageAudit | undefined;

  constructor(deps: ImageServiceDeps) {
    this.context = deps.context;
    this.store = deps.store;
    this.blobs = deps.blobs;
    this.indexer = deps.indexer;
    this.decoder = deps.decoder;
    this.limits = { ...DEFAULT_IMAGE_LIMITS, ...deps.limits };
    this.displayConfig = { ...DEFAULT_DISPLAY_ORDER_CONFIG, ...deps.displayConfig };
    this.audit = deps.audit;
    this.gate = new BlobGate(deps.blobs, (sha) => deps.store.isBlobReferenced(sha), { deferDeletion: deps.sharedBlobs ?? false });
  }

  // -- uploads (spec 4.2, decisions §4) --------------------------------------------------------

  /**
   * Starts an upload: 403 for a principal that may not write, 503 in maintenance mode (checked
   * before any byte of the body is read).
   */
  async beginUpload(principal: Principal, options: UploadOptions = {}): Promise<UploadSession> {
    assertScope(principal, 'images:write');
    await this.context.assertWritable(principal);
    return new UploadSession(this, principal, options);
  }

  /**
   * The metadata of an upload's checked images in one write (UploadSession.commit's last step, its
   * files already stored; upload-writes.ts): 403 for a principal that may not write, 503 in
   * maintenance mode. `catalog serve` runs it on its writer thread.
   */
  async writeUploadedImages(principal: Principal, request: UploadedImageWrites): Promise<UploadedImageOutcomes> {
    assertScope(principal, 'images:write');
    await this.context.assertWritable(principal);
    return writeUploadedImages(this.store, principal, request, this.context.clock.nowMicros());
  }

  /**
   * POST /1/catalog/images in one call (the local client): `definitions` is the `images` part,
   * `files` the `files` parts in order, `options.mode` create-only or upsert (default). Returns
   * `{created, updated, errors}` (spec 4.2).
   */
  async uploadImages(principal: Principal, definitions: unknown, files: AsyncIterable<UploadInput> | Iterable<UploadInput>, options: UploadOptions = {}): Promise<BulkWriteResult> {
    assertScope(principal, 'images:write');
    const session = await this.beginUpload(principal, options);
    try {
      session.setDefinitions(definitions);
      for await (const file of files) await session.addFile(file);
      return await session.commit();
    } catch (error) {
      await session.abort();
      throw error;
    }
  }

  /** DELETE /1/catalog/images: unknown ids are item errors; a blob goes with its last image. */
  async deleteImages(principal: Principal, body: unknown): Promise<BulkDeleteResult> {
    assertScope(principal, 'images:write');
    await this.context.assertWritable(principal);
    const items = parseIdList(body, this.context.limits.maxBulkItems);
    const ids = items.flatMap((i) => ('item' in i ? [i.item] : []));
    const freed: string[] = [];
    const decisions = await this.store.deleteImages(ids, (id, existing) => {
      const decision = decideImageDelete(id, existing);
      if (decision.kind === 'write' && existing) freed.push(existing.sha256);
      return decision;
    });
    const result = bulkDeleteResult(items, decisions);
    this.gate.release(freed);
    await this.gate.drain();
    if (this.indexer) for (const id of result.deleted) await this.indexer.remove(id);
    return result;
  }

  // -- reads -------------------------------------------------------------------------------------

  /** POST /1/catalog/images/list: keyset paging by image_id, optionally only of `query.part_ids`. */
  async listImages(principal: Principal, body: unknown): Promise<Page<ImageView>> {
    assertScope(principal, 'images:read');
    const request = parseBody(ImageListRequestSchema, body ?? {}, 'list request');
    const keyset = keysetFor(request.paging);
    const rows = await this.store.listImages(keyset, request.query?.part_ids);
    return toPage(rows, keyset.pageSize, (i) => i.image_id, (i) => viewImage(i, request.projection), keyset.after);
  }

  /** POST /1/catalog/images/select: the known ids in request order; unknown ids are left out. */
  async selectImages(principal: Principal, body: unknown): Promise<ImageView[]> {
    assertScope(principal, 'images:read');
    const request = parseBody(ImageSelectRequestSchema, body, 'select request');
    const found = new Map((await this.store.getImages(request.image_ids)).map((i) => [i.image_id, i]));
    return [...new Set(request.image_ids)].flatMap((id) => {
      const image = found.get(id);
      return image ? [viewImage(image, request.projection)] : [];
    });
  }

  /** GET /1/catalog/images/{image_id}: 404 when unknown. */
  async getImage(principal: Principal, imageId: string): Promise<ImageDescription> {
    assertScope(principal, 'images:read');
    return describeImage(await this.stored(imageId));
  }

  /**
   * GET /1/catalog/images/{image_id}/original: the exact bytes, with the detected type, size and
   * ETag `"<sha256>"`; `{notModified: true}` when `ifNoneMatch` matches the ETag. 404 when unknown.
   */
  async openOriginal(principal: Principal, imageId: string, options: { ifNoneMatch?: string | undefined } = {}): Promise<OpenedOriginal | { notModified: true; etag: string }> {
    assertScope(principal, 'images:read');
    const image = await this.stored(imageId);
    const etag = etagOf(image.sha256);
    if (ifNoneMatchMatches(options.ifNoneMatch, etag)) return { notModified: true, etag };
    const opened = await this.blobs.open(image.sha256);
    if (!opened) {
      // Deleted (or its file replaced) since it was read: answer as of now.
      const [now] = await this.store.getImages([normalizeId(imageId)]);
      if (!now) throw errors.notFound(`image '${imageId}' does not exist`);
      if (now.sha256 !== image.sha256) return this.openOriginal(principal, imageId, options);
      throw new CatalogError('internal', `the original of image '${imageId}' is missing from the blob store (sha256 ${image.sha256})`);
    }
    return { notModified: false, etag, sha256: image.sha256, size: opened.size, mime: image.mime, stream: opened.stream };
  }

  /**
   * GET /1/catalog/parts/{part_id}/display-images (decisions §4): the part's display images in
   * display order and the ones the UI shows. 404 for an unknown part.
   */
  async displayImages(principal: Principal, partId: string): Promise<DisplayImages> {
    assertScope(principal, 'images:read');
    if (!IdSchema.safeParse(partId).success) throw errors.badRequest(`invalid part id '${partId.slice(0, 300)}'`);
    partId = normalizeId(partId);
    const images = await this.store.imagesOfPart(partId);
    if (!images) throw errors.notFound(`part '${partId}' does not exist`);
    const inputs: DisplayImageInput[] = [];
    for (const image of images) {
      const info = parseImageInfo(image.info);
      if (!info.ok) continue;
      inputs.push({ image_id: image.image_id, info: info.info, createdAt: image.createdAt, ...(image.position !== null ? { position: image.position } : {}) });
    }
    const { ordered, shown } = displayOrder(inputs, this.displayConfig);
    return { part_id: partId, max_display_images: this.displayConfig.maxDisplayImages, ordered, shown };
  }

  /**
   * The shown display images (decisions §4, in UI order) of several parts at once, for search hits
   * (`results.images`): part id -> image ids; a part without images (or unknown) maps to
   * []. Reads the parts' images in pages of 1,000 (ImageStore.listImages), so a page of hits costs a
   * few queries, not one per hit.
   */
  async shownImagesOf(partIds: readonly string[]): Promise<Map<string, string[]>> {
    const byPart = new Map<string, DisplayImageInput[]>(partIds.map((id) => [id, []]));
    if (partIds.length === 0) return new Map();
    const PAGE = 1000;
    for (let after: string | undefined; ;) {
      const page = await this.store.listImages({ after, limit: PAGE }, partIds);
      for (const image of page) {
        const info = parseImageInfo(image.info);
        if (!info.ok) continue;
        byPart.get(image.part_id)?.push({ image_id: image.image_id, info: info.info, createdAt: image.createdAt, ...(image.position !== null ? { position: image.position } : {}) });
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1]?.image_id;
    }
    return new Map([...byPart].map(([id, inputs]) => [id, inputs.length === 0 ? [] : displayOrder(inputs, this.displayConfig).shown]));
  }

  /**
   * POST /1/catalog/images/audit (docs/api.md "Image audit"): how findable each reference image
   * is, by the product's own photo-like queries against the real index (ImageAudit.audit, which
   * says what is thrown). 415 when this catalog has no image search.
   */
  async auditImages(principal: Principal, body: unknown): Promise<Page<ImageAuditResult>> {
    if (!this.audit) throw new CatalogError('unsupported_media_type', 'image search is not configured on this catalog, so there is nothing to audit');
    return this.audit.audit(principal, body);
  }

  // -- maintenance of the blob store -------------------------------------------------------------

  /**
   * Removes temp files and blobs no image references (left by a crash between a blob's rename and
   * its metadata commit). Call at start-up, before serving; `minAgeMs` keeps younger files.
   */
  async sweepOrphans(options: { minAgeMs?: number } = {}): Promise<BlobSweepResult> {
    const referenced = await this.store.referencedBlobs();
    return this.blobs.sweep((sha) => referenced.has(sha), options);
  }

  /** Finishes pending blob deletions. */
  async close(): Promise<void> {
    await this.gate.drain();
  }

  private async stored(imageId: string): Promise<StoredImage> {
    const [image] = IdSchema.safeParse(imageId).success ? await this.store.getImages([normalizeId(imageId)]) : [];
    if (!image) throw errors.notFound(`image '${imageId}' does not exist`);
    return image;
  }

  /** Stores one file's bytes; never throws for an item-level problem (too large, not an image). */
  async storeFile(file: UploadInput): Promise<{ stored: StoredFile } | { error: string }> {
    const intake: IntakeResult = { type: undefined };
    const max = this.limits.maxFileBytes;
    await this.gate.beginPut();
    let sha256: string | undefined;
    try {
      const put = await this.blobs.put(imageIntake(file.source, max, intake, file.truncated), { maxBytes: max });
      sha256 = put.sha256;
      return { stored: { sha256: put.sha256, size: put.size, mime: intake.type?.mime ?? 'application/octet-stream' } };
    } catch (error) {
      const name = normalizeFilename(file.filename);
      if (error instanceof BlobTooLargeError) return { error: `file '${name}' is larger than the limit of ${mib(max)} (${max} bytes)` };
      if (error instanceof NotAnImageError) return { error: `file '${name}' is ${error.message}` };
      throw error;
    } finally {
      this.gate.endPut(sha256);
    }
  }

  /** A stored blob for a decoder: the path of its local file, or its bytes; an item error when missing. */
  private async openStored(sha: string): Promise<{ image: Uint8Array | { path: string } } | { error: string }> {
    const path = this.blobs.localPath?.(sha);
    const image = path !== undefined ? { path } : await this.blobs.read(sha);
    if (!image || (path !== undefined && !(await this.blobs.has(sha)))) return { error: `the stored original (sha256 ${sha}) is missing` };
    return { image };
  }

  /**
   * GET /1/catalog/images/{image_id}/thumbnail (our addition, docs/api.md "Thumbnails"): the
   * original as a WebP fitting `size` × `size`, decoded in the bounded decode pool. 404 for an
   * unknown image; 503 with Retry-After while the decode queue is full; 413 over the pixel limit
   * ({@link ImageLimits.maxPixels}); 415 when the stored file does not decode (or no decoder).
   */
  async thumbnail(principal: Principal, imageId: string, size: number): Promise<Uint8Array> {
    assertScope(principal, 'images:read');
    const image = await this.stored(imageId);
    const decoder = this.decoder;
    if (!decoder) throw new CatalogError('unsupported_media_type', `image '${imageId}': this server renders no thumbnails`);
    // Opened once a decode slot is free: queued thumbnails hold no bytes of their originals.
    const open = async (): Promise<Uint8Array | { path: string }> => {
      const opened = await this.openStored(image.sha256);
      if ('error' in opened) throw new CatalogError('internal', `the original of image '${imageId}' is missing from the blob store (sha256 ${image.sha256})`);
      return opened.image;
    };
    try {
      return await decoder.thumbnail(open, size, this.limits.maxPixels);
    } catch (error) {
      if (error instanceof CatalogError && error.code !== 'unavailable' && error.code !== 'internal') throw new CatalogError(error.code, `image '${imageId}': ${withoutServerPaths(error.detail)}`);
      throw error;
    }
  }

  /** Computes search features for a definition (the indexer hook), or an item error. */
  async features(def: ValidDefinition, file: StoredFile | undefined, existing: StoredImage | undefined): Promise<{ features: Uint8Array | null | undefined } | { error: string }> {
    // Without parsed tokens the definition is an item error (a new image without info).
    if (!def.parsed) return { features: undefined };
    const indexed = def.parsed.searchable && this.indexer !== undefined;
    // A new file is decoded once before its metadata commits: by the indexer when the image is
    // searchable, else here, so a file with an image's first bytes that does not decode is refused
    // (and its blob released) whatever its tokens.
    if (file && !indexed && this.decoder) {
      const opened = await this.openStored(file.sha256);
      if ('error' in opened) return opened;
      const problem = await this.decoder.verify(opened.image, this.limits.maxPixels);
      if (problem !== undefined) return { error: `the file of image '${def.image_id}' (${file.mime} by its first bytes) ${withoutServerPaths(problem)}` };
    }
    if (!def.parsed.searchable) return { features: null };
    if (!this.indexer) return { features: file ? null : undefined };
    const sha = file?.sha256 ?? existing?.sha256;
    if (sha === undefined) return { features: undefined };
    const opened = await this.openStored(sha);
    if ('error' in opened) return opened;
    const image = opened.image;
    try {
      return { features: (await this.indexer.index(def.image_id, def.part_id, image)) ?? null };
    } catch (error) {
      return { error: `search features: ${withoutServerPaths((error as Error).message)}` };
    }
  }
}

/**
 * A decoder's message without the server's file paths (`.../images/blobs/19/16/<sha256>: bad seek`
 * becomes `the stored original: bad seek`): an item error goes to the client, and where the server
 * keeps its files is none of its business.
 */
export function withoutServerPaths(message: string): string {
  // A path begins a word (`image/jpeg` is not one): an absolute POSIX or Windows path.
  return message.replace(/(^|[\s'"(=])(?:[A-Za-z]:)?(?:[\\/][^\\/\s:'"]+){2,}[\\/]?/g, '$1the stored original');
}
