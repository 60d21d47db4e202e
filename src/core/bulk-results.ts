/**
 * The answers of bulk calls (spec 4.1, 4.2; decisions §1): per-item validation failures and store
 * decisions folded into `{created, updated, errors}` or `{deleted, errors}`, each id once.
 */
import type { BulkDeleteResult, BulkWriteResult } from '../api/schemas.js';
import type { Decision } from './ports.js';
import { addErrors, type BulkItem } from './validation.js';

/** Folds per-item decisions and validation failures into the bulk write result of spec 4.1. */
export function bulkWriteResult<T>(items: readonly BulkItem<T>[], decisions: readonly Decision<unknown>[]): BulkWriteResult {
  const result: BulkWriteResult = { created: [], updated: [], errors: {} };
  const created = new Set<string>();
  const updated = new Set<string>();
  let d = 0;
  for (const item of items) {
    if ('messages' in item) {
      addErrors(result.errors, item.key, item.messages);
      continue;
    }
    const decision = decisions[d++];
    if (!decision || decision.kind === 'skip') continue;
    if (decision.kind === 'error') addErrors(result.errors, item.key, decision.messages);
    else if (decision.created) {
      created.add(item.key);
      result.created.push(item.key);
    } else if (!created.has(item.key) && !updated.has(item.key)) {
      updated.add(item.key);
      result.updated.push(item.key);
    }
  }
  return result;
}

/** Folds per-item validation failures and delete decisions into the bulk delete result (spec 4.1). */
export function bulkDeleteResult(items: readonly BulkItem<string>[], decisions: readonly Decision<null>[]): BulkDeleteResult {
  const result: BulkDeleteResult = { deleted: [], errors: {} };
  const deleted = new Set<string>();
  let d = 0;
  for (const item of items) {
    if ('messages' in item) {
      addErrors(result.errors, item.key, item.messages);
      continue;
    }
    const decision = decisions[d++];
    if (decision?.kind === 'error') addErrors(result.errors, item.key, decision.messages);
    else if (decision?.kind === 'write' && !deleted.has(item.key)) {
      deleted.add(item.key);
      result.deleted.push(item.key);
    }
  }
  return result;
}

