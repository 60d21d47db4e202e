/**
 * The first stage of an import (read, parse, map) on a second thread (the import's goal
 * needs the machine's second core): ./entries-worker.ts reads and maps the file and sends its rows
 * in blocks; this side turns each block back into rows for the bulk loop, which writes them on the
 * main thread meanwhile. The rows, their order, their lines and every problem are those of the
 * in-thread path (./mapped-entries.ts), which stdin and small files keep.
 *
 * Why JSON text across the thread: one string per block is copied as bytes, and JSON.parse of it on
 * this side costs less than structured clone of the same objects (measured: 100,000 parts 0.12 s
 * against 0.26 s); the records as read, needed only for a row rejected by the service (errors file,
 * messages naming CSV columns), stay text until one is.
 *
 * Memory: at most {@link CREDITS} blocks of at most `blockRows` rows / `blockChars` characters are
 * on their way at once (see the worker's backpressure), plus the block being consumed.
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ReaderMessage, ReaderOptions, ShippedBlock } from './entries-protocol.js';
import { PREPARED_DOCUMENTS, PreparedDictionary, type PreparedPartInput } from '../../core/search/engine/prepared-documents.js';
import { InputReadError } from './input-read-error.js';
import { locationLabel } from './read-records.js';

/** Blocks the reader may send ahead of the main thread. */
export const CREDITS = 3;
/** Rows per block: the bulk loop's largest batch. */
export const BLOCK_ROWS = 1000;
/** Characters of JSON per block at most (a few large rows make a block early). */
export const BLOCK_CHARS = 4 * 1024 * 1024;

/** A row read by the reader thread; `record` is parsed from its block's text when first asked for. */
export interface ThreadRow {
  line: number;
  item?: Record<string, unknown>;
  /** `validate`: the item is valid for the API (false: see `refused`, or a `known` row not validated). */
  validated?: boolean;
  /** With `known`: the rowHash of the item as mapped. */
  hash?: string;
  /** `validate`: the service's schema refuses the item, with this key (the id, or undefined) and messages. */
  refused?: { key: string | undefined; messages: string[] };
  problems?: string[];
  raw?: string;
  readonly record: Record<string, unknown> | undefined;
}

/** The built worker: beside this module in dist/; from the TypeScript sources (tests), the one in dist/. */
export function readerWorkerFile(): string {
  const path = fileURLToPath(new URL('./entries-worker.js', import.meta.url));
  return existsSync(path) ? path : path.replace(`${sep}src${sep}`, `${sep}dist${sep}`);
}

class Block {
  private parsed: (Record<string, unknown> | null)[] | undefined;

  constructor(private readonly text: string) {}

  record(index: number): Record<string, unknown> | undefined {
    this.parsed ??= JSON.parse(this.text) as (Record<string, unknown> | null)[];
    return this.parsed[index] ?? undefined;
  }
}

class ShippedRow implements ThreadRow {
  refused?: { key: string | undefined; messages: string[] };
  hash?: string;

  constructor(
    readonly line: number,
    readonly item: Record<string, unknown>,
    private readonly block: Block,
    private readonly index: number,
    public validated: boolean,
  ) {}

  get record(): Record<string, unknown> | undefined {
    return this.block.record(this.index);
  }
}

/** Options of {@link mapEntriesInThread}. */
export interface ThreadOptions extends Omit<ReaderOptions, 'blockRows' | 'blockChars'> {
  /** The input as the user named it, for messages. */
  inputName: string;
  blockRows?: number;
  blockChars?: number;
  /** The worker script (default {@link readerWorkerFile}; tests give a failing one). */
  workerFile?: string;
  /** Hears the bytes of the input the reader has read so far, with each block. */
  onBytes?: (bytesRead: number) => void;
}

/**
 * The rows of `options.path`, read and mapped on a reader thread, in input order. Leaving the loop
 * early (an interrupt, --max-errors, a failed request) stops the thread.
 *
 * @throws the reader's I/O error, rebuilt with its `code`, `path` and `syscall` (ENOENT, EISDIR,
 *   EACCES ... as the in-thread path throws them); {@link InputReadError} when the thread stops
 *   otherwise, naming the input and the last line read.
 */
export async function* mapEntriesInThread(options: ThreadOptions): AsyncGenerator<ThreadRow> {
  for await (const block of mapBlocksInThread(options)) yield* block;
}

/**
 * {@link mapEntriesInThread} a block at a time: the rows of each block the reader sent, as one
 * array (the bulk loop takes them so: one step of an async iteration per block, not per row).
 *
 * @throws as {@link mapEntriesInThread}.
 */
export async function* mapBlocksInThread(options: ThreadOptions): AsyncGenerator<ThreadRow[]> {
  const { inputName, workerFile, onBytes, ...rest } = options;
  const worker = new Worker(workerFile ?? readerWorkerFile(), {
    workerData: { ...rest, blockRows: options.blockRows ?? BLOCK_ROWS, blockChars: options.blockChars ?? BLOCK_CHARS, credits: CREDITS },
    // The reader keeps nothing but the block it fills: a small young generation keeps its RSS small.
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  });
  const queue: ReaderMessage[] = [];
  /** Why the reader stopped, once its thread has exited (every block it sent is in `queue` by then). */
  let stopped: string | undefined;
  /** The reader's uncaught error, reported when its thread exits. */
  let failure: string | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  let lastLine = 0;
  /** The reader's word dictionary (ShippedBlock.prepared). */
  const dictionary = new PreparedDictionary();
  /** The error of a reader that stopped, naming the last line of the blocks taken (read when thrown: every block before it is taken first). */
  const stoppedError = (reason: string): InputReadError => {
    const where = lastLine > 0 ? `after ${locationLabel(options.format, lastLine)}` : 'before the first row';
    return new InputReadError(`reading ${inputName} stopped ${where}: ${reason}`);
  };
  worker.on('message', (message: ReaderMessage) => {
    queue.push(message);
    notify();
  });
  // An uncaught error arrives on the worker's own channel, possibly before blocks the reader sent
  // earlier; Node delivers those before 'exit', so the stop waits for it.
  worker.on('error', (error: Error) => (failure ??= error.message));
  worker.on('exit', (code) => {
    stopped ??= failure ?? `the reader thread exited (code ${code})`;
    notify();
  });
  try {
    for (;;) {
      const message = queue.shift();
      if (message === undefined) {
        if (stopped !== undefined) throw stoppedError(stopped);
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      if (message.type === 'end') return;
      if (message.type === 'failure') {
        const error = Object.assign(new Error(message.message), message.name !== undefined ? { name: message.name } : {}, message.code !== undefined ? { code: message.code } : {}, message.path !== undefined ? { path: message.path } : {}, message.syscall !== undefined ? { syscall: message.syscall } : {}, message.errno !== undefined ? { errno: message.errno } : {});
        throw error;
      }
      worker.postMessage({ credit: 1 });
      onBytes?.(message.bytesRead);
      yield [...rowsOf(message, dictionary)];
      lastLine = message.lines[message.lines.length - 1] ?? lastLine;
    }
  } finally {
    worker.removeAllListeners('exit');
    worker.removeAllListeners('error');
    await worker.terminate();
  }
}

/** The rows of a block; `dictionary`: the reader's, which the block's new words join. */
function* rowsOf(message: ShippedBlock, dictionary: PreparedDictionary): Generator<ThreadRow> {
  const items = JSON.parse(message.items) as (Record<string, unknown> | null)[];
  const block = new Block(message.records);
  let next = 0;
  let nextRefused = 0;
  let nextKnown = 0;
  const validated = message.validated;
  const prepared = message.prepared;
  const documents = prepared !== undefined ? dictionary.block(prepared) : undefined;
  for (let i = 0; i < message.lines.length; i++) {
    const line = message.lines[i] ?? 0;
    const rejected = message.rejected[next];
    if (rejected !== undefined && rejected.index === i) {
      next++;
      yield { line, problems: rejected.problems, record: rejected.record, ...(rejected.raw !== undefined ? { raw: rejected.raw } : {}) };
      continue;
    }
    const item = items[i] ?? {};
    const at = prepared?.offsets[i] ?? -1;
    // The writer's store uses them for a new part while the definitions are these (prepared-documents.ts).
    if (documents !== undefined && prepared !== undefined && at >= 0) (item as PreparedPartInput)[PREPARED_DOCUMENTS] = { definitions: prepared.definitions, block: documents, at };
    const row = new ShippedRow(line, item, block, i, validated);
    const hash = message.hashes?.[i];
    if (hash !== undefined) row.hash = hash;
    if (message.knownRows?.[nextKnown] === i) {
      nextKnown++;
      row.validated = false;
    }
    const refused = message.refused[nextRefused];
    if (refused !== undefined && refused.index === i) {
      nextRefused++;
      row.refused = { key: refused.key ?? undefined, messages: refused.messages };
    }
    yield row;
  }
}

/** Files from this size up are read on a reader thread (smaller ones take less time than the thread's start-up). */
export const THREAD_MIN_BYTES = 1024 * 1024;

/**
 * Whether to read `path` on a reader thread: `CATALOG_IMPORT_THREAD` = `1` always, `0` never
 * (both for tests and measurements), else when the file has {@link THREAD_MIN_BYTES} or more.
 * A file that cannot be stat'ed is left to the in-thread path, which explains the error.
 */
export async function readerThreadWanted(setting: string | undefined, path: string): Promise<boolean> {
  if (setting === '1') return true;
  if (setting === '0') return false;
  try {
    return (await stat(path)).size >= THREAD_MIN_BYTES;
  } catch {
    return false;
  }
}
