/**
 * Pure rules of an image upload (api-spec.md §2.2, §4.2, §7; api-decisions.md §4): validating the
 * definitions, matching files to them, deciding each write against the stored image, and the view a
 * reader gets. No I/O.
 */
import { errors } from '../../api/errors.js';
import { ImageDefinitionSchema, imageExistsMessage, type ImageDefinition, type ImageDescription, type UploadMode } from '../../api/image-schemas.js';
import { IdSchema, normalizeId } from '../../api/schemas.js';

import { issuesToProblems, problemsToMessages } from '../validation.js';
import { parseImageInfo, POSITION_ROLE_ERROR, validateImagePosition, type ParsedInfo } from './info-tokens.js';
import type { Decision, ImageWrite, StoredImage } from '../model.js';

/**
 * A definition that passed validation, with its parsed info; `info` (and `parsed`) undefined = keep
 * the stored tokens; `position` undefined = keep, null = clear.
 */
export interface ValidDefinition {
  image_id: string;
  part_id: string;
  info: string | undefined;
  parsed: ParsedInfo | undefined;
  position: number | null | undefined;
}

/** One definition after validation: usable, or rejected with every message, keyed like bulk items. */
export type CheckedDefinition = { key: string; index: number; definition: ValidDefinition } | { key: string; index: number; messages: string[] };

/**
 * Validates the `images` part of an upload (spec 4.2): a JSON array of `{image_id, part_id, info,
 * position?}`. Throws 400 when it is not an array, 413 over `maxDefinitions`. Per definition, every
 * problem: schema, info tokens, position (integer >= 1, only with `display`), and the role rule of
 * spec §7: a definition setting `position` by a principal that may not gets exactly
 * {@link POSITION_ROLE_ERROR} first. An image_id given twice is an error for that id (a file could
 * not be told apart). Keys: the image_id when valid, else `items[<index>]`.
 */
export function checkDefinitions(body: unknown, maxDefinitions: number, mayPosition: boolean): CheckedDefinition[] {
  if (!Array.isArray(body)) throw errors.badRequest("the part 'images' must be a JSON array of image definitions {image_id, part_id, info, position?}");
  if (body.length > maxDefinitions) throw errors.tooLarge(`at most ${maxDefinitions} image definitions per call; this one has ${body.length}`);
  const counts = new Map<string, number>();
  for (const raw of body) {
    const id = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).image_id : undefined;
    if (typeof id === 'string') counts.set(normalizeId(id), (counts.get(normalizeId(id)) ?? 0) + 1);
  }
  const reported = new Set<string>();
  const out: CheckedDefinition[] = [];
  body.forEach((raw: unknown, index) => {
    const rawId = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).image_id : undefined;
    const parsedId = IdSchema.safeParse(rawId);
    const key = parsedId.success ? parsedId.data : `items[${index}]`;
    if (parsedId.success && (counts.get(key) ?? 0) > 1) {
      if (!reported.has(key)) out.push({ key, index, messages: [`image '${key}' is defined more than once in this request`] });
      reported.add(key);
      return;
    }
    const messages: string[] = [];
    const result = ImageDefinitionSchema.safeParse(raw);
    const position = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).position : undefined;
    if (position !== undefined && position !== null && !mayPosition) messages.push(POSITION_ROLE_ERROR(key));
    if (!result.success) {
      messages.push(...problemsToMessages(issuesToProblems(result.error.issues)));
      out.push({ key, index, messages });
      return;
    }
    const def: ImageDefinition = result.data;
    // No info: the stored tokens stay (checked against the stored image in decideImageUpsert).
    const info = def.info === undefined ? undefined : parseImageInfo(def.info);
    const parsed = info?.ok === true ? info.info : undefined;
    // Both validators' messages already name their field ("unknown info token ...", "position must ...").
    if (info && !info.ok) messages.push(...info.messages);
    messages.push(...validateImagePosition(def.position, parsed));
    if (messages.length > 0 || (info && !info.ok)) {
      out.push({ key, index, messages });
      return;
    }
    out.push({
      key,
      index,
      definition: { image_id: def.image_id, part_id: def.part_id, info: def.info, parsed, position: def.position as number | null | undefined },
    });
  });
  return out;
}

/**
 * The file name as matched: the part after the last `/` (image ids never contain `/`, decisions §1).
 */
export function normalizeFilename(filename: string): string {
  const slash = filename.lastIndexOf('/');
  // NFC, as image ids are: a macOS file name is NFD.
  return normalizeId(slash === -1 ? filename : filename.slice(slash + 1));
}

/**
 * The image_id a file belongs to (decisions §4): the definition whose image_id equals the filename,
 * else the filename without its (last) extension. `undefined` when none matches.
 */
export function matchFile(filename: string, imageIds: ReadonlySet<string>): string | undefined {
  const name = normalizeFilename(filename);
  if (imageIds.has(name)) return name;
  const dot = name.lastIndexOf('.');
  if (dot > 0) {
    const stem = name.slice(0, dot);
    if (imageIds.has(stem)) return stem;
  }
  return undefined;
}

/** The stored original a definition brings, when it came with a file. */
export interface StoredFile {
  sha256: string;
  size: number;
  mime: string;
}

/** The message of a new image defined without a file (decisions §4). */
export function noFileMessage(imageId: string): string {
  return `no file for image '${imageId}'`;
}

/**
 * Decides one image write inside the store's transaction (decisions §4). Item errors: the part does
 * not exist; a new image without a file or without info; without the role of spec §7,
 * `position: null` clearing a stored position or a new `part_id` for an image with a stored
 * position (a move carries its position); a kept position when the new info has no `display`.
 * Otherwise writes the image: a new file replaces the original, info (when given) and part_id
 * replace the stored ones, `position` absent keeps the stored one. `context.mode` `create` changes
 * no existing image: an existing id is the item error of {@link imageExistsMessage}, unless the
 * definition and file equal what is stored (then the stored image is written back unchanged, so a
 * retried request succeeds). `features`: see {@link ImageWrite}.
 */
export function decideImageUpsert(
  def: ValidDefinition,
  file: StoredFile | undefined,
  existing: StoredImage | undefined,
  partExists: boolean,
  context: { now: number; mayPosition: boolean; features: Uint8Array | null | undefined; mode?: UploadMode },
): Decision<ImageWrite> {
  if (context.mode === 'create' && existing) {
    if (!sameAsStored(def, file, existing)) return { kind: 'error', messages: [imageExistsMessage(def.image_id, existing.part_id)] };
    return { kind: 'write', created: false, value: { image: existing, features: undefined } };
  }
  const messages: string[] = [];
  // Spec §7: only dataContributor/dataValidator change a position, and moving a positioned image to
  // another part (position kept) changes where that position applies, so it is a change too.
  const clears = def.position === null && existing?.position != null;
  const carries = def.position === undefined && existing?.position != null && existing.part_id !== def.part_id;
  if ((clears || carries) && !context.mayPosition) messages.push(POSITION_ROLE_ERROR(def.image_id));
  if (!partExists) messages.push(`part_id: part '${def.part_id}' does not exist`);
  if (!existing && !file) messages.push(noFileMessage(def.image_id));
  const info = def.info ?? existing?.info;
  const parsed = def.parsed ?? storedInfo(existing);
  if (info === undefined) messages.push(`info: required for a new image (image '${def.image_id}' does not exist yet)`);
  const position = def.position === undefined ? (existing?.position ?? null) : def.position;
  if (def.parsed === undefined && def.position != null && parsed && !parsed.display) {
    messages.push('position is only allowed when info contains the token display');
  }
  if (def.position === undefined && position !== null && parsed && !parsed.display) {
    messages.push(`position: the image keeps its position ${position}, which is only allowed when info contains the token display (send "position": null to clear it)`);
  }
  const original = file ?? existing;
  if (messages.length > 0 || !original || info === undefined) return { kind: 'error', messages };
  return {
    kind: 'write',
    created: !existing,
    value: {
      image: {
        image_id: def.image_id,
        part_id: def.part_id,
        sha256: original.sha256,
        size: original.size,
        mime: original.mime,
        info,
        position,
        createdAt: existing?.createdAt ?? context.now,
        modifiedAt: context.now,
      },
      features: context.features,
    },
  };
}

/** The parsed tokens of a stored image (undefined when none, or when stored tokens no longer parse). */
export function storedInfo(existing: StoredImage | undefined): ParsedInfo | undefined {
  if (!existing) return undefined;
  const parsed = parseImageInfo(existing.info);
  return parsed.ok ? parsed.info : undefined;
}

/** Whether a definition (and its file) would leave a stored image exactly as it is. */
function sameAsStored(def: ValidDefinition, file: StoredFile | undefined, existing: StoredImage): boolean {
  return existing.part_id === def.part_id
    && (file === undefined || file.sha256 === existing.sha256)
    && (def.info === undefined || def.info === existing.info)
    && (def.position === undefined || def.position === existing.position);
}

/** Decides one id of DELETE /1/catalog/images: an unknown id is an item error. */
export function decideImageDelete(id: string, existing: StoredImage | undefined): Decision<null> {
  if (!existing) return { kind: 'error', messages: [`image '${id}' does not exist`] };
  return { kind: 'write', value: null, created: false };
}

/** The description a reader gets (spec 4.2): image_id, part_id, info, and position when set. */
export function describeImage(image: StoredImage): ImageDescription {
  const out: ImageDescription = { image_id: image.image_id, part_id: image.part_id, info: image.info };
  if (image.position !== null) out.position = image.position;
  return out;
}

/** The quoted ETag of an original: `"<sha256>"`. */
export function etagOf(sha256: string): string {
  return `"${sha256}"`;
}

/**
 * Whether an `If-None-Match` header value matches the ETag (RFC 9110 §13.1.2: weak comparison,
 * a list of tags, or `*`).
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((raw) => {
    const tag = raw.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}
