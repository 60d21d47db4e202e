/**
 * One upload request in progress (api-spec.md §4.2, api-decisions.md §4, §9): the HTTP route drives
 * it part by part as the multipart body streams in, the local client from files on disk:
 * `setDefinitions` (the `images` part, whenever it comes), `addFile` per file (streamed straight into
 * the BlobStore: written, fsynced and renamed BEFORE any metadata commits), then `commit` (one
 * metadata transaction) or `abort`. Nothing of a request is held in memory but its definitions and
 * one chunk of one file (small files: a few, stored concurrently).
 */
import { errors } from '../../api/errors.js';
import type { BulkWriteResult, Principal } from '../../api/schemas.js';
import { canSetPosition } from '../permissions.js';
import { addErrors } from '../validation.js';
import { UPLOAD_MODES, type UploadMode, type UploadOptions } from '../../api/image-schemas.js';
import { checkDefinitions, matchFile, normalizeFilename, storedInfo, type StoredFile, type ValidDefinition } from './definitions.js';
import type { ServiceContext } from '../context.js';
import type { StoredImage } from '../model.js';
import type { ImageFeatureIndexer, ImageStore } from '../ports.js';
import type { BlobGate } from './blob-gate.js';
import type { UploadedImage, UploadedImageOutcomes, UploadedImageWrites } from './upload-writes.js';
import type { ImageLimits } from './limits.js';

/** One file of an upload: its multipart filename and its bytes. */
export interface UploadInput {
  filename: string;
  /** The bytes; an async iterable is consumed once (and returned early only on an I/O error). */
  source: AsyncIterable<Uint8Array> | Uint8Array;
  /** True when the transport cut the file at `maxFileBytes` (multipart `limits.fileSize`). */
  truncated?: () => boolean;
}


/** A file of the session after its bytes went by: stored, or rejected with a message. */
type FileOutcome = { filename: string; stored: StoredFile } | { filename: string; error: string };


/**
 * What an upload session needs of its image service (ImageService implements it): the limits, the
 * stores, the blob gate, and the two per-file steps (store the bytes; compute search features).
 */
export interface UploadHost {
  readonly limits: ImageLimits;
  readonly context: ServiceContext;
  readonly store: ImageStore;
  readonly indexer: ImageFeatureIndexer | undefined;
  readonly gate: BlobGate;
  /** Stores one file's bytes; never throws for an item-level problem (too large, not an image). */
  storeFile(file: UploadInput): Promise<{ stored: StoredFile } | { error: string }>;
  /** Writes the upload's metadata in one write (upload-writes.ts); 503 in maintenance mode. */
  writeUploadedImages(principal: Principal, request: UploadedImageWrites): Promise<UploadedImageOutcomes>;
  /** Computes search features for a definition (the indexer hook), or an item error. */
  features(def: ValidDefinition, file: StoredFile | undefined, existing: StoredImage | undefined): Promise<{ features: Uint8Array | null | undefined } | { error: string }>;
}

/**
 * One upload request in progress (see the module comment). Not reusable: commit or abort once.
 * Files may come before or after the definitions; when the definitions are known, a file that
 * matches none is not stored at all.
 */
export class UploadSession {
  private readonly service: UploadHost;
  private readonly principal: Principal;
  private readonly mayPosition: boolean;
  private readonly mode: UploadMode;
  private definitions: ReturnType<typeof checkDefinitions> | undefined;
  /** Ids of the definitions that passed validation. */
  private ids: Set<string> | undefined;
  /** Ids of every definition, rejected ones included (their files are matched, then dropped). */
  private allIds: Set<string> | undefined;
  private readonly files: FileOutcome[] = [];
  /** Keys pinned by this session's puts (one entry per put). */
  private readonly pinned: string[] = [];
  private readonly fileErrors: Record<string, string[]> = {};
  /** Stores of small files still running (see addFile). */
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown;
  private done = false;

  /** `options.mode`: see {@link UploadMode} (default `upsert`, spec 4.2); anything else is a 400. */
  constructor(service: UploadHost, principal: Principal, options: UploadOptions = {}) {
    this.service = service;
    this.principal = principal;
    this.mayPosition = canSetPosition(principal);
    const mode: unknown = options.mode ?? 'upsert';
    if (!UPLOAD_MODES.includes(mode as UploadMode)) throw errors.badRequest(`mode: must be one of ${UPLOAD_MODES.join(', ')} (got '${String(mode).slice(0, 50)}')`);
    this.mode = mode as UploadMode;
  }

  /** Whether the `images` part has been given. */
  get hasDefinitions(): boolean {
    return this.definitions !== undefined;
  }

  /** The `images` part (JSON already parsed). 400 when not an array or given twice; 413 over the limit. */
  setDefinitions(body: unknown): void {
    if (this.definitions) throw errors.badRequest("the part 'images' may appear only once");
    this.definitions = checkDefinitions(body, this.service.limits.maxDefinitions, this.mayPosition);
    this.ids = new Set(this.definitions.flatMap((d) => ('definition' in d ? [d.definition.image_id] : [])));
    this.allIds = new Set(this.definitions.map((d) => d.key));
  }

  /** An item error for a file the transport already refused (e.g. a part that is not named `files`). */
  rejectFile(filename: string, message: string): void {
    addErrors(this.fileErrors, normalizeFilename(filename) || '(no filename)', [message]);
  }

  /**
   * Streams one `files` part into the BlobStore (or, when the definitions are known and it matches
   * none, reads and drops it). Item-level problems are recorded for {@link commit}; only I/O errors
   * throw.
   */
  async addFile(file: UploadInput): Promise<void> {
    if (this.done) throw new Error('upload session already finished');
    const id = this.allIds ? matchFile(file.filename, this.allIds) : undefined;
    if (this.ids && this.allIds && (id === undefined || !this.ids.has(id))) {
      // Matches no definition, or one already rejected (whose errors say why): not stored.
      await discard(file.source);
      this.files.push({ filename: file.filename, error: '' });
      return;
    }
    // Small files are read whole and stored while the next ones arrive: their fsyncs overlap
    // (bounded: MAX_PARALLEL_PUTS files of at most SMALL_FILE_BYTES each are held). Larger files
    // stream straight through.
    while (this.inFlight.size >= MAX_PARALLEL_PUTS) await Promise.race(this.inFlight);
    if (this.failure !== undefined) throw this.failure;
    const prefix = await readPrefix(file.source, SMALL_FILE_BYTES);
    const input: UploadInput = { filename: file.filename, source: prefix.source, ...(file.truncated ? { truncated: file.truncated } : {}) };
    if (!prefix.complete) {
      await this.store(input);
      return;
    }
    const task: Promise<void> = this.store(input)
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.inFlight.delete(task);
      });
    this.inFlight.add(task);
  }

  private async store(input: UploadInput): Promise<void> {
    const outcome = await this.service.storeFile(input);
    if ('stored' in outcome) {
      this.pinned.push(outcome.stored.sha256);
      this.files.push({ filename: input.filename, stored: outcome.stored });
    } else {
      this.files.push({ filename: input.filename, error: outcome.error });
    }
  }

  /** Waits for the stores still running; rethrows the first I/O error among them. */
  private async settle(): Promise<void> {
    await Promise.all(this.inFlight);
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Matches files to definitions, validates, writes the metadata in one transaction, and returns
   * `{created, updated, errors}` (spec 4.2, §7). 400 when no `images` part was given.
   */
  async commit(): Promise<BulkWriteResult> {
    if (this.done) throw new Error('upload session already finished');
    await this.settle();
    const definitions = this.definitions;
    if (!definitions || !this.ids || !this.allIds) {
      throw errors.badRequest("the upload needs a part named 'images': a JSON array of image definitions {image_id, part_id, info, position?}");
    }
    this.done = true;
    const result: BulkWriteResult = { created: [], updated: [], errors: {} };
    const service = this.service;
    const unused = new Set<string>();
    const indexed: string[] = [];
    try {
      // Files to definitions (decisions §4).
      const fileOf = new Map<string, FileOutcome>();
      const fileProblems = new Map<string, string>();
      for (const outcome of this.files) {
        const id = matchFile(outcome.filename, this.allIds);
        if ('stored' in outcome) unused.add(outcome.stored.sha256);
        if (id !== undefined && !this.ids.has(id)) continue; // its definition was rejected
        if (id === undefined) {
          const name = normalizeFilename(outcome.filename) || '(no filename)';
          addErrors(result.errors, name, [`file '${name}' matches no image definition (a file belongs to the definition whose image_id is its filename, or its filename without the extension)`]);
        } else if (fileOf.has(id)) {
          fileProblems.set(id, `more than one file for image '${id}'`);
        } else {
          fileOf.set(id, outcome);
        }
      }
      for (const [key, messages] of Object.entries(this.fileErrors)) addErrors(result.errors, key, messages);

      // Per definition: validation errors, file errors, then search features (the indexer hook).
      const writes: UploadedImage[] = [];
      // The stored images matter here to the indexer (which bytes to index), to definitions that
      // keep the stored info, and to create-only uploads (an existing id is not indexed again).
      const needStored = service.indexer !== undefined || this.mode === 'create' || definitions.some((d) => 'definition' in d && d.definition.info === undefined);
      const existing = new Map(needStored ? (await service.store.getImages([...this.ids])).map((i) => [i.image_id, i]) : []);
      for (const checked of definitions) {
        if ('messages' in checked) {
          addErrors(result.errors, checked.key, checked.messages);
          continue;
        }
        const def = checked.definition;
        const outcome = fileOf.get(def.image_id);
        const problem = fileProblems.get(def.image_id) ?? (outcome && 'error' in outcome ? outcome.error : undefined);
        if (problem !== undefined) {
          addErrors(result.errors, def.image_id, [problem]);
          continue;
        }
        const file = outcome && 'stored' in outcome ? outcome.stored : undefined;
        const stored = existing.get(def.image_id);
        if (this.mode === 'create' && stored) {
          // Refused or unchanged (decideImageUpsert): its search features stay as they are.
          writes.push({ def, file, features: undefined });
          continue;
        }
        const features = await service.features(def.parsed ? def : { ...def, parsed: storedInfo(stored) }, file, stored);
        if ('error' in features) {
          addErrors(result.errors, def.image_id, [features.error]);
          continue;
        }
        if (service.indexer && features.features) indexed.push(def.image_id);
        writes.push({ def, file, features: features.features });
      }

      // One metadata write: the files are already durable (blob written, fsynced, renamed).
      const { outcomes, replaced } = await service.writeUploadedImages(this.principal, { images: writes, mode: this.mode });
      const written = new Set<string>();
      writes.forEach((w, i) => {
        const outcome = outcomes[i];
        if (!outcome || outcome.kind === 'skip') return;
        if (outcome.kind === 'error') {
          addErrors(result.errors, w.def.image_id, outcome.messages);
          return;
        }
        written.add(w.def.image_id);
        if (w.file) unused.delete(w.file.sha256);
        (outcome.created ? result.created : result.updated).push(w.def.image_id);
      });
      service.gate.release([...unused, ...replaced]);
      if (service.indexer) {
        for (const id of indexed) if (!written.has(id)) await service.indexer.remove(id);
        for (const w of writes) if (written.has(w.def.image_id) && w.features === null) await service.indexer.remove(w.def.image_id);
      }
    } catch (error) {
      // Nothing committed: every blob this session put is a candidate again.
      for (const outcome of this.files) if ('stored' in outcome) unused.add(outcome.stored.sha256);
      service.gate.release(unused);
      throw error;
    } finally {
      service.gate.unpin(this.pinned);
      this.pinned.length = 0;
    }
    await service.gate.drain();
    return result;
  }

  /** Abandons the upload: nothing is committed; the blobs it stored are released. Idempotent. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await Promise.allSettled([...this.inFlight]);
    this.service.gate.release(this.files.flatMap((f) => ('stored' in f ? [f.stored.sha256] : [])));
    this.service.gate.unpin(this.pinned);
    this.pinned.length = 0;
    await this.service.gate.drain();
  }
}

/** Files up to this size are read into memory and stored concurrently with the next ones. */
const SMALL_FILE_BYTES = 256 * 1024;
/** How many such stores one upload keeps running at once. */
const MAX_PARALLEL_PUTS = 8;

/**
 * Reads up to `max` bytes of a source. `complete`: the whole file, as one buffer. Otherwise a source
 * that yields what was read and then the rest (stopping it early returns the underlying iterator).
 */
async function readPrefix(source: AsyncIterable<Uint8Array> | Uint8Array, max: number): Promise<{ complete: boolean; source: AsyncIterable<Uint8Array> | Uint8Array }> {
  if (source instanceof Uint8Array) return { complete: true, source };
  const iterator = source[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await iterator.next();
    if (next.done === true) return { complete: true, source: chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, size) };
    chunks.push(next.value);
    size += next.value.length;
    if (size > max) break;
  }
  async function* rest(): AsyncGenerator<Uint8Array, void, undefined> {
    let finished = false;
    try {
      yield* chunks;
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) break;
        yield next.value;
      }
      finished = true;
    } finally {
      if (!finished) await iterator.return?.();
    }
  }
  return { complete: false, source: rest() };
}

/** Reads a source to its end without keeping it (a file no definition wants). */
async function discard(source: AsyncIterable<Uint8Array> | Uint8Array): Promise<void> {
  if (source instanceof Uint8Array) return;
  for await (const _chunk of source) {
    // dropped
  }
}
