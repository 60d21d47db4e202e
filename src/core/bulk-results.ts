/**
 * The answers of bulk calls (spec 4.1, 4.2; decisions §1): per-item validation failures and store
 * decisions folded into `{created, updated, errors}` or `{deleted, errors}`, each id once.
 */
import type { BulkDeleteResult, BulkWriteResult } from '../api/schemas.js';

import { addErrors, type BulkItem } from './validation.js';
import type { Decision } from './model.js';

/**
 * Pairs each valid item with its decision (the store decided only the valid items, in order),
 * records validation failures and rule errors in `errors`, and hands each write to `onWrite`.
 */
function fold<T, V>(
  items: readonly BulkItem<T>[],
  decisions: readonly Decision<V>[],
  errors: Record<string, string[]>,
  onWrite: (key: string, created: boolean) => void,
): void {
  let d = 0;
  for (const item of items) {
    if ('messages' in item) {
      addErrors(errors, item.key, item.messages);
      continue;
    }
    const decision = decisions[d++];
    if (decision?.kind === 'error') addErrors(errors, item.key, decision.messages);
    else if (decision?.kind === 'write') onWrite(item.key, decision.created);
  }
}

/** Folds per-item decisions and validation failures into the bulk write result of spec 4.1. */
export function bulkWriteResult<T>(items: readonly BulkItem<T>[], decisions: readonly Decision<unknown>[]): BulkWriteResult {
  const result: BulkWriteResult = { created: [], updated: [], errors: {} };
  const seen = new Set<string>();
  fold(items, decisions, result.errors, (key, created) => {
    // An id written twice in one call is listed once: created if its first write created it.
    if (seen.has(key)) return;
    seen.add(key);
    (created ? result.created : result.updated).push(key);
  });
  return result;
}

/** Folds per-item validation failures and delete decisions into the bulk delete result (spec 4.1). */
export function bulkDeleteResult(items: readonly BulkItem<string>[], decisions: readonly Decision<null>[]): BulkDeleteResult {
  const result: BulkDeleteResult = { deleted: [], errors: {} };
  const seen = new Set<string>();
  fold(items, decisions, result.errors, (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    result.deleted.push(key);
  });
  return result;
}
