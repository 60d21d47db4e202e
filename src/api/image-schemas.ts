/**
 * The wire contract of part images (api-spec.md §2.2, §4.2; api-decisions.md §4, §9): zod schemas of
 * the JSON requests and the shapes of the responses. Kept apart from schemas.ts so the image feature
 * has one file to grow in; imported by the core, the HTTP routes and both clients. Built on first
 * use (`z.lazy`), as schemas.ts explains.
 */
import { z } from 'zod';
import { IdSchema, MAX_PAGE_LIMIT, normalizeId, PagingSchema } from './schemas.js';

/** Limits of decisions §9 for image uploads (each configurable in `catalog serve`). */
export const MAX_IMAGE_FILE_BYTES = 20 * 1024 * 1024;
export const MAX_IMAGE_REQUEST_BYTES = 256 * 1024 * 1024;
export const MAX_IMAGE_DEFINITIONS = 1000;

/**
 * One image definition of POST /1/catalog/images (spec 2.2). `info` is validated token by token by
 * the core (`parseImageInfo`) so every problem is reported; `position` is checked by
 * `validateImagePosition`. `position: null` clears a stored position; absent keeps it (docs/api.md).
 * `info` absent keeps an existing image's tokens (a new image needs it; docs/api.md "Part images").
 */
const RequiredId = z.lazy(() => z.string({ error: (issue) => (issue.input === undefined ? 'required' : 'must be a string') }).pipe(IdSchema));

export const ImageDefinitionSchema = z.lazy(() => z.strictObject({
  image_id: RequiredId,
  part_id: RequiredId,
  info: z.string({ error: 'must be a string of space-separated tokens' }).max(10_000, 'must be at most 10,000 characters').optional(),
  position: z.unknown().optional(),
}));
export type ImageDefinition = z.infer<typeof ImageDefinitionSchema>;

/** Projection values of image list/select (spec 4.2). */
export const IMAGE_PROJECTION = ['part_id', 'info', 'position'] as const;
export type ImageField = (typeof IMAGE_PROJECTION)[number];

/**
 * Projection values of image list/select beyond the description's fields, given only when asked
 * for: `etag`, the original's `"<sha256>"` as the original's ETag header carries it, so a client
 * can tell whether a file on disk is the stored original without downloading it (docs/api.md).
 */
export const IMAGE_EXTRA_PROJECTION = ['etag'] as const;
const IMAGE_PROJECTION_VALUES = [...IMAGE_PROJECTION, ...IMAGE_EXTRA_PROJECTION] as const;

const ImageProjectionSchema = z.lazy(() => z.array(z.enum(IMAGE_PROJECTION_VALUES, { error: `must be one of: ${IMAGE_PROJECTION_VALUES.join(', ')}` })));

/** POST /1/catalog/images/list: `{query?: {part_ids?}, paging?, projection?}`. */
export const ImageListRequestSchema = z.lazy(() => z.strictObject({
  query: z.strictObject({ part_ids: z.array(z.string().max(256).transform(normalizeId)).max(MAX_PAGE_LIMIT).optional() }).optional(),
  paging: PagingSchema.optional(),
  projection: ImageProjectionSchema.optional(),
}));
export type ImageListRequest = z.infer<typeof ImageListRequestSchema>;

/** POST /1/catalog/images/select: `{image_ids, projection?}`. */
export const ImageSelectRequestSchema = z.lazy(() => z.strictObject({
  image_ids: z.array(z.string().transform(normalizeId)).max(MAX_PAGE_LIMIT),
  projection: ImageProjectionSchema.optional(),
}));
export type ImageSelectRequest = z.infer<typeof ImageSelectRequestSchema>;

/** An image description (spec 4.2 get-one): `position` only when set. */
export interface ImageDescription {
  image_id: string;
  part_id: string;
  info: string;
  position?: number;
}

/** An image as listed or selected: image_id plus the projected fields (`etag` only when projected). */
export type ImageView = Partial<ImageDescription> & { image_id: string; etag?: string };

/**
 * GET /1/catalog/parts/{part_id}/display-images (decisions §4, our addition): `ordered` = every
 * display image in display order (spec 2.2 rules 1–3), `shown` = those the UI shows (rule 4).
 */
export interface DisplayImages {
  part_id: string;
  max_display_images: number;
  ordered: string[];
  shown: string[];
}

/** One file of an upload as a client gives it: a path on disk (streamed) or bytes in memory. */
/**
 * How an upload treats image ids that already exist (POST /1/catalog/images?mode=..., docs/api.md
 * "Part images"): `upsert` (the default, spec 4.2 "create or update") replaces, re-tokens or moves
 * them; `create` changes no existing image: an existing id is the item error
 * {@link imageExistsMessage} unless the definition (and its file) is exactly what is stored, which
 * is reported as updated with nothing changed, so a retried request is harmless.
 */
export const UPLOAD_MODES = ['upsert', 'create'] as const;
export type UploadMode = (typeof UPLOAD_MODES)[number];

/** Options of one upload (both clients). */
export interface UploadOptions {
  /** Default `upsert`. */
  mode?: UploadMode;
}

/** The item error of `mode=create` for an id that exists with other content: names its part. */
export function imageExistsMessage(imageId: string, partId: string): string {
  return `image '${imageId}' already exists on part '${partId}'; mode=create changes no existing image (choose another image_id, or upload with mode=upsert to replace it)`;
}

export interface UploadFile {
  /** The multipart filename: the image_id, or the image_id plus an extension (decisions §4). */
  filename: string;
  path?: string;
  data?: Uint8Array;
}

/** The original of an image as downloaded (GET /1/catalog/images/{image_id}/original). */
export interface ImageDownload {
  /** The type detected from the bytes at upload, e.g. `image/jpeg`. */
  contentType: string;
  /** Bytes. */
  size: number;
  /** `"<sha256>"` (quoted, as in the ETag header). */
  etag: string;
  /** The exact bytes; consume or destroy it. */
  stream: NodeJS.ReadableStream;
}

/**
 * The photo-like conditions of the image audit (POST /1/catalog/images/audit, docs/api.md "Image
 * audit"), each a query photo made from the reference: `copy` a digital copy (5 % cropped, halved,
 * brighter, JPEG q60), `closer` the central 70 %, `rotated` turned 20°, `angle` seen at an angle
 * (a perspective), `covered` a quarter covered by a hand, `blur` a shaky hand's smear, `low_light`
 * a dim corner with sensor noise, `bench` the part cut out of its plain background and lying on a
 * cluttered workbench.
 */
export const AUDIT_CONDITIONS = ['copy', 'closer', 'rotated', 'angle', 'covered', 'blur', 'low_light', 'bench'] as const;
export type AuditCondition = (typeof AUDIT_CONDITIONS)[number];

/** Reference images audited per call at most (each costs one photo search per condition). */
export const MAX_AUDIT_IMAGES = 10;
/** Reference images audited per call when `paging.limit` is not given. */
export const DEFAULT_AUDIT_IMAGES = 5;
/** How deep the audit looks for a reference's part: a rank beyond it is reported as `null`. */
export const AUDIT_RANK_DEPTH = 20;

/**
 * POST /1/catalog/images/audit: `{query?: {part_ids?, image_ids?, modifiedSince?}, conditions?,
 * paging?}`. The searchable reference images of those parts (or those images; all when neither),
 * uploaded or changed at or after `modifiedSince` (an ISO 8601 time) when given, in image_id
 * order, `paging.limit` of them (1..MAX_AUDIT_IMAGES) per call.
 */
export const ImageAuditRequestSchema = z.lazy(() => z.strictObject({
  query: z.strictObject({
    part_ids: z.array(z.string().max(256).transform(normalizeId)).max(MAX_PAGE_LIMIT).optional(),
    image_ids: z.array(z.string().max(256).transform(normalizeId)).max(MAX_PAGE_LIMIT).optional(),
    modifiedSince: z.string().max(64).refine((v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 time, e.g. 2026-11-28T17:02:03Z').optional(),
  }).optional(),
  conditions: z.array(z.enum(AUDIT_CONDITIONS, { error: `must be one of: ${AUDIT_CONDITIONS.join(', ')}` })).min(1).optional(),
  paging: PagingSchema.optional(),
}));
export type ImageAuditRequest = z.infer<typeof ImageAuditRequestSchema>;

/** What one condition's query photo found (docs/api.md "Image audit"). */
export interface AuditConditionResult {
  condition: AuditCondition;
  /** The part's rank (1 = first), null when not among the first AUDIT_RANK_DEPTH parts. */
  rank: number | null;
  /** The part's score (as search answers it), null when not ranked. */
  score: number | null;
  /** The part ranked first when it is not this one (with its image and score); else absent. */
  top?: { part_id: string; image_id: string; score: number };
}

/** The audit of one reference image: its measurable properties, every condition, and advice. */
export interface ImageAuditResult {
  image_id: string;
  part_id: string;
  /** Pixel size of the stored original. */
  width: number;
  height: number;
  /** Keypoints the photo index holds for it (its local features); null when unknown. */
  keypoints: number | null;
  /** Standard deviation of its grey levels, 0..~128: near 0 is a blank image. */
  contrast: number;
  conditions: AuditConditionResult[];
  /** What a contributor can do, most useful first; empty when nothing needs doing. */
  advice: string[];
}
