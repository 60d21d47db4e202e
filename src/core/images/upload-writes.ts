/**
 * The last step of an upload (api-spec.md §4.2, api-decisions.md §4): the metadata of its checked
 * images written in one store write, each decided (decideImageUpsert) against what is stored when
 * the write runs. Plain data in and out, so that `catalog serve` runs it on its writer thread, in
 * arrival order with the other writes and in their transactions (ImageService.writeUploadedImages).
 */
import type { Principal } from '../../api/schemas.js';
import type { UploadMode } from '../../api/image-schemas.js';
import type { Decision, ImageWrite } from '../model.js';
import { canSetPosition } from '../permissions.js';
import type { ImageStore } from '../ports.js';
import { decideImageUpsert, type StoredFile, type ValidDefinition } from './definitions.js';

/** One image of an upload to write: its checked definition, its stored file (if any), its search features. */
export interface UploadedImage {
  def: ValidDefinition;
  file: StoredFile | undefined;
  /** New search features; null: none (not searchable); undefined: keep the stored ones. */
  features: Uint8Array | null | undefined;
}

/** The metadata writes of one upload (ImageService.writeUploadedImages). */
export interface UploadedImageWrites {
  images: UploadedImage[];
  /** `create`: an image already stored is left as it is; `upsert`: replaced. */
  mode: UploadMode;
}

/** What one image's write came to: skipped, refused with messages, or written (created or updated). */
export type UploadedImageOutcome = { kind: 'skip' } | { kind: 'error'; messages: string[] } | { kind: 'write'; created: boolean };

/** The outcomes of {@link UploadedImageWrites}, in order, and the blobs of stored images a write replaced with other bytes. */
export interface UploadedImageOutcomes {
  outcomes: UploadedImageOutcome[];
  replaced: string[];
}

/**
 * Writes `request.images` through `store` in one write at `now` (microseconds) for `principal`
 * (whose role decides whether a `position` is kept: spec §7). Throws what the store throws; item
 * problems are outcomes.
 */
export async function writeUploadedImages(store: ImageStore, principal: Principal, request: UploadedImageWrites, now: number): Promise<UploadedImageOutcomes> {
  const mayPosition = canSetPosition(principal);
  const replaced: string[] = [];
  const byId = new Map(request.images.map((image) => [image.def.image_id, image]));
  const decisions: Decision<ImageWrite>[] = await store.upsertImages(
    request.images.map((image) => ({ image_id: image.def.image_id, part_id: image.def.part_id })),
    (item, stored, partExists) => {
      const image = byId.get(item.image_id);
      if (!image) return { kind: 'skip' };
      const decision = decideImageUpsert(image.def, image.file, stored, partExists, { now, mayPosition, features: image.features, mode: request.mode });
      if (decision.kind === 'write' && stored && stored.sha256 !== decision.value.image.sha256) replaced.push(stored.sha256);
      return decision;
    },
  );
  const outcomes = request.images.map((_image, i): UploadedImageOutcome => {
    const decision = decisions[i];
    if (!decision || decision.kind === 'skip') return { kind: 'skip' };
    if (decision.kind === 'error') return { kind: 'error', messages: decision.messages };
    return { kind: 'write', created: decision.created };
  });
  return { outcomes, replaced };
}
