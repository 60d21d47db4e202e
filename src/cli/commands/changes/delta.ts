/**
 * Deltas of the change feed (docs/cli.md "Keeping a second catalog in sync"): `<noun> list
 * --changed-since N` prints the items of one type changed after change N as they are now (read
 * through the ordinary select, so with the caller's view), then a tombstone
 * `{"<id field>": id, "deleted": true}` for each deleted one; `<noun> import` applies both
 * (tombstones through the resource's delete). The next delta starts at the number said on stderr.
 */
import type { ChangeType } from '../../../api/change-schemas.js';
import type { BulkWriteResult } from '../../../api/schemas.js';
import type { CatalogClient } from '../../../client/types.js';

/** Changes read per request. */
const FEED_PAGE = 1000;
/** Ids selected per request (the select endpoints' limit). */
const SELECT_CHUNK = 1000;

/** Between the two part ids of a relation's key in {@link ChangedItems}. */
export const RELATION_KEY_SEPARATOR = '\u0000';

/** The latest operation of each item of one type changed after `since`, and where the feed stood. */
export interface ChangedItems {
  /** Written items, in the order of their latest change. */
  upserted: string[];
  /** Deleted items (their latest change is a deletion). */
  deleted: string[];
  /** The number the next delta starts after. */
  next: number;
}

/**
 * Reads the feed of `type` after `since` up to its end when the call started (later changes are
 * the next delta's) and keeps the latest operation of each id. Memory: one entry per changed id.
 *
 * @throws CatalogError gone (410) when changes after `since` were pruned; bad_request for a
 *   `since` beyond the catalog's latest change.
 */
export async function changedItems(client: CatalogClient, type: ChangeType, since: number): Promise<ChangedItems> {
  const latest = new Map<string, 'upsert' | 'delete'>();
  let next = since;
  let end: number | undefined;
  for (;;) {
    const page = await client.changes({ since: next, limit: FEED_PAGE, types: [type] });
    end ??= page.latest;
    for (const change of page.changes) {
      if (change.change > end) break;
      // A relation is its pair: `anchor_part_id` NUL `related_part_id` (RELATION_KEY_SEPARATOR).
      const key = change.related_part_id !== undefined ? `${change.id}${RELATION_KEY_SEPARATOR}${change.related_part_id}` : change.id;
      latest.delete(key);
      latest.set(key, change.op);
      next = change.change;
    }
    if (!page.more || page.changes.length === 0 || next >= end) {
      next = Math.max(next, Math.min(end, page.latest));
      break;
    }
  }
  const upserted: string[] = [];
  const deleted: string[] = [];
  for (const [id, op] of latest) (op === 'delete' ? deleted : upserted).push(id);
  return { upserted, deleted, next };
}

/**
 * The delta records of one resource: each written item as `select` answers it now (an item
 * deleted since is a tombstone), then the tombstones of the deleted ones.
 */
export async function* deltaRecords(
  changed: ChangedItems,
  idField: string,
  select: (ids: string[]) => Promise<Record<string, unknown>[]>,
): AsyncGenerator<Record<string, unknown>> {
  const gone: string[] = [...changed.deleted];
  for (let i = 0; i < changed.upserted.length; i += SELECT_CHUNK) {
    const ids = changed.upserted.slice(i, i + SELECT_CHUNK);
    const found = new Map((await select(ids)).map((r) => [String(r[idField]), r]));
    for (const id of ids) {
      const record = found.get(id);
      if (record) yield record;
      else gone.push(id);
    }
  }
  for (const id of gone) yield { [idField]: id, deleted: true };
}

/** Whether an import row is a tombstone of a delta: `{"<id field>": id, "deleted": true}` and nothing else. */
export function isTombstone(item: Record<string, unknown>, idField: string): boolean {
  if (item.deleted !== true) return false;
  return Object.keys(item).every((key) => key === idField || key === 'deleted');
}

/**
 * Sends an import batch that may hold tombstones: the other items through `write` (as before),
 * then the tombstones through `remove` (a delete of their ids); one result, the deletions as
 * `deleted`. A tombstone of an item the catalog does not have is applied already (a delta read
 * twice, or a copy that never had it); any other refused deletion is an item error under its id.
 * `items[i]` keys of `write`'s errors are renumbered to the batch's own indexes.
 */
export async function writeWithTombstones(
  items: Record<string, unknown>[],
  idField: string,
  write: (items: Record<string, unknown>[]) => Promise<BulkWriteResult>,
  remove: (ids: string[]) => Promise<{ deleted: string[]; errors: Record<string, string[]> }>,
  existing: (ids: string[]) => Promise<Set<string>>,
): Promise<BulkWriteResult & { deleted?: string[] }> {
  const positions: number[] = [];
  const rest: Record<string, unknown>[] = [];
  const tombstones: string[] = [];
  items.forEach((item, index) => {
    if (isTombstone(item, idField)) tombstones.push(String(item[idField]));
    else {
      positions.push(index);
      rest.push(item);
    }
  });
  if (tombstones.length === 0) return write(items);
  const written = rest.length > 0 ? await write(rest) : { created: [], updated: [], errors: {} };
  const errors: Record<string, string[]> = {};
  for (const [key, messages] of Object.entries(written.errors)) {
    const indexed = /^items\[(\d+)\]$/.exec(key);
    errors[indexed ? `items[${positions[Number(indexed[1])] ?? 0}]` : key] = messages;
  }
  const removed = await remove(tombstones);
  const refused = Object.keys(removed.errors);
  const stillThere = refused.length > 0 ? await existing(refused) : new Set<string>();
  for (const [id, messages] of Object.entries(removed.errors)) if (stillThere.has(id)) errors[id] = messages;
  return { ...written, errors, deleted: removed.deleted };
}
