/**
 * The search engine's block store on PostgreSQL, write side (docs/search.md, "Index";
 * migration 4): the same layout as SQLite's (adapters/sqlite/search/engine-store.ts), so the same
 * core code (src/core/search/engine) reads it and ranks alike. Written INSIDE the catalog store's
 * write transaction: a {@link PgEngineWrite} gathers one transaction's changes per part and writes
 * them once (`flush`), sorted by term, so a batch of parts costs one rewrite of each touched block,
 * in a handful of array-parameter statements whatever the batch size.
 *
 * Tables:
 * - `engine_terms`: term -> id; `version` = the write that added the term.
 * - `engine_term_changes`: per write, the ids of the stored terms whose postings it changed (the
 *   last EMPTIED_TERMS_KEPT_VERSIONS writes): with engine_terms.version, what a reader refreshes.
 * - `engine_postings`: (term id, first doc) -> bytea block of ≤ BLOCK_SIZE postings (core postings.ts).
 * - `engine_docs`: per CHUNK docs (doc id = parts.pk): card, order key, token counts, flags (core doc-chunks.ts).
 * - `engine_stats`: version, parts, sum of lengths per tier (avgdl), and `rebuilt` (the version of the
 *   last full rebuild: readers drop every cache older than it).
 * Writes are serialised by the catalog write lock (database.ts), so versions commit in order.
 */
import { TIERS } from '../../../core/search/engine/bm25.js';
import { CHUNK, CHUNK_BYTES, DOC_EXISTS, DOC_HOLDER, readDoc, writeDoc, writeKey } from '../../../core/search/engine/doc-chunks.js';
import { documentChanges, tierLength, type EngineDocument } from '../../../core/search/engine/document.js';
import { isVocabularyTerm, typoKeyColumns } from '../../../core/search/typo.js';
import { BLOCK_SIZE, decodeBlock, emptyPostings, encodeBlock, GatheredPostings, GROUPS, mergeSorted, type Postings } from '../../../core/search/engine/postings.js';
import { forEachPreparedTerm, preparedHolder, preparedLengths, type PreparedPartDocuments } from '../../../core/search/engine/prepared-documents.js';
import type { PgEngineTails } from './engine-tails.js';
import { compareBinary } from '../../../core/search/rank.js';
import type { PgClient } from '../database.js';

/**
 * A term as stored in engine_terms.term: PostgreSQL text cannot hold NUL, which filter terms use
 * (document.ts filterTerm), so NUL becomes U+E000 '0' and U+E000 itself U+E000 '1'. A prefix-free
 * code per character, so prefixes stay prefixes (term >= p AND term < p || U+10FFFF).
 */
export function pgTerm(term: string): string {
  if (!term.includes('\u0000') && !term.includes('\uE000')) return term;
  return term.replaceAll('\uE000', '\uE0001').replaceAll('\u0000', '\uE0000');
}

/** The inverse of {@link pgTerm}. */
export function fromPgTerm(stored: string): string {
  return stored.includes('\uE000') ? stored.replace(/\uE000([01])/g, (_, d: string) => (d === '0' ? '\u0000' : '\uE000')) : stored;
}

/**
 * Writes after which a term a write emptied leaves engine_terms and the vocabulary
 * ({@link pruneEmptiedTerms}): until then a reader learns of the emptying by the term's version
 * (it evicts the list it kept); a reader further behind than this forgets every term it kept
 * (engine-reader.ts), since a term deleted meanwhile shows it nothing.
 */
export const EMPTIED_TERMS_KEPT_VERSIONS = 256;
/** A write whose version is a multiple of this prunes the emptied terms (pruneEmptiedTerms). */
const PRUNE_EVERY_VERSIONS = 16;

/** Key spacing of parts appended at either end of the part id order. */
export const KEY_STEP = 1024;

/** engine_stats as read. */
export interface EngineStatsRow {
  version: number;
  rebuilt: number;
  n: number;
  len0: number;
  len1: number;
  len2: number;
  len3: number;
}

interface PendingDoc {
  partId: string;
  card: number;
  lengths: readonly number[];
  flags: number;
}

/** One write transaction's engine changes: gather with put/remove, then flush once before COMMIT. */
export class PgEngineWrite {
  /** The changes of the transaction, in flat arrays (core postings.ts: no object per posting for the collector to copy). */
  private readonly gathered = new GatheredPostings();
  private readonly docs = new Map<number, PendingDoc>();
  private readonly delta = { n: 0, len: [0, 0, 0, 0] };
  private clear = false;

  /** `tails`: the process's memory of where lists end, kept across its writes (engine-tails.ts). */
  constructor(private readonly tails: PgEngineTails) {}

  /** Indexes `doc` as part `pk` (card `card`), replacing `previous` (what was indexed for it, if anything). */
  put(pk: number, partId: string, card: number, doc: EngineDocument, previous: EngineDocument | undefined): void {
    if (previous) this.addStats(previous.lengths, -1);
    for (const [term, tf] of documentChanges(doc, previous)) this.gathered.set(term, pk, tf);
    this.addStats(doc.lengths, 1);
    this.docs.set(pk, { partId, card, lengths: doc.lengths, flags: DOC_EXISTS | (doc.holder ? DOC_HOLDER : 0) });
  }

  /**
   * {@link put} of a NEW part (nothing indexed for it) whose documents an import's reader thread
   * built (core/search/engine/prepared-documents.ts), read where they are packed.
   */
  putPrepared(pk: number, partId: string, card: number, prepared: PreparedPartDocuments): void {
    forEachPreparedTerm(prepared, (term, group, count, tf) => (tf ? this.gathered.set(term, pk, tf) : this.gathered.setOne(term, pk, group, count)));
    const lengths = preparedLengths(prepared);
    this.addStats(lengths, 1);
    this.docs.set(pk, { partId, card, lengths, flags: DOC_EXISTS | (preparedHolder(prepared) ? DOC_HOLDER : 0) });
  }

  /** Removes part `pk`, indexed as `previous`. */
  remove(pk: number, previous: EngineDocument): void {
    for (const term of previous.terms.keys()) this.gathered.set(term, pk, null);
    this.addStats(previous.lengths, -1);
    this.docs.set(pk, { partId: '', card: 0, lengths: [0, 0, 0, 0, 0], flags: 0 });
  }

  /** Empties every engine table first (a full rebuild: every part is put after this). */
  clearAll(): void {
    this.clear = true;
  }

  /** Parts gathered so far (a rebuild flushes every few thousand). */
  get size(): number {
    return this.docs.size;
  }

  private addStats(lengths: readonly number[], sign: number): void {
    this.delta.n += sign;
    for (let t = 0; t < TIERS; t++) this.delta.len[t] = (this.delta.len[t] ?? 0) + sign * tierLength(lengths, t);
  }

  /**
   * Writes the gathered changes in `c`'s transaction (which holds the catalog write lock), then
   * forgets them. Four round trips for a write of a few parts (the statistics with the doc chunks
   * it touches; the stored terms; the touched blocks; every block rewrite and new row in one last
   * statement): each round trip holds the lock while it waits for this process's event loop.
   */
  async flush(c: PgClient): Promise<void> {
    if (!this.clear && this.gathered.size === 0 && this.docs.size === 0) return;
    // The statistics move by this write's deltas in the statement that takes the new version and
    // reads the doc chunks this write changes (none after a TRUNCATE: a rebuild starts empty).
    const d = this.delta;
    const wanted = this.clear ? [] : [...new Set([...this.docs.keys()].map((pk) => Math.floor(pk / CHUNK)))];
    const set = this.clear ? 'rebuilt = version + 1, n = $1, len0 = $2, len1 = $3, len2 = $4, len3 = $5' : 'n = n + $1, len0 = len0 + $2, len1 = len1 + $3, len2 = len2 + $4, len3 = len3 + $5';
    // The row versions before and after (xmin): whether the memory of list ends still holds (engine-tails.ts).
    const rows = (await c.query<{ version: number; before: string; after: string; chunk: number | null; data: Buffer | null }>(
      `WITH s AS (UPDATE engine_stats SET version = version + 1, ${set} WHERE id = 0 RETURNING version, xmin::text AS after)
       SELECT s.version, (SELECT xmin::text FROM engine_stats WHERE id = 0) AS before, s.after, e.chunk, e.data
       FROM s LEFT JOIN engine_docs e ON e.chunk = ANY($6::int[])`,
      [d.n, d.len[0], d.len[1], d.len[2], d.len[3], wanted],
    )).rows;
    const version = rows[0]?.version;
    if (version === undefined) throw new Error('engine_stats is missing (PostgreSQL migration 4)');
    this.tails.begin(rows[0]?.before ?? '');
    const chunks = new Map<number, Buffer>();
    for (const k of wanted) chunks.set(k, Buffer.alloc(CHUNK_BYTES));
    for (const r of rows) if (r.chunk !== null && r.data) r.data.copy(chunks.get(r.chunk) as Buffer);
    if (this.clear) {
      await c.query('TRUNCATE engine_postings, engine_terms, engine_docs, engine_emptied_terms, engine_term_changes');
      this.tails.clear();
      this.clear = false;
    } else if (version % PRUNE_EVERY_VERSIONS === 0) await pruneEmptiedTerms(c, version - EMPTIED_TERMS_KEPT_VERSIONS);
    const pending = await this.writeTerms(c);
    await this.writeDocs(c, chunks);
    await writePending(c, version, pending, chunks);
    this.tails.wrote(rows[0]?.after ?? '');
    this.gathered.clear();
    this.docs.clear();
    this.delta.n = 0;
    this.delta.len = [0, 0, 0, 0];
  }

  /** Reads the stored blocks this write changes and gathers the blocks to overwrite, delete and insert (writePending). */
  private async writeTerms(c: PgClient): Promise<PendingBlocks> {
    const pending: PendingBlocks = { freshTerms: [], changedIds: [], emptied: [], ids: [], terms: [], first: [], data: [], rewritten: [], rewrittenFirst: [], rewrittenData: [], dropped: [], droppedFirst: [] };
    if (this.gathered.termCount === 0) return pending;
    this.gathered.prepare();
    const sorted = this.gathered.sortedTerms();
    // The stored terms of this write: their rows stay as they are, the changed-terms log names them
    // (writePending), so a write leaves no dead row of each term it touches.
    const known = new Map((await c.query<{ id: number; term: string }>('SELECT id, term FROM engine_terms WHERE term = ANY($1::text[])', [sorted.map(pgTerm)]))
      .rows.map((r) => [fromPgTerm(r.term), r.id]));
    pending.changedIds = [...known.values()];
    // A block of a stored term names its id; one of a new term its (stored form of the) term.
    // `rewriteFirst`: the first block keeps the first doc of a stored block, overwritten in place.
    // Returns the first doc of the last block written (undefined: none).
    const addBlocks = (id: number | null, term: string | null, postings: Postings, rewriteFirst = false): number | undefined => {
      let last: number | undefined;
      for (let i = 0; i < postings.docs.length; i += BLOCK_SIZE) {
        const end = Math.min(postings.docs.length, i + BLOCK_SIZE);
        const first = postings.docs[i] ?? 0;
        const data = Buffer.from(encodeBlock(postings, i, end));
        if (i === 0 && rewriteFirst) {
          pending.rewritten.push(id ?? 0);
          pending.rewrittenFirst.push(first);
          pending.rewrittenData.push(data);
        } else {
          pending.ids.push(id);
          pending.terms.push(term);
          pending.first.push(first);
          pending.data.push(data);
        }
        last = first;
      }
      return last;
    };
    // New terms: nothing stored to read, merge or delete (most terms of an import).
    const existing: string[] = [];
    for (const t of sorted) {
      if (known.has(t)) {
        existing.push(t);
        continue;
      }
      const postings = mergeSorted(emptyPostings(), this.gathered.changes(t));
      if (postings.docs.length === 0) continue;
      const stored = pgTerm(t);
      pending.freshTerms.push(stored);
      addBlocks(null, stored, postings);
    }
    if (existing.length > 0) {
      const ids = existing.map((t) => known.get(t) ?? 0);
      const changesOf = existing.map((t) => this.gathered.changes(t));
      // Only the blocks that hold a changed doc (the block starting at or before it) are read and
      // rewritten, each on its own: the blocks between two changed docs stay as stored. Reading
      // every block between a term's smallest and largest changed doc made a write of a few parts
      // spread over the catalog read and rewrite whole lists of its frequent words.
      // A term whose changes all fall in its last block, where this process knows it to start,
      // reads that block by its key; the others name their changed docs.
      const keyTerms: number[] = [];
      const keyFirst: number[] = [];
      const pairTerms: number[] = [];
      const pairDocs: number[] = [];
      changesOf.forEach((changes, i) => {
        const id = ids[i] ?? 0;
        const last = this.tails.last(id);
        if (last !== undefined && (changes.docs[0] ?? 0) >= last) {
          keyTerms.push(id);
          keyFirst.push(last);
          return;
        }
        for (const doc of changes.docs) {
          pairTerms.push(id);
          pairDocs.push(doc);
        }
      });
      // The touched blocks are read (one statement); each is overwritten where it keeps its first
      // doc (an UPDATE of the row, which leaves its index entry alone), else deleted (writePending).
      // A doc at or after a term's last block start belongs to that block (an import's docs all
      // do): one seek a term for those, one a doc only for the docs before it.
      // Rows with data are the touched blocks (by term, then first doc); the others name where a
      // looked-up term's list ended (a separate branch: joined to the blocks, the planner, which
      // cannot count a CTE's rows, may scan the CTE once per block).
      const blocks = await c.query<{ term_id: number; first_doc: number; data: Buffer | null; last: number | null }>(
        `WITH pairs AS (SELECT * FROM unnest($1::int[], $2::int[]) AS u(id, doc)),
         lasts AS (
           SELECT t.id, t.top, (SELECT f.first_doc FROM engine_postings f WHERE f.term_id = t.id ORDER BY f.first_doc DESC LIMIT 1) AS last
           FROM (SELECT id, max(doc) AS top FROM pairs GROUP BY id) AS t),
         touched AS (
           SELECT l.id, l.last AS first_doc FROM lasts l WHERE l.top >= l.last
           UNION
           SELECT u.id, s.first_doc
           FROM pairs u JOIN lasts l ON l.id = u.id AND u.doc < l.last
           CROSS JOIN LATERAL (SELECT f.first_doc FROM engine_postings f WHERE f.term_id = u.id AND f.first_doc <= u.doc ORDER BY f.first_doc DESC LIMIT 1) AS s
           UNION ALL
           SELECT * FROM unnest($3::int[], $4::int[]) AS k(id, first_doc))
         SELECT p.term_id, p.first_doc, p.data, NULL::int AS last FROM touched
         CROSS JOIN LATERAL (SELECT b.term_id, b.first_doc, b.data FROM engine_postings b WHERE b.term_id = touched.id AND b.first_doc = touched.first_doc) AS p
         UNION ALL
         SELECT l.id, NULL, NULL, l.last FROM lasts l WHERE l.last IS NOT NULL
         ORDER BY 1, 2`,
        [pairTerms, pairDocs, keyTerms, keyFirst],
      );
      const touched = new Map<number, { first_doc: number; data: Buffer }[]>();
      // Where each touched term's list ended before this write (the known ends, then the looked-up ones).
      const lastOf = new Map<number, number>(keyTerms.map((id, i) => [id, keyFirst[i] ?? 0]));
      for (const b of blocks.rows) {
        if (b.data === null) {
          if (b.last !== null) lastOf.set(b.term_id, b.last);
          continue;
        }
        let list = touched.get(b.term_id);
        if (!list) {
          list = [];
          touched.set(b.term_id, list);
        }
        list.push({ first_doc: b.first_doc, data: b.data });
      }
      changesOf.forEach((changes, i) => {
        const id = ids[i] ?? 0;
        const stored = touched.get(id) ?? [];
        const blocksBefore = pending.first.length + pending.rewritten.length;
        // Each change goes with the last touched block starting at or before it (its own block);
        // changes before the first block make blocks of their own (k = -1). Both are sorted by doc,
        // so each block's changes are one run of them.
        const docs = changes.docs;
        let k = -1;
        // The first doc of the last block the last group wrote (undefined: it wrote none).
        let lastWritten: number | undefined;
        for (let from = 0; from < docs.length; ) {
          const doc = docs[from] ?? 0;
          while (k + 1 < stored.length && (stored[k + 1]?.first_doc ?? 0) <= doc) k++;
          const next = stored[k + 1]?.first_doc ?? Infinity;
          let to = from + 1;
          while (to < docs.length && (docs[to] ?? 0) < next) to++;
          const base = emptyPostings();
          const block = stored[k];
          if (block) decodeBlock(block.data, block.first_doc, base);
          const merged = mergeSorted(base, { docs: docs.slice(from, to), tf: changes.tf.slice(from * GROUPS, to * GROUPS), removes: changes.removes });
          // A block that keeps its first doc (an append to a list's last block, an update of a part
          // in it) is overwritten in place; one that loses it is deleted and its postings inserted.
          const inPlace = block !== undefined && merged.docs[0] === block.first_doc;
          if (block && !inPlace) {
            pending.dropped.push(id);
            pending.droppedFirst.push(block.first_doc);
          }
          lastWritten = addBlocks(id, null, merged, inPlace);
          from = to;
        }
        // The list's end: moved when its last block was among those rewritten, else where it was
        // (unknown when its last block was not found: changes before every stored block).
        const lastBefore = lastOf.get(id);
        if (lastBefore !== undefined && stored[stored.length - 1]?.first_doc === lastBefore) this.tails.set(id, lastWritten);
        else this.tails.set(id, lastBefore);
        // Its touched blocks emptied: the term may hold no posting now (its other blocks, if any, are checked when it is pruned).
        if (pending.first.length + pending.rewritten.length === blocksBefore) pending.emptied.push(id);
      });
    }
    return pending;
  }

  /** Updates `chunks` (the doc chunks of this write, read by flush) with this write's docs; writePending stores them. */
  private async writeDocs(c: PgClient, chunks: Map<number, Buffer>): Promise<void> {
    if (this.docs.size === 0) return;
    const load = async (pks: Iterable<number>) => {
      const wanted = [...new Set([...pks].map((pk) => Math.floor(pk / CHUNK)))].filter((k) => !chunks.has(k));
      if (wanted.length === 0) return;
      const rows = await c.query<{ chunk: number; data: Buffer }>('SELECT chunk, data FROM engine_docs WHERE chunk = ANY($1::int[])', [wanted]);
      for (const k of wanted) chunks.set(k, Buffer.alloc(CHUNK_BYTES));
      for (const r of rows.rows) r.data.copy(chunks.get(r.chunk) as Buffer);
    };
    const chunkOf = (pk: number) => chunks.get(Math.floor(pk / CHUNK)) as Buffer;
    await load(this.docs.keys());
    // A part already indexed keeps its key; a new one gets a key between its neighbours in part id order.
    const fresh: { pk: number; partId: string }[] = [];
    const keys = new Map<number, number>();
    for (const [pk, doc] of this.docs) {
      if (doc.flags === 0) continue;
      const stored = readDoc(chunkOf(pk), pk);
      if ((stored.flags & DOC_EXISTS) !== 0) keys.set(pk, stored.key);
      else fresh.push({ pk, partId: doc.partId });
    }
    let renumber = false;
    if (fresh.length > 0) renumber = await this.placeNew(c, fresh, keys, load, chunkOf);
    for (const [pk, doc] of this.docs) writeDoc(chunkOf(pk), pk, { card: doc.card, key: keys.get(pk) ?? 0, lengths: doc.lengths, flags: doc.flags });
    if (renumber) {
      // Rare: a gap between two keys is used up; every part gets a key KEY_STEP apart in part id order.
      const order = (await c.query<{ pk: number }>('SELECT pk FROM parts ORDER BY part_id')).rows.map((r) => r.pk);
      await load(order);
      order.forEach((pk, i) => writeKey(chunkOf(pk), pk, i * KEY_STEP));
    }
  }

  /**
   * Keys for new parts: sorted by part id, they form runs between parts that already have a key
   * (each part's neighbours in `parts` are looked up in one statement); a run gets keys spread
   * between its neighbours' (or KEY_STEP apart beyond an end). Returns true when a gap is too
   * narrow, so every key must be renumbered.
   */
  private async placeNew(
    c: PgClient,
    fresh: { pk: number; partId: string }[],
    keys: Map<number, number>,
    load: (pks: Iterable<number>) => Promise<void>,
    chunkOf: (pk: number) => Buffer,
  ): Promise<boolean> {
    fresh.sort((a, b) => compareBinary(a.partId, b.partId));
    const rows = await c.query<{ before: number | null; after: number | null }>(
      `SELECT (SELECT pk FROM parts WHERE part_id < u.pid ORDER BY part_id DESC LIMIT 1) AS before,
              (SELECT pk FROM parts WHERE part_id > u.pid ORDER BY part_id LIMIT 1) AS after
       FROM unnest($1::text[]) WITH ORDINALITY AS u(pid, i) ORDER BY u.i`,
      [fresh.map((f) => f.partId)],
    );
    const neighbours = rows.rows;
    const isFresh = new Set(fresh.map((f) => f.pk));
    const old: number[] = [];
    for (const r of neighbours) {
      if (r.before !== null && !isFresh.has(r.before)) old.push(r.before);
      if (r.after !== null && !isFresh.has(r.after)) old.push(r.after);
    }
    await load(old);
    const keyOf = (pk: number): number | undefined => {
      const stored = readDoc(chunkOf(pk), pk);
      return (stored.flags & DOC_EXISTS) !== 0 ? stored.key : undefined;
    };
    let renumber = false;
    for (let start = 0; start < fresh.length;) {
      // A run: each next new part is the previous one's successor in part id order.
      let end = start + 1;
      while (end < fresh.length && neighbours[end - 1]?.after === fresh[end]?.pk) end++;
      const before = neighbours[start]?.before ?? null;
      const after = neighbours[end - 1]?.after ?? null;
      const lo = before === null ? undefined : keyOf(before);
      const hi = after === null ? undefined : keyOf(after);
      if ((before !== null && lo === undefined) || (after !== null && hi === undefined)) renumber = true;
      const len = end - start;
      let prev = -Infinity;
      for (let i = 0; i < len; i++) {
        let key: number;
        if (lo === undefined && hi === undefined) key = i * KEY_STEP;
        else if (hi === undefined) key = (lo ?? 0) + (i + 1) * KEY_STEP;
        else if (lo === undefined) key = hi - (len - i) * KEY_STEP;
        else key = lo + ((hi - lo) * (i + 1)) / (len + 1);
        if (!(key > prev) || (lo !== undefined && !(key > lo)) || (hi !== undefined && !(key < hi))) renumber = true;
        prev = key;
        keys.set(fresh[start + i]?.pk ?? 0, key);
      }
      start = end;
    }
    return renumber;
  }
}

/** The blocks a flush writes: per block its term's id, or for a new term its stored form (and no id). */
interface PendingBlocks {
  /** New terms (stored form), inserted with the blocks (engine_terms.version: this write). */
  freshTerms: string[];
  /** Ids of the stored terms this write changed (engine_term_changes). */
  changedIds: number[];
  /** Stored terms this write left without a touched block (engine_emptied_terms). */
  emptied: number[];
  /** Blocks to insert: the term's id, or for a new term its stored form; first doc; data. */
  ids: (number | null)[];
  terms: (string | null)[];
  first: number[];
  data: Buffer[];
  /** Stored blocks overwritten in place (same term and first doc): term id, first doc, data. */
  rewritten: number[];
  rewrittenFirst: number[];
  rewrittenData: Buffer[];
  /** Stored blocks deleted (their postings, if any, are in blocks to insert): term id, first doc. */
  dropped: number[];
  droppedFirst: number[];
}

/**
 * Deletes the changed-terms log's rows of writes of version `through` or before (a reader that far
 * behind forgets every term it kept), and the terms emptied by those writes that hold no posting now
 * (one refilled since keeps its row and id), then their words from the vocabulary (search_terms)
 * with their typo keys (core/search/typo.ts lookupKeys), so that renames and updates grow neither
 * the dictionary nor the vocabulary. Runs before the write's own terms are looked up: a term it
 * brings back is then a new term with a new id.
 */
async function pruneEmptiedTerms(c: PgClient, through: number): Promise<void> {
  const gone = (await c.query<{ term: string }>(
    `WITH doomed AS (DELETE FROM engine_emptied_terms WHERE version <= $1 RETURNING term_id),
     logged AS (DELETE FROM engine_term_changes WHERE version <= $1)
     DELETE FROM engine_terms t WHERE t.id IN (SELECT term_id FROM doomed)
     AND NOT EXISTS (SELECT 1 FROM engine_postings p WHERE p.term_id = t.id) RETURNING t.term`,
    [through],
  )).rows.map((r) => fromPgTerm(r.term));
  const words = gone.filter(isVocabularyTerm);
  if (words.length === 0) return;
  const keys = typoKeyColumns(words);
  await c.query(
    `WITH words AS (DELETE FROM search_terms WHERE term = ANY($1::text[]))
     DELETE FROM search_term_keys k USING unnest($2::text[], $3::text[]) AS u(key, term) WHERE k.key = u.key AND k.term = u.term`,
    [words, keys.keys, keys.words],
  );
}

/** Blocks and doc chunks a single last statement writes at most (a rebuild's batch may hold more). */
const ONE_STATEMENT_BLOCKS = 20_000;
const ONE_STATEMENT_CHUNKS = 5000;

/**
 * Writes a flush's new terms, blocks and doc chunks: in one statement for a write of a few parts,
 * in bounded statements for a large batch (an import, a rebuild).
 */
async function writePending(c: PgClient, version: number, pending: PendingBlocks, chunks: ReadonlyMap<number, Buffer>): Promise<void> {
  const chunkIds = [...chunks.keys()];
  if (pending.first.length + pending.rewritten.length <= ONE_STATEMENT_BLOCKS && chunkIds.length <= ONE_STATEMENT_CHUNKS) {
    // The sub-statements touch disjoint rows: a block overwritten keeps its key, one deleted is
    // inserted again (if at all) under another first doc.
    await c.query(
      `WITH fresh AS (INSERT INTO engine_terms (term, version) SELECT unnest($1::text[]), $2 RETURNING id, term),
       blocks AS (
         INSERT INTO engine_postings (term_id, first_doc, data)
         SELECT coalesce(u.id, f.id), u.first_doc, u.data FROM unnest($3::int[], $4::text[], $5::int[], $6::bytea[]) AS u(id, term, first_doc, data)
         LEFT JOIN fresh f ON u.id IS NULL AND f.term = u.term),
       emptied AS (INSERT INTO engine_emptied_terms (term_id, version) SELECT unnest($9::int[]), $2),
       changed AS (INSERT INTO engine_term_changes (version, ids) SELECT $2, $10::int[] WHERE cardinality($10::int[]) > 0),
       rewritten AS (
         UPDATE engine_postings p SET data = u.data FROM unnest($11::int[], $12::int[], $13::bytea[]) AS u(id, first_doc, data)
         WHERE p.term_id = u.id AND p.first_doc = u.first_doc),
       dropped AS (
         DELETE FROM engine_postings p USING unnest($14::int[], $15::int[]) AS u(id, first_doc) WHERE p.term_id = u.id AND p.first_doc = u.first_doc)
       INSERT INTO engine_docs (chunk, version, data) SELECT u.c, $2, u.d FROM unnest($7::int[], $8::bytea[]) AS u(c, d)
       ON CONFLICT (chunk) DO UPDATE SET version = excluded.version, data = excluded.data`,
      [pending.freshTerms, version, pending.ids, pending.terms, pending.first, pending.data, chunkIds, chunkIds.map((k) => chunks.get(k)), pending.emptied, pending.changedIds,
        pending.rewritten, pending.rewrittenFirst, pending.rewrittenData, pending.dropped, pending.droppedFirst],
    );
    return;
  }
  if (pending.dropped.length > 0) {
    await c.query('DELETE FROM engine_postings p USING unnest($1::int[], $2::int[]) AS u(id, first_doc) WHERE p.term_id = u.id AND p.first_doc = u.first_doc', [pending.dropped, pending.droppedFirst]);
  }
  for (let i = 0; i < pending.rewritten.length; i += ONE_STATEMENT_BLOCKS) {
    await c.query('UPDATE engine_postings p SET data = u.data FROM unnest($1::int[], $2::int[], $3::bytea[]) AS u(id, first_doc, data) WHERE p.term_id = u.id AND p.first_doc = u.first_doc',
      [pending.rewritten.slice(i, i + ONE_STATEMENT_BLOCKS), pending.rewrittenFirst.slice(i, i + ONE_STATEMENT_BLOCKS), pending.rewrittenData.slice(i, i + ONE_STATEMENT_BLOCKS)]);
  }
  if (pending.emptied.length > 0) await c.query('INSERT INTO engine_emptied_terms (term_id, version) SELECT unnest($1::int[]), $2', [pending.emptied, version]);
  if (pending.changedIds.length > 0) await c.query('INSERT INTO engine_term_changes (version, ids) VALUES ($1, $2::int[])', [version, pending.changedIds]);
  const idOf = new Map<string, number>();
  if (pending.freshTerms.length > 0) {
    const rows = await c.query<{ id: number; term: string }>('INSERT INTO engine_terms (term, version) SELECT unnest($1::text[]), $2 RETURNING id, term', [pending.freshTerms, version]);
    for (const r of rows.rows) idOf.set(r.term, r.id);
  }
  const ids = pending.ids.map((id, i) => id ?? idOf.get(pending.terms[i] ?? '') ?? 0);
  for (let i = 0; i < ids.length; i += ONE_STATEMENT_BLOCKS) {
    await c.query('INSERT INTO engine_postings (term_id, first_doc, data) SELECT * FROM unnest($1::int[], $2::int[], $3::bytea[])',
      [ids.slice(i, i + ONE_STATEMENT_BLOCKS), pending.first.slice(i, i + ONE_STATEMENT_BLOCKS), pending.data.slice(i, i + ONE_STATEMENT_BLOCKS)]);
  }
  for (let i = 0; i < chunkIds.length; i += ONE_STATEMENT_CHUNKS) {
    const slice = chunkIds.slice(i, i + ONE_STATEMENT_CHUNKS);
    await c.query(
      `INSERT INTO engine_docs (chunk, version, data) SELECT u.c, $2, u.d FROM unnest($1::int[], $3::bytea[]) AS u(c, d)
       ON CONFLICT (chunk) DO UPDATE SET version = excluded.version, data = excluded.data`,
      [slice, version, slice.map((k) => chunks.get(k))],
    );
  }
}
