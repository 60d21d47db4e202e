/**
 * The hash a `parts import --sync` remembers of a row (docs/cli.md, "Sync"): of the item as mapped
 * from the row, before validation, so the reader thread and the in-thread path hash alike.
 */
import { hash } from 'node:crypto';

/** The hash of a row as mapped (its item): equal items, equal hashes. One-shot `hash`: a Hash object per row cost more than the hashing. */
export function rowHash(item: unknown): string {
  return rowTextHash(JSON.stringify(item));
}

/** {@link rowHash} of an item already in JSON (`JSON.stringify(item)`). */
export function rowTextHash(json: string): string {
  return hash('sha256', json, 'base64url');
}
