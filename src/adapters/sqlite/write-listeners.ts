/**
 * Derived tables that SqliteCatalogStore keeps in sync inside its own write transactions (the
 * search index). Listeners run synchronously on the store's connection, inside the transaction
 * of the write that triggered them, so the derived state commits or rolls back with it.
 */
import type { Attribute } from '../../api/schemas.js';
import type { StoredPart } from '../../core/model.js';

export interface CatalogWriteListener {
  /**
   * A part was created (`created`: a new `parts` row) or updated; `rowid` is its `parts.rowid_`,
   * `attributes` every attribute as of this transaction.
   */
  partWritten(rowid: number, part: StoredPart, attributes: ReadonlyMap<string, Attribute>, created: boolean): void;
  /** The part with this `parts.rowid_` is being deleted. */
  partDeleted(rowid: number): void;
  /** An attribute was created (`before` undefined) or updated. */
  attributeWritten(before: Attribute | undefined, after: Attribute): void;
}
