/**
 * Storage of the search engine (src/core/search/engine) in catalog.db (migration 5; docs/search.md,
 * "Index"). Written INSIDE the catalog store's write transactions: changes are gathered per part
 * (`put`, `remove`) and written once per transaction (`flush`, called by the store before commit),
 * sorted by term, so a batch of parts costs one rewrite of each touched block, as a bulk build.
 *
 * Tables:
 * - `engine_term_levels`: term -> id, in levels (leveled-terms.ts: a new term writes to a small level 0;
 *   full levels move into the next). A term is stored there only: ids come from
 *   `engine_stats.next_term_id` and are never given again.
 * - `engine_term_changes`: per write (engine version), the ids of the terms it wrote (migration 10)
 *   and, for a write of at most {@link LOGGED_TERMS} terms, the terms themselves (what a reader's
 *   kept ranges and absences need; a reader crossing a larger write forgets them all).
 * - `engine_postings`: (term id, first doc) -> block of ≤ BLOCK_SIZE postings (core postings.ts).
 * - `engine_runs`, `engine_run_list`: postings appended to stored lists, in runs of their writes,
 *   merged by size into engine_postings (migration 16; docs/search.md "Posting runs"). A term's list
 *   is its engine_postings blocks, then its run blocks in run order: every run posting follows
 *   the term's engine_postings and older runs' postings.
 * - `engine_docs`: per CHUNK docs (doc id = parts.rowid_): current card id, order key (ascending key =
 *   ascending part id, so ties by part id need no join), token counts by field group, flags.
 * - `engine_stats`: version, number of parts, sum of lengths per tier (avgdl).
 *
 * Readers keep decoded docs and recently used posting lists in memory and refresh them when
 * `engine_stats.version` moves (a write by this or another connection): only the doc chunks whose
 * version is newer are re-read, and only the terms the changed-terms log names are evicted.
 */
import { TIERS } from '../../../core/search/engine/bm25.js';
import { documentChanges, tierLength, type EngineDocument } from '../../../core/search/engine/document.js';
import { BLOCK_SIZE, GROUPS, decodeBlock, decodeTermBlocks, emptyPostings, encodeBlock, mergeSorted, GatheredPostings, type Postings } from '../../../core/search/engine/postings.js';
import { CHUNK, CHUNK_BYTES, DOC_EXISTS, DOC_HOLDER, DocColumns, groupZeroWeight, readDoc, tierView, writeDoc, writeKey } from '../../../core/search/engine/doc-chunks.js';
import { BlockJoiner, blockCount, type JoinedBlock } from '../../../core/search/engine/block-join.js';
import { decodeTermIds, encodeTermIds } from '../../../core/search/engine/term-ids.js';
import { forEachPreparedTerm, preparedHolder, preparedLengths, type PreparedPartDocuments } from '../../../core/search/engine/prepared-documents.js';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { TailIndex } from './engine-tails.js';
import { LRUCache } from 'lru-cache';
import { LeveledTerms, type LeveledTermsOptions } from './leveled-terms.js';
import { TermIdCache, type TypoKeyRow } from './term-id-cache.js';
import type { TermRow } from '../../../core/search/engine/term-range.js';

/**
 * Writes the changed-terms log keeps (engine_term_changes): a reader further behind evicts every
 * cached list instead. 256 import batches of ~15 KB each at most.
 */
export const TERM_LOG_VERSIONS = 256;

/**
 * Runs of one tier merged into one run of the next (tier 0: one write's; tier 1: RUN_FANOUT
 * writes'); RUN_FANOUT runs of tier 1 are merged into engine_postings. A term is read across at
 * most 2 × RUN_FANOUT runs.
 */
export const RUN_FANOUT = 8;
/** Terms whose run blocks a merge reads in one statement (forEachRunTerm). */
const RUN_TERMS_PER_READ = 512;

/** A posting run's row as a merge reads it. */
interface RunRow {
  term_id: number;
  run: number;
  first_doc: number;
  data: Buffer;
}

/** Key spacing of parts appended at either end of the part id order. */
const KEY_STEP = 1024;
/** Decoded posting lists kept per connection, in postings. */
const CACHE_POSTINGS = 6_000_000;
/** Postings `warm` decodes ahead (two thirds of the cache: room stays for what searches bring in). */
export const WARM_POSTINGS = 4_000_000;
/** Term ids the writer keeps. */
const ID_CACHE_TERMS = 50_000;
/** Fewest missing lists {@link EngineStore.prefetch} reads together (fewer: a statement each, as a search asks). */
const PREFETCH_MIN = 8;
/**
 * Terms a refresh names to the reader's absent-term memory and kept ranges one by one; past it they
 * are emptied. A write of at most this many terms logs them (engine_term_changes.terms).
 */
const LOGGED_TERMS = 4096;
/** A term new in a transaction with at least this many postings has its id cached at once (a frequent word). */
const ID_SEED_POSTINGS = 8;

/** Where a term's stored list ends: its last block's first doc, posting count and last doc (engine-tails.ts). */
interface ListEnd {
  firstDoc: number;
  count: number;
  lastDoc: number;
}

/** A term's decoded postings and, per tier, its compacted view (postings that tier may match). */
export interface CachedTerm {
  docs: Int32Array;
  tf: Uint16Array;
  weight: number;
  tiers: ({ docs: Int32Array; wtf: Float64Array; names: Uint8Array } | undefined)[];
}

interface PendingDoc {
  card: number;
  key: number;
  lengths: readonly number[];
  flags: number;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * `a < b` in SQLite's BINARY order of part ids (UTF-8 bytes = code points). JavaScript compares
 * UTF-16 units, which agrees unless a string holds a surrogate pair (then compare the bytes).
 */
export function binaryLess(a: string, b: string): boolean {
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b;
  return Buffer.compare(Buffer.from(a), Buffer.from(b)) < 0;
}

/** The engine's tables: transactional writes and cached reads. */
export class EngineStore {
  private readonly stmt;
  // -- write side: one transaction's changes --
  private readonly gathered = new GatheredPostings();
  /** The terms the running flush wrote, with their ids (the changed-terms log's next row). */
  private readonly written: TermRow[] = [];
  /** The id the running flush gives the next new term (engine_stats.next_term_id). */
  private nextTermId = 1;
  /** The terms the last flush emptied and took out of the dictionary (dropTerm). */
  private readonly dropped: TermRow[] = [];
  private readonly txChunks = new Map<number, Buffer>();
  private readonly statsDelta = { n: 0, len: [0, 0, 0, 0] };
  private renumber = false;
  /**
   * The greatest part id of the catalog when this transaction last placed a part after every other
   * one (an import of ids in ascending order), and the order key it gave it: the next such part needs neither
   * neighbour query. Valid within one transaction only (other connections write between them).
   */
  private last: { partId: string; key: number } | undefined;
  /**
   * Writer cache: term id -> where its stored list ends (engine-tails.ts), so an append (every
   * import batch) neither looks the last block up nor reads it. Valid only for the committed state
   * it was built on: `tailVersion` is the engine version this connection's last flush wrote, set
   * once that flush's transaction is known to have committed ({@link committed}; `flushedVersion`
   * until then). Every write to the index moves the version, a rebuild included, so a flush that
   * finds it elsewhere (another connection wrote the index, or the flush's commit failed) drops the
   * cache; commits by other connections that leave the index alone (an image upload, a token)
   * keep it. discard() and clearAll() drop it too.
   */
  private readonly tails = new TailIndex();
  /** runRowsBetween's statements, by number of runs. */
  private readonly runRowsStatements = new Map<number, Statement<Record<string, number>, RunRow>>();
  /** Joins a term's run blocks when runs merge (writeMerged). */
  private readonly joiner = new BlockJoiner();
  /** Writer cache, valid alike: term -> id of terms written more than once (frequent words). */
  private readonly ids = new Map<string, number>();
  /**
   * Writer cache, valid alike: ids of the terms with postings in a run (`tails` then describes the
   * last run block). A term absent here whose end `tails` does not know is looked up in the runs.
   */
  private readonly runTerms = new Set<number>();
  /** Whether any run is stored (read at each flush). */
  private runsStored = false;
  /** Whether the running flush wrote to its run. */
  private runWritten = false;
  private tailVersion = -1;
  private flushedVersion = -1;
  // -- read side --
  private loadedVersion = -1;
  /** Per-doc arrays (core doc-chunks.ts), loaded from engine_docs. */
  private readonly docs = new DocColumns();
  n = 0;
  sumLength = [0, 0, 0, 0];
  private readonly terms: LRUCache<number, CachedTerm>;
  /** term -> id (engine_term_levels). */
  private readonly dictionary: LeveledTerms;
  /** The read side's memory of `dictionary`, kept valid by refresh(). */
  private readonly termIds = new TermIdCache();
  /** The dictionary's level count at `loadedVersion` (levels move only in a write's flush), once read. */
  private readLevels: number | undefined;

  /** `cachePostings`: decoded postings kept in memory (default {@link CACHE_POSTINGS}). */
  constructor(private readonly db: SqliteDatabase, cachePostings = CACHE_POSTINGS, levels: Omit<LeveledTermsOptions, 'table' | 'valueColumn'> = {}) {
    this.dictionary = new LeveledTerms(db, { ...levels, table: 'engine_term_levels', valueColumn: 'id' });
    // Sized by postings, least recently used out; a list larger than the whole cache is read and not kept.
    this.terms = new LRUCache<number, CachedTerm>({ maxSize: Math.max(1, cachePostings), sizeCalculation: (term) => Math.max(1, term.docs.length) });
    this.stmt = {
      floorBlockData: db.prepare<[number, number], { first_doc: number; data: Buffer }>('SELECT first_doc, data FROM engine_postings WHERE term_id = ? AND first_doc <= ? ORDER BY first_doc DESC LIMIT 1'),
      lastBlock: db.prepare<[number], { first_doc: number; data: Buffer }>('SELECT first_doc, data FROM engine_postings WHERE term_id = ? ORDER BY first_doc DESC LIMIT 1'),
      nextBlock: db.prepare<[number, number], number>('SELECT first_doc FROM engine_postings WHERE term_id = ? AND first_doc > ? ORDER BY first_doc LIMIT 1').pluck(),
      termChanges: db.prepare<[number], { term_ids: Buffer; terms: string | null }>('SELECT term_ids, terms FROM engine_term_changes WHERE version > ? ORDER BY version'),
      logTerms: db.prepare<[number, Buffer, string | null]>('INSERT INTO engine_term_changes (version, term_ids, terms) VALUES (?, ?, ?)'),
      pruneTermLog: db.prepare<[number]>('DELETE FROM engine_term_changes WHERE version <= ?'),
      clearTermLog: db.prepare<[number]>('UPDATE engine_stats SET term_log_start = ? WHERE id = 0'),
      clearTermChanges: db.prepare('DELETE FROM engine_term_changes'),
      blocksIn: db.prepare<[number, number, number], { first_doc: number; data: Buffer }>('SELECT first_doc, data FROM engine_postings WHERE term_id = ? AND first_doc >= ? AND first_doc <= ? ORDER BY first_doc'),
      deleteBlocksIn: db.prepare<[number, number, number]>('DELETE FROM engine_postings WHERE term_id = ? AND first_doc >= ? AND first_doc <= ?'),
      insertBlock: db.prepare<[number, number, Uint8Array]>('INSERT INTO engine_postings (term_id, first_doc, data) VALUES (?, ?, ?)'),
      updateBlock: db.prepare<[Uint8Array, number, number]>('UPDATE engine_postings SET data = ? WHERE term_id = ? AND first_doc = ?'),
      // A term's whole list: its blocks, then its run blocks (sorted by the caller when the runs' order differs).
      allBlocks: db.prepare<{ id: number }, { first_doc: number; data: Buffer }>(
        'SELECT first_doc, data FROM (SELECT first_doc, data FROM engine_postings WHERE term_id = @id ORDER BY first_doc) UNION ALL SELECT first_doc, data FROM (SELECT first_doc, data FROM engine_runs WHERE run IN (SELECT run FROM engine_run_list) AND term_id = @id ORDER BY run, first_doc)',
      ),
      // The blocks of many terms (a JSON array of ids) in one statement, both tables; ordered by the caller.
      blocksOfTerms: db.prepare<{ ids: string }, { term_id: number; first_doc: number; data: Buffer }>(
        'SELECT term_id, first_doc, data FROM engine_postings WHERE term_id IN (SELECT value FROM json_each(@ids)) UNION ALL SELECT term_id, first_doc, data FROM engine_runs WHERE run IN (SELECT run FROM engine_run_list) AND term_id IN (SELECT value FROM json_each(@ids))',
      ),
      // At most how many postings each block of some terms (a JSON array of ids) holds, from its size
      // (postings.ts: a posting takes 3 bytes or more after the count), both tables, at most @cap
      // blocks: a frequent word's thousands of run blocks are not counted (after another
      // connection's write, each would be a page read again).
      blockBounds: db.prepare<{ ids: string; cap: number }, number>(
        `SELECT min(${BLOCK_SIZE}, (length(data) - 1) / 3) FROM (SELECT data FROM engine_postings WHERE term_id IN (SELECT value FROM json_each(@ids)) UNION ALL SELECT data FROM engine_runs WHERE run IN (SELECT run FROM engine_run_list) AND term_id IN (SELECT value FROM json_each(@ids)) LIMIT +@cap)`,
      ).pluck(),
      runList: db.prepare<[], { run: number; tier: number }>('SELECT run, tier FROM engine_run_list ORDER BY run'),
      addRun: db.prepare<[number, number]>('INSERT INTO engine_run_list (run, tier) VALUES (?, ?)'),
      insertRunBlock: db.prepare<[number, number, number, Uint8Array]>('INSERT INTO engine_runs (run, term_id, first_doc, data) VALUES (?, ?, ?, ?)'),
      lastRunBlock: db.prepare<{ id: number }, { first_doc: number; data: Buffer }>('SELECT first_doc, data FROM engine_runs WHERE run IN (SELECT run FROM engine_run_list) AND term_id = @id ORDER BY run DESC, first_doc DESC LIMIT 1'),
      termRunBlocks: db.prepare<{ id: number }, { first_doc: number; data: Buffer }>('SELECT first_doc, data FROM engine_runs WHERE run IN (SELECT run FROM engine_run_list) AND term_id = @id ORDER BY run, first_doc'),
      deleteTermRuns: db.prepare<{ id: number }>('DELETE FROM engine_runs WHERE run IN (SELECT run FROM engine_run_list) AND term_id = @id'),
      runTermIds: db.prepare<[string], number>('SELECT DISTINCT term_id FROM engine_runs WHERE run IN (SELECT value FROM json_each(?)) ORDER BY term_id').pluck(),
      deleteRuns: db.prepare<[string]>('DELETE FROM engine_runs WHERE run IN (SELECT value FROM json_each(?))'),
      deleteRunList: db.prepare<[string]>('DELETE FROM engine_run_list WHERE run IN (SELECT value FROM json_each(?))'),
      clearRuns: db.prepare('DELETE FROM engine_runs'),
      clearRunList: db.prepare('DELETE FROM engine_run_list'),
      chunk: db.prepare<[number], Buffer>('SELECT data FROM engine_docs WHERE chunk = ?').pluck(),
      putChunk: db.prepare<[number, number, Buffer]>('INSERT INTO engine_docs (chunk, version, data) VALUES (?, ?, ?) ON CONFLICT(chunk) DO UPDATE SET version = excluded.version, data = excluded.data'),
      changedChunks: db.prepare<[number], { chunk: number; data: Buffer }>('SELECT chunk, data FROM engine_docs WHERE version > ?'),
      changedChunkIds: db.prepare<[number], number>('SELECT chunk FROM engine_docs WHERE version > ?').pluck(),
      lastChunk: db.prepare<[], { chunk: number | null }>('SELECT max(chunk) AS chunk FROM engine_docs'),
      chunkRange: db.prepare<[number, number], { chunk: number; data: Buffer }>('SELECT chunk, data FROM engine_docs WHERE chunk >= ? AND chunk < ?'),
      stats: db.prepare<[], { version: number; n: number; len0: number; len1: number; len2: number; len3: number; term_log_start: number; next_term_id: number }>('SELECT version, n, len0, len1, len2, len3, term_log_start, next_term_id FROM engine_stats WHERE id = 0'),
      version: db.prepare<[], number>('SELECT version FROM engine_stats WHERE id = 0').pluck(),
      putStats: db.prepare<[number, number, number, number, number, number, number]>('UPDATE engine_stats SET version = ?, n = ?, len0 = ?, len1 = ?, len2 = ?, len3 = ?, next_term_id = ? WHERE id = 0'),
      predecessor: db.prepare<[string], number>('SELECT rowid_ FROM parts WHERE part_id < ? ORDER BY part_id DESC LIMIT 1').pluck(),
      successor: db.prepare<[string], number>('SELECT rowid_ FROM parts WHERE part_id > ? ORDER BY part_id LIMIT 1').pluck(),
      partsInOrder: db.prepare<[], number>('SELECT rowid_ FROM parts ORDER BY part_id').pluck(),
      clear: db.prepare('DELETE FROM engine_postings'),
      clearDocs: db.prepare('DELETE FROM engine_docs'),
    };
  }

  // -- write side ----------------------------------------------------------------------------

  /**
   * Indexes `doc` as part `rowid` (card `card`), replacing `previous` (what was indexed for it, if
   * anything). `partId` places a new part in the part id order (its parts row must exist already).
   */
  put(rowid: number, partId: string, card: number, doc: EngineDocument, previous: EngineDocument | undefined): void {
    if (previous) this.addStats(previous.lengths, -1);
    for (const [term, tf] of documentChanges(doc, previous)) this.change(term, rowid, tf);
    this.addStats(doc.lengths, 1);
    // A new part (an import's) has no stored doc to keep a key from: nothing read.
    const stored = previous ? readDoc(this.writableChunk(rowid), rowid) : undefined;
    const key = stored && stored.flags & DOC_EXISTS ? stored.key : this.newKey(partId);
    this.writeDoc(rowid, { card, key, lengths: doc.lengths, flags: DOC_EXISTS | (doc.holder ? DOC_HOLDER : 0) });
  }

  /**
   * {@link put} of a NEW part (nothing indexed for it) whose document an import's reader thread
   * built (core/search/engine/prepared-documents.ts), read where it is packed: the same changes, without
   * the document's Map and frequency arrays.
   */
  putPrepared(rowid: number, partId: string, card: number, prepared: PreparedPartDocuments): void {
    forEachPreparedTerm(prepared, (term, group, count, tf) => (tf ? this.gathered.set(term, rowid, tf) : this.gathered.setOne(term, rowid, group, count)));
    const lengths = preparedLengths(prepared);
    this.addStats(lengths, 1);
    this.writeDoc(rowid, { card, key: this.newKey(partId), lengths, flags: DOC_EXISTS | (preparedHolder(prepared) ? DOC_HOLDER : 0) });
  }

  /** Removes part `rowid`, indexed as `previous`. */
  remove(rowid: number, previous: EngineDocument): void {
    for (const term of previous.terms.keys()) this.change(term, rowid, null);
    this.addStats(previous.lengths, -1);
    this.writeDoc(rowid, { card: 0, key: 0, lengths: [0, 0, 0, 0, 0], flags: 0 });
  }

  /** Empties every engine table (a full rebuild follows, in the same transaction). */
  clearAll(): void {
    this.stmt.clear.run();
    this.dictionary.clear();
    this.stmt.clearDocs.run();
    this.stmt.clearRuns.run();
    this.stmt.clearRunList.run();
    this.dropTails();
    this.clearGathered();
    const version = (this.stmt.version.get() ?? 0) + 1;
    this.stmt.putStats.run(version, 0, 0, 0, 0, 0, 1);
    // Term ids start over: a reader of any earlier version must evict everything.
    this.stmt.clearTermChanges.run();
    this.stmt.clearTermLog.run(version);
  }

  /** Discards gathered changes (the transaction is rolling back; the writer cache may hold its blocks). */
  discard(): void {
    this.dropTails();
    this.clearGathered();
    this.dictionary.rolledBack();
  }

  /** Forgets what the current transaction gathered (after a flush wrote it, or a rollback). */
  private clearGathered(): void {
    this.gathered.clear();
    this.txChunks.clear();
    this.statsDelta.n = 0;
    this.statsDelta.len = [0, 0, 0, 0];
    this.renumber = false;
    this.last = undefined;
  }

  /** Writes the gathered changes; must run inside the write transaction that gathered them. */
  flush(): void {
    if (this.gathered.size === 0 && this.txChunks.size === 0) return;
    const stats = this.stmt.stats.get();
    if (!stats) throw new Error('engine_stats is missing (migration 5)');
    const version = stats.version + 1;
    // The tail cache describes the state this connection's last confirmed flush committed; another
    // version means another connection wrote the index since (or that commit failed).
    if (stats.version !== this.tailVersion) {
      this.dropTailBlocks();
      this.ids.clear();
    }
    const runs = this.stmt.runList.all();
    this.runsStored = runs.length > 0;
    const run = version * 2;
    this.runWritten = false;
    // Until this flush has written everything and its transaction committed (committed()).
    this.tailVersion = -1;
    this.flushedVersion = -1;
    this.gathered.prepare();
    this.written.length = 0;
    this.nextTermId = stats.next_term_id;
    this.dropped.length = 0;
    // One read of the dictionary's level count for the flush's thousands of lookups, and the ids
    // of the terms the writer cache does not hold looked up together (most are new: absent).
    this.dictionary.fixLevels();
    try {
      const terms = this.gathered.sortedTerms();
      const stored = this.dictionary.getMany(terms.filter((term) => !this.ids.has(term)));
      for (const term of terms) this.writeTerm(term, this.gathered.changes(term), stored.get(term), run);
      this.dictionary.settle();
    } finally {
      this.dictionary.unfixLevels();
    }
    if (this.written.length > 0) {
      const terms = this.written.length <= LOGGED_TERMS ? JSON.stringify(this.written.map((t) => [t.id, t.term])) : null;
      this.stmt.logTerms.run(version, Buffer.from(encodeTermIds(this.written.map((t) => t.id))), terms);
      this.stmt.pruneTermLog.run(version - TERM_LOG_VERSIONS);
    }
    if (this.runWritten) this.mergeRuns([...runs, { run, tier: 0 }], version);
    if (this.renumber) this.renumberKeys();
    for (const [chunk, data] of this.txChunks) this.stmt.putChunk.run(chunk, version, data);
    const len = [stats.len0, stats.len1, stats.len2, stats.len3].map((v, t) => v + (this.statsDelta.len[t] ?? 0));
    this.stmt.putStats.run(version, stats.n + this.statsDelta.n, len[0] ?? 0, len[1] ?? 0, len[2] ?? 0, len[3] ?? 0, this.nextTermId);
    this.clearGathered();
    // Least recently written first out (Maps keep insertion order; a write re-inserts): the words
    // that recur in every batch keep their ids.
    for (const term of this.ids.keys()) {
      if (this.ids.size <= ID_CACHE_TERMS) break;
      this.ids.delete(term);
    }
    this.flushedVersion = version;
  }

  /** The transaction of the last flush committed: the writer caches describe the stored index. */
  committed(): void {
    if (this.flushedVersion < 0) return;
    this.tailVersion = this.flushedVersion;
    this.flushedVersion = -1;
  }

  private dropTailBlocks(): void {
    this.tails.clear();
    this.runTerms.clear();
  }

  private dropTails(): void {
    this.dropTailBlocks();
    this.ids.clear();
    this.tailVersion = -1;
    this.flushedVersion = -1;
  }

  private change(term: string, rowid: number, tf: number[] | null): void {
    this.gathered.set(term, rowid, tf);
  }

  private addStats(lengths: readonly number[], sign: number): void {
    this.statsDelta.n += sign;
    for (let t = 0; t < TIERS; t++) this.statsDelta.len[t] = (this.statsDelta.len[t] ?? 0) + sign * tierLength(lengths, t);
  }

  /**
   * Rewrites the blocks of `term` that `changes` touch (a new term: only writes); `changes` ascending
   * by doc, one row per doc, all-zero rows removing (GatheredPostings.changes()). `storedId`: the
   * term's id in the dictionary, looked up by the caller (undefined: not there, or in `ids`).
   */
  private writeTerm(term: string, changes: Postings & { removes: boolean }, storedId: number | undefined, run: number): void {
    const min = changes.docs[0] ?? 0;
    if (changes.docs.length === 0) return;
    const base = emptyPostings();
    let id = this.ids.get(term) ?? storedId;
    if (id === undefined) {
      // A new term has no stored blocks: nothing to read, merge or delete (most terms of an import).
      // Its id is the highest yet, so its blocks go to the end of engine_postings.
      const merged = mergeSorted(base, changes);
      if (merged.docs.length === 0) return;
      id = this.nextTermId++;
      this.dictionary.add(term, id);
      // Logged too: a reader puts it into the dictionary ranges it keeps (it may be a removed term back).
      this.written.push({ id, term });
      this.tails.set(id, this.insertBlocks(id, merged));
      if (merged.docs.length >= ID_SEED_POSTINGS) this.ids.set(term, id);
      return;
    }
    this.written.push({ id, term });
    this.ids.delete(term); // re-inserted: most recently written last
    this.ids.set(term, id);
    const end = this.listEnd(id);
    if (end !== undefined && !changes.removes && min > end.lastDoc) {
      // Every change follows the stored list (an import's new parts): written to this write's run,
      // at the end of engine_runs, instead of extending the list's last block where it is stored
      // (a page of its own for each recurring word, written whole at every commit).
      const last = this.insertBlocks(id, changes, false, 0, run);
      this.runTerms.add(id);
      this.runWritten = true;
      this.tails.set(id, last);
      return;
    }
    this.changeStoredList(id, changes);
    // A list the write emptied (a renamed part's old name, a model number no part has any more):
    // the term leaves the dictionary, so that prefixes and names beginning with a query never read it.
    if (changes.removes && this.stmt.nextBlock.get(id, -1) === undefined) this.dropTerm(term, id);
  }

  /** Any change but an append (an update, a removal) of stored term `id`, made to engine_postings, its run postings moved there first. */
  private changeStoredList(id: number, changes: Postings & { removes: boolean }): void {
    const min = changes.docs[0] ?? 0;
    const base = emptyPostings();
    if (this.runTerms.has(id)) this.foldRuns(id);
    const count = this.tails.count(id);
    if (count > 0 && min >= this.tails.firstDoc(id)) {
      // A change within the last block (an update of a recent part): only that block is read and
      // rewritten, in place when it keeps its first doc (one UPDATE instead of a DELETE and an INSERT).
      const firstDoc = this.tails.firstDoc(id);
      for (const block of this.stmt.blocksIn.all(id, firstDoc, firstDoc)) decodeBlock(block.data, block.first_doc, base);
      const merged = mergeSorted(base, changes);
      if (merged.docs[0] === firstDoc) {
        this.tails.set(id, this.insertBlocks(id, merged, true));
        return;
      }
      this.stmt.deleteBlocksIn.run(id, firstDoc, firstDoc);
      // An emptied last block: the list now ends in an earlier block, not known here.
      this.tails.set(id, merged.docs.length === 0 ? undefined : this.insertBlocks(id, merged));
      return;
    }
    this.rewriteTouchedBlocks(id, changes);
  }

  /**
   * Takes term `id`, whose list is empty now, out of the dictionary. The changed-terms log names
   * it with this write: a reader that kept a range holding the term makes the range again
   * (term-id-cache.ts). Its id is never given to another term (a reader may still hold it in a
   * kept range).
   */
  private dropTerm(term: string, id: number): void {
    this.dictionary.remove(term);
    this.ids.delete(term);
    this.tails.set(id, undefined);
    this.runTerms.delete(id);
    this.dropped.push({ id, term });
  }

  /** The terms the last flush emptied and took out of the dictionary: the vocabulary drops its words of them (search-index.ts). */
  droppedTerms(): readonly TermRow[] {
    return this.dropped;
  }

  /**
   * Where term `id`'s list ends (its last block, in a run or in engine_postings), from the writer
   * cache or, when it does not know (a new process, another connection wrote), from the stored
   * last block (undefined: the list is empty).
   */
  private listEnd(id: number): ListEnd | undefined {
    const count = this.tails.count(id);
    if (count > 0) return { firstDoc: this.tails.firstDoc(id), count, lastDoc: this.tails.lastDoc(id) };
    const inRun = this.runsStored ? this.stmt.lastRunBlock.get({ id }) : undefined;
    const block = inRun ?? this.stmt.lastBlock.get(id);
    if (block === undefined) return undefined;
    const postings = emptyPostings();
    decodeBlock(block.data, block.first_doc, postings);
    const end = { firstDoc: block.first_doc, count: postings.docs.length, lastDoc: postings.docs[postings.docs.length - 1] ?? 0 };
    if (inRun) this.runTerms.add(id);
    this.tails.set(id, end);
    return end;
  }

  /** Moves term `id`'s run postings into its engine_postings blocks (they follow every stored one). */
  private foldRuns(id: number): void {
    const postings = emptyPostings();
    for (const block of this.stmt.termRunBlocks.all({ id })) decodeBlock(block.data, block.first_doc, postings);
    this.stmt.deleteTermRuns.run({ id });
    this.runTerms.delete(id);
    this.tails.set(id, undefined);
    if (postings.docs.length > 0) this.rewriteTouchedBlocks(id, { ...postings, removes: false });
  }

  /**
   * After a flush that wrote run `version × 2` (the last of `runs`): RUN_FANOUT runs of tier 0 are
   * merged into one run of tier 1 (`version × 2 + 1`: newer than every run it merges), and
   * RUN_FANOUT runs of tier 1 into engine_postings. The lists do not change, so nothing is logged.
   */
  private mergeRuns(runs: { run: number; tier: number }[], version: number): void {
    this.stmt.addRun.run(version * 2, 0);
    const tier0 = runs.filter((r) => r.tier === 0).map((r) => r.run);
    if (tier0.length < RUN_FANOUT) return;
    const merged = version * 2 + 1;
    this.forEachRunTerm(tier0, (id, blocks) => this.writeMerged(id, blocks, merged));
    this.dropRuns(tier0);
    this.stmt.addRun.run(merged, 1);
    const tier1 = [...runs.filter((r) => r.tier === 1).map((r) => r.run), merged];
    if (tier1.length < RUN_FANOUT) return;
    this.forEachRunTerm(tier1, (id, blocks) => this.tails.set(id, this.writeMerged(id, blocks, undefined)));
    this.dropRuns(tier1);
    this.runTerms.clear();
  }

  /**
   * Calls `write` with each term's run blocks in `runs` (ascending term id; oldest run first). The
   * blocks are read for RUN_TERMS_PER_READ terms at a time: a statement per term cost more than
   * the merge itself when most terms are part numbers of one posting, and all terms in one sorted
   * statement held a frequent word's thousands of blocks and the sort (tens of MB). Each read
   * scans the term range of every run (runRowsBetween).
   */
  private forEachRunTerm(runs: number[], write: (id: number, blocks: { first_doc: number; data: Buffer }[]) => void): void {
    const json = JSON.stringify(runs);
    const ids = this.stmt.runTermIds.all(json);
    const runParams = Object.fromEntries(runs.map((run, k) => [`r${k}`, run]));
    for (let from = 0; from < ids.length; from += RUN_TERMS_PER_READ) {
      const rows = this.runRowsBetween(runs).all({ ...runParams, from: ids[from] ?? 0, to: ids[Math.min(ids.length, from + RUN_TERMS_PER_READ) - 1] ?? 0 });
      let start = 0;
      for (let i = 1; i <= rows.length; i++) {
        const id = rows[start]!.term_id;
        if (i < rows.length && rows[i]!.term_id === id) continue;
        write(id, rows.slice(start, i));
        start = i;
      }
    }
  }

  /**
   * Writes term `id`'s run `blocks` (all after its stored postings) as full blocks, into run `run`
   * or, when undefined, after the term's engine_postings blocks (filling its last block first).
   * Joined byte to byte (BlockJoiner), a block at a time. Returns the last block written.
   */
  private writeMerged(id: number, blocks: { first_doc: number; data: Buffer }[], run: number | undefined): ListEnd | undefined {
    const stored = run === undefined ? this.stmt.lastBlock.get(id) : undefined;
    // A full last block stays as stored; a partial one is filled (overwritten: it keeps its first doc).
    let replaceFirst = stored !== undefined && blockCount(stored.data) < BLOCK_SIZE;
    let end: ListEnd | undefined;
    const write = (block: JoinedBlock): void => {
      if (run !== undefined) this.stmt.insertRunBlock.run(run, id, block.firstDoc, block.data);
      else if (replaceFirst) this.stmt.updateBlock.run(block.data, id, block.firstDoc);
      else this.stmt.insertBlock.run(id, block.firstDoc, block.data);
      replaceFirst = false;
      end = { firstDoc: block.firstDoc, count: block.count, lastDoc: block.lastDoc };
    };
    if (replaceFirst && stored !== undefined) this.joiner.add(stored.data, stored.first_doc, write);
    for (const block of blocks) this.joiner.add(block.data, block.first_doc, write);
    this.joiner.finish(write);
    return end;
  }

  /**
   * The rows of `runs` (as many runs as given) whose term id is in [@from, @to], ordered by term,
   * run and first doc: one range scan per run, merged by SQLite (a compound SELECT), instead of a
   * seek per run and term and a sort.
   */
  private runRowsBetween(runs: number[]): Statement<Record<string, number>, RunRow> {
    let statement = this.runRowsStatements.get(runs.length);
    if (statement === undefined) {
      const arms = runs.map((_, k) => `SELECT term_id, run, first_doc, data FROM engine_runs WHERE run = @r${k} AND term_id BETWEEN @from AND @to`);
      statement = this.db.prepare<Record<string, number>, RunRow>(`${arms.join(' UNION ALL ')} ORDER BY term_id, run, first_doc`);
      this.runRowsStatements.set(runs.length, statement);
    }
    return statement;
  }

  private dropRuns(runs: number[]): void {
    const json = JSON.stringify(runs);
    this.stmt.deleteRuns.run(json);
    this.stmt.deleteRunList.run(json);
  }

  /**
   * Rewrites, of term `id`'s stored blocks, only those that hold a changed doc: each change belongs
   * to the block starting at or before it (the last block before the next one starts), and each
   * such block is read, merged with its own changes and written again, on its own; changes before
   * the first block become blocks of their own. The blocks between two changed docs are left as
   * stored: a write of a few parts spread over the catalog (an update of 10 parts) touches a few
   * blocks of a frequent word's list instead of decoding and rewriting the whole list between its
   * smallest and its largest changed doc, a cost that grew with the catalog.
   */
  private rewriteTouchedBlocks(id: number, changes: Postings & { removes: boolean }): void {
    const docs = changes.docs;
    let tailTouched = false;
    let last: ListEnd | undefined;
    for (let i = 0; i < docs.length; ) {
      const doc = docs[i] ?? 0;
      const floor = this.stmt.floorBlockData.get(id, doc);
      const next = this.stmt.nextBlock.get(id, doc);
      let end = i + 1;
      while (end < docs.length && (next === undefined || (docs[end] ?? 0) < next)) end++;
      const base = emptyPostings();
      if (floor !== undefined) decodeBlock(floor.data, floor.first_doc, base);
      const merged = mergeSorted(base, { docs: docs.slice(i, end), tf: changes.tf.slice(i * GROUPS, end * GROUPS), removes: changes.removes });
      if (floor !== undefined && merged.docs[0] === floor.first_doc) {
        // The block keeps its first doc (an update of a part in it): overwritten where it is stored.
        last = this.insertBlocks(id, merged, true);
      } else {
        if (floor !== undefined) this.stmt.deleteBlocksIn.run(id, floor.first_doc, floor.first_doc);
        last = this.insertBlocks(id, merged);
      }
      if (next === undefined) tailTouched = true;
      i = end;
    }
    // The list's end moved only when its last block was rewritten (an emptied one: now unknown).
    if (tailTouched) this.tails.set(id, last);
  }

  /**
   * Stores `postings` of term `id` from index `start` on as blocks of BLOCK_SIZE; returns the last
   * block written (undefined: none). `replaceFirst`: a block starting at the first posting's doc
   * is stored already and is overwritten. `run`: into that run instead of engine_postings.
   */
  private insertBlocks(id: number, postings: Postings, replaceFirst = false, start = 0, run?: number): ListEnd | undefined {
    let last: ListEnd | undefined;
    for (let i = start; i < postings.docs.length; i += BLOCK_SIZE) {
      const end = Math.min(postings.docs.length, i + BLOCK_SIZE);
      const firstDoc = postings.docs[i] ?? 0;
      const data = encodeBlock(postings, i, end);
      if (run !== undefined) this.stmt.insertRunBlock.run(run, id, firstDoc, data);
      else if (i === start && replaceFirst) this.stmt.updateBlock.run(data, id, firstDoc);
      else this.stmt.insertBlock.run(id, firstDoc, data);
      last = { firstDoc, count: end - i, lastDoc: postings.docs[end - 1] ?? 0 };
    }
    return last;
  }

  private writableChunk(rowid: number): Buffer {
    const c = Math.floor(rowid / CHUNK);
    let data = this.txChunks.get(c);
    if (!data) {
      const stored = this.stmt.chunk.get(c);
      data = Buffer.alloc(CHUNK_BYTES);
      if (stored) stored.copy(data);
      this.txChunks.set(c, data);
    }
    return data;
  }

  private writeDoc(rowid: number, doc: PendingDoc): void {
    writeDoc(this.writableChunk(rowid), rowid, doc);
  }

  private keyOf(rowid: number): number {
    return readDoc(this.writableChunk(rowid), rowid).key;
  }

  /** A key between the neighbours of `partId` in part id order; asks for a renumbering when none is left. */
  private newKey(partId: string): number {
    const last = this.last;
    if (last !== undefined && binaryLess(last.partId, partId)) {
      last.partId = partId;
      last.key += KEY_STEP;
      return last.key;
    }
    const before = this.stmt.predecessor.get(partId);
    const after = this.stmt.successor.get(partId);
    if (before === undefined && after === undefined) {
      this.last = { partId, key: 0 };
      return 0;
    }
    if (after === undefined) {
      const key = this.keyOf(before ?? 0) + KEY_STEP;
      this.last = { partId, key };
      return key;
    }
    if (before === undefined) return this.keyOf(after) - KEY_STEP;
    const lo = this.keyOf(before);
    const hi = this.keyOf(after);
    const mid = lo + (hi - lo) / 2;
    if (!(lo < mid && mid < hi)) this.renumber = true;
    return mid;
  }

  /** Gives every part a key KEY_STEP apart in part id order (rare: when a gap is used up). */
  private renumberKeys(): void {
    let i = 0;
    for (const rowid of this.stmt.partsInOrder.iterate()) {
      writeKey(this.writableChunk(rowid), rowid, i * KEY_STEP);
      i++;
    }
    this.renumber = false;
  }

  // -- read side -----------------------------------------------------------------------------

  /** Brings the in-memory docs and the posting cache up to the committed version; cheap when nothing changed. */
  refresh(): void {
    // The version alone first: a plucked number costs less than the stats row's object (readCards calls this for every page).
    if (this.loadedVersion >= 0 && this.stmt.version.get() === this.loadedVersion) return;
    const stats = this.stmt.stats.get();
    if (!stats || stats.version === this.loadedVersion) return;
    if (this.loadedVersion >= 0 && stats.version < this.loadedVersion) this.loadedVersion = -1; // rebuilt elsewhere
    // The log names the terms of every write after term_log_start, for the last TERM_LOG_VERSIONS
    // writes; a reader further behind cannot know which of its lists changed.
    const logCovers = this.loadedVersion >= stats.term_log_start && stats.version - this.loadedVersion <= TERM_LOG_VERSIONS;
    this.readLevels = undefined;
    if (!logCovers) {
      for (const id of [...this.terms.keys()]) this.evict(id);
      this.termIds.clear();
    } else {
      const changed: number[] = [];
      const named: TermRow[] = [];
      let unnamed = false;
      for (const row of this.stmt.termChanges.iterate(this.loadedVersion)) {
        for (const id of decodeTermIds(row.term_ids)) changed.push(id);
        if (row.terms === null) unnamed = true;
        else if (!unnamed && named.length <= LOGGED_TERMS) for (const [id, term] of JSON.parse(row.terms) as [number, string][]) named.push({ id, term });
      }
      for (const id of changed) this.evict(id);
      // A term the reader found absent, or a range it kept, may hold one of the terms these writes wrote.
      if (unnamed || named.length > LOGGED_TERMS) this.termIds.written();
      else if (named.length > 0) this.termIds.written(named);
    }
    // A first load sizes the arrays once (growing them chunk by chunk doubled ~10 times at 1M parts).
    if (this.loadedVersion < 0) this.docs.ensure(((this.stmt.lastChunk.get()?.chunk ?? -1) + 1) * CHUNK);
    for (const row of this.stmt.changedChunks.iterate(this.loadedVersion)) this.docs.loadChunk(row.chunk, row.data);
    this.adoptStats(stats);
  }

  /** The part count, length sums and version of the docs now held: those of `stats`. */
  private adoptStats(stats: { version: number; n: number; len0: number; len1: number; len2: number; len3: number }): void {
    this.n = stats.n;
    this.sumLength = [stats.len0, stats.len1, stats.len2, stats.len3];
    this.loadedVersion = stats.version;
  }

  /**
   * The first load of the in-memory docs, `chunksPerSlice` chunks at a time, each slice in a read
   * transaction of its own, awaiting `between()` after each: a connection whose thread also answers
   * requests (the main thread of `catalog serve`, health checks while it starts) is never blocked
   * for the whole load (~4,000 chunks at 1,000,000 parts, seconds). Every slice's snapshot is at
   * least as new as the first one's, so the docs are then as of that first version, and the
   * closing {@link refresh} reads the chunks written since. Nothing to do once the docs are loaded.
   */
  async loadDocsInSlices(between: () => Promise<void>, chunksPerSlice = 128): Promise<void> {
    if (this.loadedVersion >= 0) return;
    const first = this.db.transaction(() => ({ stats: this.stmt.stats.get(), last: this.stmt.lastChunk.get()?.chunk ?? -1 }))();
    if (!first.stats) return;
    this.docs.ensure((first.last + 1) * CHUNK);
    for (let from = 0; from <= first.last; from += chunksPerSlice) {
      this.db.transaction(() => {
        for (const row of this.stmt.chunkRange.iterate(from, from + chunksPerSlice)) this.docs.loadChunk(row.chunk, row.data);
      })();
      await between();
    }
    // A search that ran in between loaded everything itself: its version stands.
    if (this.loadedVersion >= 0) return;
    this.adoptStats(first.stats);
    this.db.transaction(() => this.refresh())();
  }

  /**
   * The doc chunks (doc id / CHUNK) written after engine version `version`: every doc whose card,
   * order key, lengths or flags changed since lies in one of them.
   */
  chunksChangedSince(version: number): Set<number> {
    return new Set(this.stmt.changedChunkIds.all(version));
  }

  /** The committed engine version (engine_stats.version): grows with every write to the index, a rebuild included. */
  storedVersion(): number {
    return this.stmt.version.get() ?? 0;
  }

  /**
   * The engine version the in-memory docs show (engine_stats.version when {@link refresh} last
   * read them), or -1 before this connection first read them.
   */
  get loadedDocsVersion(): number {
    return this.loadedVersion;
  }

  /** Highest doc id + 1 the arrays can hold. */
  get docCapacity(): number {
    return this.docs.capacity;
  }

  /** Current card id by doc. */
  get card(): Float64Array {
    return this.docs.card;
  }

  /** Order key by doc (ascending key = ascending part id). */
  get key(): Float64Array {
    return this.docs.key;
  }

  /** Part length per tier, by doc. */
  get dl(): readonly Float64Array[] {
    return this.docs.dl;
  }

  /** Every indexed part's doc, ascending part id, the first `limit`, and how many (core doc-chunks.ts DocColumns.allDocs). */
  allDocs(nonHoldersOnly: boolean, limit: number): { total: number; docs: number[] } {
    return this.docs.allDocs(nonHoldersOnly, limit);
  }

  /** Every indexed part's doc, unsorted (core doc-chunks.ts DocColumns.everyDoc). */
  everyDoc(): Int32Array {
    return this.docs.everyDoc(false);
  }

  /** The id of a term, if indexed. */
  termId(term: string): number | undefined {
    return this.termIds.get(term, (t) => this.dictionary.get(t, this.levels()));
  }

  /** The typo vocabulary's words under any of `keys` (TermIdCache.typoCandidates; `lookup` reads the rows of the keys it lacks). */
  typoCandidates(keys: readonly string[], lookup: (keys: string[]) => TypoKeyRow[]): string[] {
    return this.termIds.typoCandidates(keys, lookup);
  }

  /** Terms beginning with `prefix`, ascending. */
  termsWithPrefix(prefix: string): readonly { id: number; term: string }[] {
    return this.termIds.range(prefix, () => this.dictionary.range(prefix, `${prefix}\u{10FFFF}`, this.levels()).map((t) => ({ id: t.value, term: t.term })));
  }

  /** Whether more than `max` terms begin with `prefix`: from the kept range, else counted up to `max` + 1 in the dictionary. */
  prefixWiderThan(prefix: string, max: number): boolean {
    const kept = this.termIds.keptRange(prefix);
    if (kept !== undefined) return kept.length > max;
    return this.dictionary.countUpTo(prefix, `${prefix}\u{10FFFF}`, max + 1, this.levels()) > max;
  }

  /** Whether any term begins with `prefix`. */
  hasPrefix(prefix: string): boolean {
    return this.dictionary.any(prefix, `${prefix}\u{10FFFF}`, this.levels());
  }

  /** The dictionary's level count for reads at the loaded version (refresh() forgets it). */
  private levels(): number {
    return (this.readLevels ??= this.dictionary.levelsPresent());
  }

  /**
   * Decodes the posting lists of `terms` (the most widely held first: warm-terms.ts), in that
   * order, while they fit in about `maxPostings` postings: the lists a cold search pays most for (a
   * frequent word's 100,000-posting list took 20-30 ms to read and decode on a fresh connection).
   * A term not in the index, or whose list would pass the budget, is skipped. Runs inside a read
   * transaction. Returns the terms decoded.
   */
  warm(terms: readonly string[], maxPostings: number): string[] {
    this.refresh();
    let held = 0;
    const warmed: string[] = [];
    if (maxPostings <= 0 || terms.length === 0) return warmed;
    const ids = this.dictionary.getMany(terms);
    for (const term of terms) {
      const id = ids.get(term);
      if (id === undefined) continue;
      // An upper bound (whole blocks), so the budget is not exceeded.
      if (held + this.postingsBound(id, maxPostings - held) > maxPostings) continue;
      held += this.decoded(id, term).docs.length;
      warmed.push(term);
    }
    return warmed;
  }

  /**
   * At least as many postings as term `id` has, without reading them: exact when its list is
   * decoded in memory, else its blocks' {@link blockBounds}; past `cap` when it has more blocks
   * than `cap` postings could fill (a limited search asks: a frequent word's thousands of blocks
   * are not counted).
   */
  postingsBound(id: number, cap: number): number {
    const cached = this.terms.peek(id);
    if (cached) return cached.docs.length;
    const maxBlocks = Math.floor(cap / BLOCK_SIZE) + 1;
    return this.blockBounds([id], maxBlocks) ?? (maxBlocks + 1) * BLOCK_SIZE;
  }

  /**
   * Whether the lists of `terms` the cache lacks hold at most `cap` postings, bounded from their
   * blocks' sizes in one statement, without reading them: a limited search then reads a range's
   * lists together ({@link prefetch}), where a bound per term (a statement each) gave up on a word
   * whose completions are hundreds of one-posting terms (a part number joined to a word in every
   * name).
   */
  fitsWithin(terms: readonly { id: number; term: string }[], cap: number): boolean {
    const missing = terms.filter((t) => !this.terms.has(t.id)).map((t) => t.id);
    if (missing.length === 0) return true;
    // A block holds a posting at least: more blocks than a quarter of `cap` are not counted.
    const bound = this.blockBounds(missing, Math.floor(cap / 4));
    return bound !== undefined && bound <= cap;
  }

  /** The postings the blocks of `ids` hold at most (from their sizes); undefined when they are more than `maxBlocks` blocks. */
  private blockBounds(ids: readonly number[], maxBlocks: number): number | undefined {
    let blocks = 0;
    let bound = 0;
    for (const postings of this.stmt.blockBounds.iterate({ ids: JSON.stringify(ids), cap: maxBlocks + 1 })) {
      blocks++;
      bound += postings;
    }
    return blocks > maxBlocks ? undefined : bound;
  }

  /** A term's postings as tier `tier` sees them (wtf > 0 only); cached until the term changes. */
  termForTier(id: number, term: string, tier: number): { docs: Int32Array; wtf: Float64Array; names: Uint8Array } {
    const cached = this.decoded(id, term);
    let view = cached.tiers[tier];
    if (!view) {
      view = tierView(cached.docs, cached.tf, cached.weight, tier);
      cached.tiers[tier] = view;
    }
    return view;
  }

  /**
   * Reads the postings of those of `terms` the cache lacks, in one statement for them all, and
   * caches them: a range's lists (the names beginning with a query, one term per part when every
   * name ends in its own part number) cost a statement each otherwise. Nothing to do under
   * {@link PREFETCH_MIN} missing terms. Runs inside a read transaction.
   */
  prefetch(terms: readonly { id: number; term: string }[]): void {
    const missing = new Map<number, { term: string; blocks: { data: Uint8Array; firstDoc: number }[] }>();
    for (const t of terms) if (!this.terms.has(t.id)) missing.set(t.id, { term: t.term, blocks: [] });
    if (missing.size < PREFETCH_MIN) return;
    for (const row of this.stmt.blocksOfTerms.iterate({ ids: JSON.stringify([...missing.keys()]) })) missing.get(row.term_id)?.blocks.push({ data: row.data, firstDoc: row.first_doc });
    for (const [id, { term, blocks }] of missing) this.terms.set(id, decodedTerm(term, blocks));
  }

  /** A term's decoded postings, from the cache (made most recently used) or read and cached, least recently used out. */
  private decoded(id: number, term: string): CachedTerm {
    let cached = this.terms.get(id);
    if (!cached) {
      cached = decodedTerm(term, this.stmt.allBlocks.all({ id }).map((b) => ({ data: b.data, firstDoc: b.first_doc })));
      this.terms.set(id, cached);
    }
    return cached;
  }

  private evict(id: number): void {
    this.terms.delete(id);
    this.termIds.forgetId(id);
  }
}

/** A term's list from its blocks, in any order (engine_postings' precede the runs', which follow every stored posting). */
function decodedTerm(term: string, blocks: { data: Uint8Array; firstDoc: number }[]): CachedTerm {
  if (!blocks.every((b, i) => i === 0 || (blocks[i - 1]?.firstDoc ?? 0) < b.firstDoc)) blocks.sort((a, b) => a.firstDoc - b.firstDoc);
  const { docs, tf } = decodeTermBlocks(blocks);
  return { docs, tf, weight: groupZeroWeight(term), tiers: [] };
}
