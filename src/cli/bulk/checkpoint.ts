/**
 * The resume checkpoint of a bulk import (`--resume`, cli.md): which batches of an input are done.
 * Stored as JSON next to the input, replaced atomically (temp file + rename) after each batch, and
 * small whatever the input size: the highest batch index up to which all are done, plus the few
 * finished out of order (concurrent batches).
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';

/** What identifies the input a checkpoint belongs to. Any difference starts a fresh checkpoint. */
export interface CheckpointInput {
  /** The input path as given (resolved or not: it is compared as a string). */
  inputPath: string;
  /** Size of the input in bytes (fs.stat size). */
  inputSize: number;
  /** Modification time of the input in milliseconds (fs.stat mtimeMs). */
  inputMtimeMs: number;
  /** Items per batch; batch indexes mean other rows under another size, so it is part of the identity. */
  batchSize?: number;
}

/** The file's shape (version 1). */
interface CheckpointFile {
  version: 1;
  input: CheckpointInput;
  /** Every batch index ≤ this is done; -1 when none. */
  doneThrough: number;
  /** Done batch indexes above doneThrough + 1, ascending. */
  doneAbove: number[];
  updatedAt: string;
}

function sameInput(a: CheckpointInput, b: CheckpointInput): boolean {
  return a.inputPath === b.inputPath && a.inputSize === b.inputSize && a.inputMtimeMs === b.inputMtimeMs && (a.batchSize ?? null) === (b.batchSize ?? null);
}

function parseFile(text: string): CheckpointFile | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<CheckpointFile>;
  const input = v.input;
  if (v.version !== 1 || typeof input !== 'object' || input === null) return undefined;
  if (typeof input.inputPath !== 'string' || typeof input.inputSize !== 'number' || typeof input.inputMtimeMs !== 'number') return undefined;
  if (typeof v.doneThrough !== 'number' || !Number.isInteger(v.doneThrough) || v.doneThrough < -1) return undefined;
  if (!Array.isArray(v.doneAbove) || !v.doneAbove.every((n) => Number.isInteger(n))) return undefined;
  return v as CheckpointFile;
}

/**
 * Default checkpoint path for an input file: `<input>.checkpoint.json` (e.g. `parts.csv.checkpoint.json`).
 * stdin cannot be resumed; callers reject `--resume` with `-`.
 */
export function defaultCheckpointPath(inputPath: string): string {
  return `${inputPath}.checkpoint.json`;
}

/**
 * A resume checkpoint. Use: `const cp = await Checkpoint.open(path, input)`; skip batches where
 * `cp.isDone(i)`; `await cp.markDone(i)` after a batch is written; `await cp.remove()` when the import
 * completed. Batch indexes are 0-based integers.
 */
export class Checkpoint {
  private doneThrough: number;
  private readonly doneAbove: Set<number>;
  private writing: Promise<void> = Promise.resolve();
  private removed = false;

  private constructor(
    /** Where the checkpoint is stored. */
    readonly path: string,
    private readonly input: CheckpointInput,
    state: { doneThrough: number; doneAbove: number[] },
    /** True when a checkpoint of the same input was found, i.e. this run resumes. */
    readonly resumed: boolean,
  ) {
    this.doneThrough = state.doneThrough;
    this.doneAbove = new Set(state.doneAbove);
  }

  /**
   * Loads the checkpoint at `path` if it belongs to `input` (same path, size, mtime, batch size);
   * otherwise (missing, unreadable, corrupt, or another input) starts empty. Writes nothing until
   * the first {@link markDone}.
   *
   * @throws only on an I/O error other than a missing file (e.g. EACCES).
   */
  static async open(path: string, input: CheckpointInput): Promise<Checkpoint> {
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const file = text === undefined ? undefined : parseFile(text);
    if (file !== undefined && sameInput(file.input, input)) {
      return new Checkpoint(path, { ...input }, { doneThrough: file.doneThrough, doneAbove: file.doneAbove }, true);
    }
    return new Checkpoint(path, { ...input }, { doneThrough: -1, doneAbove: [] }, false);
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
   * @throws RangeError for a negative or non-integer index; the I/O error when the file cannot be written.
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
    await this.writing;
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
      const file: CheckpointFile = {
        version: 1,
        input: this.input,
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
