/**
 * Every current part's result card, packed in one buffer (issue 12: a word's first search;
 * docs/search.md, "sixth look").
 *
 * A search's page of 25 cards read from `parts` touches 25 table pages spread over the file, and on
 * these machines a page not touched for a while costs ~18 µs to touch again (its address
 * translation, through the guest's and the hypervisor's page tables): ~450 µs of a rare word's
 * first search, against ~13 µs once its cards are in the connection's card cache. The same cards
 * read from one buffer of the process's own memory, which `catalog serve` keeps in 2 MiB pages
 * (src/http/huge-pages.ts), cost a cache miss or two each.
 *
 * Each entry is the card's JSON tuple as SqliteSearchIndex's `partCards` statement builds it
 * (`[partId, serviceIdHex, serviceIdText, names, createdAt, modifiedAt]`), UTF-8, under the part's
 * rowid and the card id it was current with. A card id names one version of a part, so an entry
 * answers for that id only; ids come back (versions wrap, rowids of deleted parts are reused) only
 * through writes of the part's doc, and the owner drops the entries of every doc chunk written
 * since the snapshot it loaded ({@link dropChunks}). So the store only shrinks: a part written
 * after the load, and the other parts of its chunk (CHUNK rowids), are read from the table as
 * before, and so are the parts past its byte limit.
 */
import { CHUNK } from '../../../core/search/engine/doc-chunks.js';

/** Most bytes of cards one store holds (~125 bytes a card: ~2,000,000 parts); parts beyond are read from `parts` as before. */
export const CARD_STORE_MAX_BYTES = 256 * 1024 * 1024;
/** Bytes the buffer starts with; it doubles as it fills. */
const INITIAL_BYTES = 1024 * 1024;

/** One current card to keep: the part's rowid, its current card id (> 0), the card's JSON tuple. */
export type StoredCardRow = readonly [rowid: number, cardId: number, json: string];

/** The cards of current parts by rowid (see the module comment). Not thread-safe: one connection's. */
export class CurrentCardStore {
  /** By rowid: the card id the entry was current with, 0 for none. */
  private cardIds: Float64Array;
  /** By rowid: where its entry starts in {@link bytes}, and where the next one would (start + length). */
  private starts: Uint32Array;
  private ends: Uint32Array;
  private bytes: Buffer;
  private used = 0;
  /** Entries kept (and not dropped). */
  private kept = 0;

  private constructor(rowids: number, initialBytes: number) {
    this.cardIds = new Float64Array(rowids);
    this.starts = new Uint32Array(rowids);
    this.ends = new Uint32Array(rowids);
    // Not from Node's shared pool: memory of its own, which the huge-page pass can collapse.
    this.bytes = Buffer.allocUnsafeSlow(initialBytes);
  }

  /**
   * A store of `rows` (rowids below `rowids`), stopping before it would exceed `maxBytes` of card
   * text (the rows after are left to the table). Rows with a card id ≤ 0 or a rowid out of range
   * are skipped.
   */
  static load(rows: Iterable<StoredCardRow>, rowids: number, maxBytes = CARD_STORE_MAX_BYTES): CurrentCardStore {
    const store = new CurrentCardStore(rowids, Math.min(INITIAL_BYTES, maxBytes));
    for (const [rowid, cardId, json] of rows) {
      if (!(cardId > 0) || rowid < 0 || rowid >= rowids) continue;
      if (!store.add(rowid, cardId, json, maxBytes)) break;
    }
    return store;
  }

  /** Keeps one entry; false when the store is full. */
  private add(rowid: number, cardId: number, json: string, maxBytes: number): boolean {
    const need = Buffer.byteLength(json, 'utf8');
    if (this.used + need > maxBytes) return false;
    if (this.used + need > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.min(maxBytes, Math.max(this.bytes.length * 2, this.used + need)));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.starts[rowid] = this.used;
    this.used += this.bytes.write(json, this.used, 'utf8');
    this.ends[rowid] = this.used;
    this.cardIds[rowid] = cardId;
    this.kept++;
    return true;
  }

  /** Entries kept. */
  get size(): number {
    return this.kept;
  }

  /** Bytes of card text held. */
  get byteLength(): number {
    return this.used;
  }

  /** The JSON tuple of card `cardId` of the part at `rowid`, if this store holds that very card. */
  get(rowid: number, cardId: number): string | undefined {
    if (rowid < 0 || rowid >= this.cardIds.length || this.cardIds[rowid] !== cardId || cardId <= 0) return undefined;
    return this.bytes.toString('utf8', this.starts[rowid], this.ends[rowid]);
  }

  /** Forgets the entries of the parts whose rowids lie in `chunks` (doc chunks: rowid / CHUNK). */
  dropChunks(chunks: Iterable<number>): void {
    for (const chunk of chunks) {
      const end = Math.min((chunk + 1) * CHUNK, this.cardIds.length);
      for (let rowid = Math.max(0, chunk * CHUNK); rowid < end; rowid++) {
        if (this.cardIds[rowid] === 0) continue;
        this.cardIds[rowid] = 0;
        this.kept--;
      }
    }
  }
}
