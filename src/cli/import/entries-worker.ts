/**
 * The reader thread of a bulk import (./entries-thread.ts starts it): reads the input file, parses
 * and maps every row exactly as the in-thread path does (./mapped-entries.ts `mapEntries`), and
 * sends the rows to the main thread in blocks, while the main thread writes the previous ones.
 *
 * Backpressure: the thread starts with a few credits and spends one per block sent; the main
 * thread returns a credit when it takes a block. So at most `credits` blocks of at most
 * `blockRows` rows / `blockChars` characters (plus the row being read) exist at once, whatever the
 * file holds; reading pauses, and the file stream with it, while no credit is left.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PartInputSchema } from '../../api/schemas.js';
import { definitionsKey, PreparedDocumentsPacker, preparePartDocuments } from '../../core/search/engine/prepared-documents.js';
import { validateBulkItem } from '../../core/validation.js';
import { rowTextHash } from '../sync/row-hash.js';
import { isTombstone } from '../commands/changes/delta.js';
import { DICTIONARY_WORDS, type CreditMessage, type ReaderMessage, type ReaderOptions, type ShippedBlock, type ShippedRefusal, type ShippedRejection } from './entries-protocol.js';
import { CSV_MAPPERS, ID_FIELDS, mapEntries } from './mapped-entries.js';

const port = parentPort;
if (port === null) throw new Error('entries-worker.ts runs as a worker thread only');
const options = workerData as ReaderOptions & { credits: number };
/** Search documents are prepared for the writer with these definitions (ReaderOptions.definitions). */
const definitions = options.validate === true && options.definitions !== undefined ? new Map(options.definitions.map((a) => [a.attribute_id, a])) : undefined;
const definitionsText = definitions !== undefined ? definitionsKey(definitions.values()) : '';
/** Packs the documents of each block (a word crosses the thread once: see prepared-documents.ts). */
const packer = new PreparedDocumentsPacker(DICTIONARY_WORDS);
/** A sync's rows known to equal the stored part (ReaderOptions.known). */
const known = options.known !== undefined ? new Set(options.known) : undefined;

let credits = options.credits;
let wake: (() => void) | undefined;
port.on('message', (message: CreditMessage) => {
  credits += message.credit;
  wake?.();
  wake = undefined;
});

const send = (message: ReaderMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

async function run(): Promise<void> {
  let lines: number[] = [];
  let items: string[] = [];
  let records: string[] = [];
  let rejected: ShippedRejection[] = [];
  let refused: ShippedRefusal[] = [];
  let offsets: number[] = [];
  let hashes: string[] = [];
  let knownRows: number[] = [];
  let chars = 0;
  let bytesRead = 0;
  const flush = async (): Promise<void> => {
    if (lines.length === 0) return;
    while (credits <= 0) await new Promise<void>((resolve) => (wake = resolve));
    credits -= 1;
    const block: ShippedBlock = { type: 'block', lines, items: `[${items.join(',')}]`, records: `[${records.join(',')}]`, rejected, refused, validated: options.validate === true, bytesRead, ...(known !== undefined ? { hashes, knownRows } : {}) };
    if (definitions !== undefined) {
      const packed = packer.take();
      block.prepared = { ...packed, offsets: Int32Array.from(offsets), definitions: definitionsText };
      // Moved, not copied: the arrays are the writer's now.
      send(block, [packed.ints.buffer as ArrayBuffer, block.prepared.offsets.buffer as ArrayBuffer]);
    } else send(block);
    lines = [];
    items = [];
    records = [];
    rejected = [];
    refused = [];
    offsets = [];
    hashes = [];
    knownRows = [];
    chars = 0;
  };
  for await (const entry of mapEntries({ path: options.path, onBytes: (n) => (bytesRead += n) }, options.format, CSV_MAPPERS[options.mapper], options.readOnly, { fields: ID_FIELDS[options.mapper], replacements: options.idReplace ?? [] })) {
    if ('problems' in entry) {
      rejected.push({ index: lines.length, problems: entry.problems, ...(entry.record !== undefined ? { record: entry.record } : {}), ...(entry.raw !== undefined ? { raw: entry.raw } : {}) });
      items.push('null');
      records.push('null');
      if (definitions !== undefined) offsets.push(-1);
      if (known !== undefined) hashes.push('');
      chars += 8 + (entry.raw?.length ?? 0);
    } else {
      let shipped: unknown = entry.item;
      const mapped = known !== undefined ? JSON.stringify(entry.item) : undefined;
      const hash = mapped !== undefined ? rowTextHash(mapped) : '';
      const isKnown = known?.has(hash) === true;
      if (known !== undefined) hashes.push(hash);
      if (isKnown) knownRows.push(lines.length);
      // A tombstone of a delta is a deletion: not a part to validate, sent as it is.
      if (options.validate === true && !isKnown && !isTombstone(entry.item, 'part_id')) {
        // The service's own schema pass, here instead of on the writing thread (same messages and key).
        const checked = validateBulkItem(PartInputSchema, entry.item, 'part_id');
        let at = -1;
        if ('item' in checked) {
          shipped = checked.item;
          // The writer's CPU is the import's bottleneck; this thread has time to spare.
          const documents = definitions !== undefined ? preparePartDocuments(checked.item, definitions) : undefined;
          if (documents !== undefined) at = packer.add(documents);
        } else refused.push({ index: lines.length, key: checked.key ?? null, messages: checked.messages });
        if (definitions !== undefined) offsets.push(at);
      } else if (definitions !== undefined) offsets.push(-1);
      const item = shipped === entry.item && mapped !== undefined ? mapped : JSON.stringify(shipped);
      const record = JSON.stringify(entry.record);
      items.push(item);
      records.push(record);
      chars += item.length + record.length + 2;
    }
    lines.push(entry.line);
    // Packed documents count by their bytes: a part with thousands of words makes a block early too.
    if (lines.length >= options.blockRows || chars + packer.packedBytes >= options.blockChars) await flush();
  }
  await flush();
  send({ type: 'end' });
}

run().catch((error: unknown) => {
  const e = error as NodeJS.ErrnoException;
  send({
    type: 'failure',
    message: e instanceof Error ? e.message : String(error),
    ...(typeof e.name === 'string' ? { name: e.name } : {}),
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.path === 'string' ? { path: e.path } : {}),
    ...(typeof e.syscall === 'string' ? { syscall: e.syscall } : {}),
    ...(typeof e.errno === 'number' ? { errno: e.errno } : {}),
  });
});
