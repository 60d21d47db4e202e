/**
 * The resume checkpoint of a bulk import (`--resume`, cli.md): which batches of an input are done,
 * and exactly which run they belong to. Stored as JSON next to the input, replaced atomically (temp
 * file + rename) after each batch, and small whatever the input size: the highest batch index up to
 * which all are done, plus the few finished out of order (concurrent batches).
 *
 * A checkpoint is bound (design/cli.md, "Conventions") to
 * - its input: path, size, modification time and a hash of the first block (so an edited or
 *   replaced file with the same size and time is noticed too);
 * - its options: whatever decides which rows make up batch n (format, batch size, batch bytes,
 *   the directory files are found in ...);
 * - its target: the catalog's identity (GET /1/catalog/info) and the data directory or server URL.
 * `--resume` with any difference is refused (exit 2) naming each difference, and the checkpoint is
 * kept: skipping batches of another run would silently lose their rows.
 */
import { createHash, randomBytes } from 'node:crypto';
import { open as openFile, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';

/** Bytes of the input hashed into its identity (the header and the first rows of a CSV). */
export const HEAD_BYTES = 64 * 1024;

/** What identifies the input file. */
export interface CheckpointInput {
  /** The input path (absolute). */
  path: string;
  /** Size in bytes (fs.stat size). */
  size: number;
  /** Modification time in milliseconds (fs.stat mtimeMs). */
  mtimeMs: number;
  /** SHA-256 (hex) of the first {@link HEAD_BYTES} bytes. */
  headSha256: string;
}

/** The options that decide the batches, by name (`batchSize`, `format`, `dir` ...); compared one by one. */
export type CheckpointOptions = Readonly<Record<string, string | number | boolean | null>>;

/** Where the batches were written: the catalog's identity and how it was reached. */
export interface CheckpointTarget {
  /** The catalog's UUID (GET /1/catalog/info). */
  catalogId: string;
  /** The server URL in remote mode, else undefined. */
  remote?: string | undefined;
  /** The data directory (absolute) in local mode, else undefined. */
  dataDir?: string | undefined;
}

/** Everything a checkpoint is bound to. */
export interface CheckpointIdentity {
  input: CheckpointInput;
  options: CheckpointOptions;
  target: CheckpointTarget;
}

/** The file's shape (version 2; version 1 files, bound to the input only, are never resumed). */
interface CheckpointFile {
  version: 2;
  identity: CheckpointIdentity;
  /** Every batch index ≤ this is done; -1 when none. */
  doneThrough: number;
  /** Done batch indexes above doneThrough + 1, ascending. */
  doneAbove: number[];
  updatedAt: string;
}

/** Reads the identity of an input file: stat plus the hash of its first block. @throws the I/O error (ENOENT ...). */
export async function describeInput(path: string): Promise<CheckpointInput> {
  const info = await stat(path);
  const handle = await openFile(path, 'r');
  try {
    const head = Buffer.alloc(Math.min(HEAD_BYTES, info.size));
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return { path, size: info.size, mtimeMs: info.mtimeMs, headSha256: createHash('sha256').update(head.subarray(0, bytesRead)).digest('hex') };
  } finally {
    await handle.close();
  }
}

function where(target: CheckpointTarget): string {
  return target.remote !== undefined ? `server ${target.remote}` : `data directory ${target.dataDir ?? '?'}`;
}

function shown(value: unknown): string {
  return value === undefined || value === null ? '(none)' : typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * What differs between a stored identity and the current run, one line per difference
 * (`input size: checkpoint 1,234 bytes, now 999 bytes`); empty when they match. `current.target`
 * may lack the catalog id when the location already differs (the catalog is then not asked).
 */
export function identityDifferences(stored: CheckpointIdentity, current: Omit<CheckpointIdentity, 'target'> & { target: Partial<CheckpointTarget> }): string[] {
  const out: string[] = [];
  const s = stored.input;
  const c = current.input;
  if (s.path !== c.path) out.push(`input file: checkpoint ${s.path}, now ${c.path}`);
  if (s.size !== c.size) out.push(`input size: checkpoint ${s.size.toLocaleString('en-US')} bytes, now ${c.size.toLocaleString('en-US')} bytes`);
  if (s.mtimeMs !== c.mtimeMs) out.push(`input modified: checkpoint ${new Date(s.mtimeMs).toISOString()}, now ${new Date(c.mtimeMs).toISOString()}`);
  if (s.headSha256 !== c.headSha256) out.push(`input content: the first ${HEAD_BYTES / 1024} KiB differ`);
  for (const key of [...new Set([...Object.keys(stored.options), ...Object.keys(current.options)])].sort()) {
    const a = stored.options[key];
    const b = current.options[key];
    if ((a ?? null) !== (b ?? null)) out.push(`option ${key}: checkpoint ${shown(a)}, now ${shown(b)}`);
  }
  const st = stored.target;
  const ct = current.target;
  if (st.remote !== ct.remote || st.dataDir !== ct.dataDir) out.push(`target: checkpoint ${where(st)}, now ${where({ catalogId: '', ...ct })}`);
  else if (ct.catalogId !== undefined && st.catalogId !== ct.catalogId) out.push(`catalog: checkpoint ${st.catalogId}, now ${ct.catalogId} (another catalog at the same ${st.remote !== undefined ? 'URL' : 'path'})`);
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a checkpoint file; a string says why it is not one this version can resume. */
function parseFile(text: string): CheckpointFile | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not valid JSON';
  }
  if (!isRecord(value)) return 'not a checkpoint';
  if (value.version !== 2) return `written by an older version of catalog (checkpoint version ${shown(value.version)})`;
  const identity = value.identity;
  if (!isRecord(identity) || !isRecord(identity.input) || !isRecord(identity.options) || !isRecord(identity.target)) return 'no identity';
  const input = identity.input;
  if (typeof input.path !== 'string' || typeof input.size !== 'number' || typeof input.mtimeMs !== 'number' || typeof input.headSha256 !== 'string') return 'a malformed input identity';
  if (typeof identity.target.catalogId !== 'string') return 'a malformed target';
  const doneThrough = value.doneThrough;
  if (typeof doneThrough !== 'number' || !Number.isInteger(doneThrough) || doneThrough < -1) return 'a malformed batch record';
  if (!Array.isArray(value.doneAbove) || !value.doneAbove.every((n) => Number.isInteger(n))) return 'a malformed batch record';
  return value as unknown as CheckpointFile;
}

/** What {@link Checkpoint.inspect} finds at a path. */
export type StoredCheckpoint =
  | { state: 'missing' }
  | { state: 'unusable'; reason: string }
  | { state: 'found'; identity: CheckpointIdentity; doneCount: number; file: CheckpointFile };

/**
 * Default checkpoint path for an input file: `<input>.checkpoint.json` (e.g. `parts.csv.checkpoint.json`).
 * stdin cannot be resumed; `--resume` with `-` is a usage error.
 */
export function defaultCheckpointPath(inputPath: string): string {
  return `${inputPath}.checkpoint.json`;
}

/**
 * A resume checkpoint. Use: `Checkpoint.inspect(path)` to see what is stored; `Checkpoint.fresh(...)`
 * or `Checkpoint.resume(...)`; skip batches where `cp.isDone(i)`; `await cp.markDone(i)` after a
 * batch is written; `await cp.remove()` when the import completed. Batch indexes are 0-based.
 */
export class Checkpoint {
  private doneThrough: number;
  private readonly doneAbove: Set<number>;
  private writing: Promise<void> = Promise.resolve();
  private removed = false;
  private target: Promise<CheckpointTarget> | undefined;

  private constructor(
    /** Where the checkpoint is stored. */
    readonly path: string,
    private readonly identity: Omit<CheckpointIdentity, 'target'>,
    private readonly resolveTarget: () => Promise<CheckpointTarget>,
    state: { doneThrough: number; doneAbove: number[] },
    /** True when this run continues a stored checkpoint. */
    readonly resumed: boolean,
  ) {
    this.doneThrough = state.doneThrough;
    this.doneAbove = new Set(state.doneAbove);
  }

  /**
   * Reads the checkpoint at `path` without changing it.
   * @throws only on an I/O error other than a missing file (e.g. EACCES).
   */
  static async inspect(path: string): Promise<StoredCheckpoint> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
      throw error;
    }
    const file = parseFile(text);
    if (typeof file === 'string') return { state: 'unusable', reason: file };
    return { state: 'found', identity: file.identity, doneCount: file.doneThrough + 1 + file.doneAbove.length, file };
  }

  /**
   * A new checkpoint (nothing done). Writes nothing until the first {@link markDone}, which replaces
   * whatever is stored at `path`. `target` is asked once, before that first write (so a run never
   * reads from a catalog before it has written to it).
   */
  static fresh(path: string, identity: Omit<CheckpointIdentity, 'target'>, target: () => Promise<CheckpointTarget>): Checkpoint {
    return new Checkpoint(path, identity, target, { doneThrough: -1, doneAbove: [] }, false);
  }

  /** Continues the stored checkpoint `stored` (which the caller found identical to this run's identity). */
  static resume(path: string, stored: Extract<StoredCheckpoint, { state: 'found' }>): Checkpoint {
    const { input, options, target } = stored.identity;
    return new Checkpoint(path, { input, options }, () => Promise.resolve(target), { doneThrough: stored.file.doneThrough, doneAbove: stored.file.doneAbove }, true);
  }

  /** Whether batch `batchIndex` was recorded as done. */
  isDone(batchIndex: number): boolean {
    return batchIndex <= this.doneThrough || this.doneAbove.has(batchIndex);
  }

  /** How many batches are recorded as done. */
  get doneCount(): number {
    return this.doneThrough + 1 + this.doneAbove.size;
  }

  /**
   * Records batch `batchIndex` as done and persists the checkpoint atomically (temp file + rename).
   * Safe to call concurrently: writes are serialised and the promise resolves once a write that
   * includes this batch has landed.
   *
   * @throws RangeError for a negative or non-integer index; the I/O error when the file cannot be
   *   written; the target's error when the catalog cannot say who it is.
   */
  async markDone(batchIndex: number): Promise<void> {
    if (!Number.isInteger(batchIndex) || batchIndex < 0) throw new RangeError(`batch index must be an integer >= 0, got ${batchIndex}`);
    if (this.isDone(batchIndex)) return this.writing;
    this.doneAbove.add(batchIndex);
    while (this.doneAbove.has(this.doneThrough + 1)) {
      this.doneThrough += 1;
      this.doneAbove.delete(this.doneThrough);
    }
    return this.persist();
  }

  /** Waits for pending writes (e.g. before exiting on Ctrl-C). */
  async flush(): Promise<void> {
    await this.writing.catch(() => undefined);
  }

  /** Deletes the checkpoint file (after a complete import); later markDone calls write nothing. */
  async remove(): Promise<void> {
    this.removed = true;
    await this.writing.catch(() => undefined);
    await rm(this.path, { force: true });
  }

  private persist(): Promise<void> {
    const next = this.writing.catch(() => undefined).then(async () => {
      if (this.removed) return;
      this.target ??= this.resolveTarget();
      const file: CheckpointFile = {
        version: 2,
        identity: { ...this.identity, target: await this.target },
        doneThrough: this.doneThrough,
        doneAbove: [...this.doneAbove].sort((a, b) => a - b),
        updatedAt: new Date().toISOString(),
      };
      const temp = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        await writeFile(temp, `${JSON.stringify(file)}\n`, 'utf8');
        await rename(temp, this.path);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    });
    this.writing = next;
    return next;
  }
}
