/**
 * Relations as an import resource (spec 2.3, 4.3; decisions §6). The API is all-or-nothing per
 * request, so a batch with bad rows is sent again without them: the bad rows go to the errors file
 * and the good ones are stored, as with every other import.
 */
import { CatalogError } from '../../../api/errors.js';
import { MAX_BULK_ITEMS, type BulkWriteResult } from '../../../api/schemas.js';
import type { CatalogClient } from '../../../client/types.js';
import { CSV_MAPPERS } from '../../import/mapped-entries.js';
import type { ImportSpec } from '../resource.js';

/** Indexes named by a 400's `errors[].path` (`items[3].type` -> 3) with their messages. */
function badItems(error: CatalogError): Map<number, string[]> {
  const bad = new Map<number, string[]>();
  for (const problem of error.errors ?? []) {
    const m = /^items\[(\d+)\]\.?(.*)$/.exec(problem.path);
    if (!m) continue;
    const index = Number(m[1]);
    const list = bad.get(index) ?? [];
    list.push(m[2] ? `${m[2]}: ${problem.message}` : problem.message);
    bad.set(index, list);
  }
  return bad;
}

/** Sends relations, dropping the items a 400 names and retrying the rest; errors keyed `items[<index>]`. */
async function sendRelations(client: CatalogClient, items: Record<string, unknown>[]): Promise<BulkWriteResult> {
  const result: BulkWriteResult = { created: [], updated: [], errors: {} };
  let remaining = items.map((item, index) => ({ item, index }));
  while (remaining.length > 0) {
    try {
      await client.createRelations(remaining.map((r) => r.item));
      result.created.push(...remaining.map((r) => `items[${r.index}]`));
      return result;
    } catch (error) {
      if (!(error instanceof CatalogError) || error.code !== 'bad_request') throw error;
      const bad = badItems(error);
      if (bad.size === 0) throw error;
      for (const [i, messages] of bad) {
        const row = remaining[i];
        if (row) result.errors[`items[${row.index}]`] = messages;
      }
      remaining = remaining.filter((_, i) => !bad.has(i));
    }
  }
  return result;
}

/**
 * Dry run: the relations naming a part that does not exist, with the service's messages
 * (`anchor_part_id: part 'x' does not exist`), so a dry run rejects what a real run rejects.
 */
async function missingParts(client: CatalogClient, items: Record<string, unknown>[]): Promise<Map<number, string[]>> {
  const ids = [...new Set(items.flatMap((item) => [item.anchor_part_id, item.related_part_id]).filter((id): id is string => typeof id === 'string'))];
  const known = new Set<string>();
  for (let i = 0; i < ids.length; i += MAX_BULK_ITEMS) {
    for (const part of await client.selectParts({ part_ids: ids.slice(i, i + MAX_BULK_ITEMS), projection: ['serviceId'] })) known.add(part.part_id);
  }
  const problems = new Map<number, string[]>();
  items.forEach((item, index) => {
    const messages = (['anchor_part_id', 'related_part_id'] as const)
      .filter((field) => typeof item[field] === 'string' && !known.has(item[field]))
      .map((field) => `${field}: part '${String(item[field])}' does not exist`);
    if (messages.length > 0) problems.set(index, messages);
  });
  return problems;
}

export const relationsImport: ImportSpec = {
  noun: 'relations',
  idField: 'anchor_part_id',
  maxBatch: MAX_BULK_ITEMS,
  mapCsvRow: CSV_MAPPERS.relations as ImportSpec['mapCsvRow'],
  send: sendRelations,
  dryRunProblems: missingParts,
};
