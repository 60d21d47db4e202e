/**
 * Derived tables that SqliteCatalogStore keeps in sync inside its own write transactions (the
 * search index). Listeners run synchronously on the store's connection, inside the transaction
 * of the write that triggered them, so the derived state commits or rolls back with it.
 */
import type { Attribute } from '../../api/schemas.js';
import type { StoredPart } from '../../core/model.js';
import type { PreparedPartDocuments } from '../../core/search/engine/prepared-documents.js';

export interface CatalogWriteListener {
  /**
   * A part was created (`created`: a new `parts` row) or updated (`previous`: what was stored
   * before); `rowid` is its `parts.rowid_`, `attributes` every attribute as of this transaction.
   * `prepared`: the part's search documents, built already from `part` and these `attributes`
   * (an import's reader thread; core/search/engine/prepared-documents.ts), to use instead of
   * building them again.
   */
  partWritten(rowid: number, part: StoredPart, attributes: ReadonlyMap<string, Attribute>, created: boolean, previous?: StoredPart, prepared?: PreparedPartDocuments): void;
  /** The part with this `parts.rowid_` (stored as `previous`) is being deleted. */
  partDeleted(rowid: number, previous: StoredPart): void;
  /** An attribute was created (`before` undefined) or updated. */
  attributeWritten(before: Attribute | undefined, after: Attribute): void;
  /** A settings row that a listener's derived state depends on was written (`before`: the stored value, undefined when absent). */
  settingWritten?(key: string, before: string | undefined, after: string): void;
  /**
   * The transaction's writes are done and it is about to commit: write what was gathered (a
   * listener may gather per-item changes and write them once per transaction, as a bulk build).
   */
  beforeCommit?(): void;
  /** The transaction's body threw: drop what was gathered. */
  rolledBack?(): void;
  /**
   * The transaction whose writes {@link beforeCommit} wrote has committed. Not called when the
   * commit itself fails (a full disk): a listener keeping state about its own writes trusts it
   * only once this is called.
   */
  committed?(): void;
}
