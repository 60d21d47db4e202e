/**
 * Checks a pg_dump of a catalog against the blob store it belongs with (docs/deploy.md "Backup
 * and restore"): every original the dump's images reference must be stored, with the size the
 * dump records. A PostgreSQL catalog is backed up with pg_dump and the bucket's versioning; this
 * says whether a dump and a bucket (as it is now) restore into a catalog with every original.
 */
import type { BlobStore } from '../../core/ports.js';
import { readDumpImages } from './dump-images.js';

/** One original the dump references that the store does not hold as recorded. */
export interface DumpBlobProblem {
  sha256: string;
  problem: 'missing' | 'wrong_size';
  /** The size in bytes the dump records. */
  expectedSize: number;
  /** The stored size in bytes (wrong_size only). */
  actualSize?: number;
}

/** What {@link verifyDump} found. `problems` lists the first {@link PROBLEMS_LISTED}; the counts are totals. */
export interface DumpVerifyReport {
  /** Rows of the dump's images table. */
  images: number;
  /** Distinct originals those rows reference. */
  blobs: number;
  /** Originals stored with the recorded size. */
  present: number;
  missing: number;
  wrongSize: number;
  problems: DumpBlobProblem[];
}

/** How many problems a report lists (the counts stay exact). */
export const PROBLEMS_LISTED = 1000;
/** Concurrent lookups in the store (HEAD requests on S3). */
const CONCURRENCY = 16;

/** A store that can tell a blob's size without reading it (the S3 store: a HEAD request). */
interface Sized {
  size(sha256: string): Promise<number | undefined>;
}

async function storedSize(store: BlobStore & Partial<Sized>, sha256: string): Promise<number | undefined> {
  if (typeof store.size === 'function') return store.size(sha256);
  const opened = await store.open(sha256);
  if (!opened) return undefined;
  (opened.stream as NodeJS.ReadableStream & { destroy?(): void }).destroy?.();
  return opened.size;
}

/**
 * Reads the dump at `dumpPath` (see readDumpImages) and looks up each original it references in
 * `store`. Resolves with the report (problems ordered by SHA-256).
 *
 * @throws CatalogError bad_request for a dump that cannot be read or is not a catalog's (readDumpImages);
 *   the store's own error when it cannot be reached.
 */
export async function verifyDump(dumpPath: string, store: BlobStore & Partial<Sized>): Promise<DumpVerifyReport> {
  const dump = await readDumpImages(dumpPath);
  const entries = [...dump.blobs].sort(([a], [b]) => (a < b ? -1 : 1));
  const found: (DumpBlobProblem | undefined)[] = new Array(entries.length);
  let next = 0;
  const worker = async () => {
    while (next < entries.length) {
      const i = next++;
      const [sha256, expectedSize] = entries[i]!;
      const size = await storedSize(store, sha256);
      if (size === undefined) found[i] = { sha256, problem: 'missing', expectedSize };
      else if (size !== expectedSize) found[i] = { sha256, problem: 'wrong_size', expectedSize, actualSize: size };
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, entries.length) }, worker));
  const problems = found.filter((p): p is DumpBlobProblem => p !== undefined);
  const missing = problems.filter((p) => p.problem === 'missing').length;
  return {
    images: dump.images,
    blobs: entries.length,
    present: entries.length - problems.length,
    missing,
    wrongSize: problems.length - missing,
    problems: problems.slice(0, PROBLEMS_LISTED),
  };
}
