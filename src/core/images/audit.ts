/**
 * The image audit (POST /1/catalog/images/audit, docs/api.md "Image audit"): how findable each
 * reference image is. For every searchable image asked for, the probe makes the product's
 * photo-like queries from it (ReferencePhotoProbe: a copy, a closer shot, turned, at an angle,
 * covered, blurred, dim), and each goes through the same photo search a user's photo does
 * (ImageSimilaritySearch.rankParts, the real index); the answer is the part's rank and score per
 * condition, the part that took rank 1 when it was another, and advice (audit-advice.ts).
 *
 * Bounded per call: at most MAX_AUDIT_IMAGES images (keyset paging by image_id, as image list),
 * one audit at a time per process (another gets a 503 with Retry-After), its decodes in the
 * catalog's decode pool. It reads only: no writer, no lock, allowed in maintenance mode.
 */
import { CatalogError, errors } from '../../api/errors.js';
import {
  AUDIT_CONDITIONS, AUDIT_RANK_DEPTH, DEFAULT_AUDIT_IMAGES, ImageAuditRequestSchema, MAX_AUDIT_IMAGES, type AuditCondition, type AuditConditionResult,
  type ImageAuditResult,
} from '../../api/image-schemas.js';
import type { Page, Principal } from '../../api/schemas.js';
import type { ImageMatch, StoredImage } from '../model.js';
import { assertCatalogWriter, assertScope } from '../permissions.js';
import { sessionScore, type BlobStore, type ImageSimilaritySearch, type ImageStore, type ReferenceFeatureStore, type ReferencePhotoProbe } from '../ports.js';
import { decodePhotoFeatures } from '../search/photo/photo-search.js';
import { parseBody } from '../validation.js';
import { auditAdvice } from './audit-advice.js';
import { parseImageInfo } from './info-tokens.js';

/** Image rows read at most per call while looking for searchable ones (metadata only). */
const MAX_ROWS_SCANNED = 10_000;
const SCAN_PAGE = 1000;

/** What the audit runs on: the catalog's images and blobs, its photo search, and an image library. */
export interface ImageAuditDeps {
  store: ImageStore;
  blobs: BlobStore;
  similarity: ImageSimilaritySearch;
  probe: ReferencePhotoProbe;
  /** The stored features (for the keypoint count); without it `keypoints` is null. */
  features?: ReferenceFeatureStore;
}

function isSearchable(image: StoredImage): boolean {
  const info = parseImageInfo(image.info);
  return info.ok && info.info.searchable;
}

/** A score as search answers it (docs/api.md "Search": the session's value, to 4 decimals). */
function answeredScore(score: number): number {
  return Math.round(sessionScore(score) * 10_000) / 10_000;
}

/** What one query photo found for `image`. */
function conditionResult(condition: AuditCondition, image: StoredImage, matches: readonly ImageMatch[]): AuditConditionResult {
  const at = matches.findIndex((m) => m.part_id === image.part_id);
  const own = at >= 0 ? matches[at] : undefined;
  const first = matches[0];
  return {
    condition,
    rank: own ? at + 1 : null,
    score: own ? answeredScore(own.score) : null,
    ...(first && first.part_id !== image.part_id ? { top: { part_id: first.part_id, image_id: first.image_id, score: answeredScore(first.score) } } : {}),
  };
}

/** The image audit of one catalog. */
export class ImageAudit {
  private readonly deps: ImageAuditDeps;
  private running = false;

  constructor(deps: ImageAuditDeps) {
    this.deps = deps;
  }

  /**
   * POST /1/catalog/images/audit `{query?: {part_ids?, image_ids?}, conditions?, paging?}` → the
   * paging envelope of {@link ImageAuditResult}s, by image_id. Needs a catalog role (the people who
   * upload references) and, with scopes, `images:write`.
   *
   * @throws CatalogError forbidden (403) without a catalog role or the scope; bad_request (400)
   *   for a malformed body or `paging.limit` over MAX_AUDIT_IMAGES; unavailable (503, Retry-After)
   *   while another audit runs or the decode queue is full.
   */
  async audit(principal: Principal, body: unknown): Promise<Page<ImageAuditResult>> {
    assertCatalogWriter(principal);
    assertScope(principal, 'images:write');
    const request = parseBody(ImageAuditRequestSchema, body ?? {}, 'audit request');
    const limit = request.paging?.limit ?? DEFAULT_AUDIT_IMAGES;
    if (limit > MAX_AUDIT_IMAGES) {
      throw errors.badRequest(`invalid audit request: paging.limit ${limit} is over ${MAX_AUDIT_IMAGES}, the most images one audit call checks (each costs a photo search per condition); page with paging.last_object_id`, [{ path: 'paging.limit', message: `must be at most ${MAX_AUDIT_IMAGES}` }]);
    }
    const conditions = request.conditions ? AUDIT_CONDITIONS.filter((c) => request.conditions?.includes(c)) : [...AUDIT_CONDITIONS];
    if (this.running) {
      throw new CatalogError('unavailable', 'another image audit is running on this server; retry in a few seconds', undefined, { retryAfterSeconds: 5 });
    }
    this.running = true;
    try {
      const after = request.paging?.last_object_id;
      const since = request.query?.modifiedSince;
      const sinceMicros = since === undefined ? undefined : Date.parse(since) * 1000;
      const wanted = (image: StoredImage): boolean => (sinceMicros === undefined || image.modifiedAt >= sinceMicros) && isSearchable(image);
      const { images, more, scannedTo } = await this.select(request.query?.part_ids, request.query?.image_ids, after, limit, wanted);
      const keypoints = await this.keypointsOf(images.map((i) => i.image_id));
      const result: ImageAuditResult[] = [];
      for (const image of images) result.push(await this.auditOne(image, conditions, keypoints.get(image.image_id) ?? null));
      return { result, last_object_id: result.at(-1)?.image_id ?? scannedTo ?? after ?? '', more_data: more };
    } finally {
      this.running = false;
    }
  }

  /**
   * Up to `limit` images of the query that are `wanted` after `after`, by image_id; `more` when others
   * follow. Reads at most MAX_ROWS_SCANNED rows: beyond, `more` is true and `scannedTo` is the last
   * row read, where the next call goes on.
   */
  private async select(
    partIds: readonly string[] | undefined, imageIds: readonly string[] | undefined, after: string | undefined, limit: number, wanted: (image: StoredImage) => boolean,
  ): Promise<{ images: StoredImage[]; more: boolean; scannedTo?: string }> {
    if (imageIds !== undefined) {
      const parts = partIds === undefined ? undefined : new Set(partIds);
      const found = (await this.deps.store.getImages([...new Set(imageIds)]))
        .filter((i) => wanted(i) && (parts === undefined || parts.has(i.part_id)) && (after === undefined || i.image_id > after))
        .sort((a, b) => (a.image_id < b.image_id ? -1 : a.image_id > b.image_id ? 1 : 0));
      return { images: found.slice(0, limit), more: found.length > limit };
    }
    const images: StoredImage[] = [];
    let cursor = after;
    for (let scanned = 0; scanned < MAX_ROWS_SCANNED;) {
      const page = await this.deps.store.listImages({ after: cursor, limit: SCAN_PAGE }, partIds);
      for (const image of page) {
        scanned++;
        cursor = image.image_id;
        if (!wanted(image)) continue;
        if (images.length === limit) return { images, more: true };
        images.push(image);
      }
      if (page.length < SCAN_PAGE) return { images, more: false };
    }
    return { images, more: true, ...(cursor !== undefined ? { scannedTo: cursor } : {}) };
  }

  /** Keypoints the photo index holds per image (local features, and a small reference's own). */
  private async keypointsOf(imageIds: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const stored = imageIds.length > 0 ? await this.deps.features?.featuresOf?.(imageIds) : undefined;
    for (const [id, bytes] of stored ?? []) {
      try {
        const reference = decodePhotoFeatures(bytes);
        if (reference.local) out.set(id, reference.local.count + (reference.small?.count ?? 0));
      } catch {
        // A record of an unknown version: its keypoints are unknown (null), the rest of the audit stands.
      }
    }
    return out;
  }

  private async auditOne(image: StoredImage, conditions: readonly AuditCondition[], keypoints: number | null): Promise<ImageAuditResult> {
    const bytes = await this.deps.blobs.read(image.sha256);
    if (!bytes) throw new CatalogError('internal', `the original of image '${image.image_id}' is missing from the blob store (sha256 ${image.sha256})`);
    const properties = await this.deps.probe.measure(bytes);
    const photos = await this.deps.probe.photos(bytes, conditions);
    const results: AuditConditionResult[] = [];
    for (const condition of conditions) {
      const photo = photos.get(condition);
      if (!photo) continue;
      results.push(conditionResult(condition, image, await this.deps.similarity.rankParts(photo, AUDIT_RANK_DEPTH)));
    }
    const contrast = Math.round(properties.contrast * 10) / 10;
    return {
      image_id: image.image_id, part_id: image.part_id, width: properties.width, height: properties.height, keypoints, contrast, conditions: results,
      advice: auditAdvice({ width: properties.width, height: properties.height, contrast, keypoints, conditions: results }),
    };
  }
}
