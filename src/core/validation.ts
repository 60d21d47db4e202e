/**
 * Turning zod results into the catalog's error shapes: every problem of an item, not the first
 * (docs/architecture.md), as `path: message` strings for per-item errors or FieldProblems for 400s.
 */
import type { z } from 'zod';
import { CatalogError, type FieldProblem } from '../api/errors.js';
import { IdSchema } from '../api/schemas.js';

/** Converts zod issues to FieldProblems, prefixing each path with `prefix` (e.g. `items[3]`). */
export function issuesToProblems(issues: readonly z.core.$ZodIssue[], prefix = ''): FieldProblem[] {
  return issues.map((issue) => {
    let path = prefix;
    for (const key of issue.path) {
      path += typeof key === 'number' ? `[${key}]` : path === '' ? String(key) : `.${String(key)}`;
    }
    let message = issue.message;
    if (issue.code === 'unrecognized_keys') message = `unknown field(s): ${issue.keys.join(', ')}`;
    return { path: path === '' ? '(body)' : path, message };
  });
}

/** `path: message` strings for a per-item error list. */
export function problemsToMessages(problems: readonly FieldProblem[]): string[] {
  return problems.map((p) => (p.path && p.path !== '(body)' ? `${p.path}: ${p.message}` : p.message));
}

/** Validates a whole request body; throws a 400 CatalogError listing every problem. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const problems = issuesToProblems(result.error.issues);
  throw new CatalogError('bad_request', `invalid ${what}: ${problemsToMessages(problems).join('; ')}`, problems);
}

/** One item of a bulk body after validation: either usable, or rejected with its messages. */
export type BulkItem<T> = { key: string; index: number; item: T } | { key: string; index: number; messages: string[] };

/**
 * Validates each item of a bulk body on its own (decisions §1: one bad item never blocks the
 * others). The error key is the item's id when it is a valid id, else `items[<index>]`.
 * Throws 400 when the body is not an array, 413 when it has more than `maxItems` items.
 */
export function parseBulk<S extends z.ZodType>(schema: S, body: unknown, idField: string, maxItems: number): BulkItem<z.infer<S>>[] {
  if (!Array.isArray(body)) throw new CatalogError('bad_request', 'the request body must be a JSON array of items');
  if (body.length > maxItems) {
    throw new CatalogError('payload_too_large', `at most ${maxItems} items per call; this one has ${body.length}`);
  }
  return body.map((raw: unknown, index) => {
    const checked = validateBulkItem(schema, raw, idField);
    const key = checked.key ?? `items[${index}]`;
    return 'item' in checked ? { key, index, item: checked.item } : { key, index, messages: checked.messages };
  });
}

/**
 * One item of a bulk body, validated as {@link parseBulk} validates it: the item as the schema
 * returns it, or every problem as messages; `key` is the item's id when that is a valid id, else
 * undefined (parseBulk then says `items[<index>]`). For callers that validate items before they
 * are batched (an import's reader thread, src/cli/import/entries-worker.ts).
 */
export function validateBulkItem<S extends z.ZodType>(schema: S, raw: unknown, idField: string): { key: string | undefined; item: z.infer<S> } | { key: string | undefined; messages: string[] } {
  const rawId = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[idField] : undefined;
  const id = IdSchema.safeParse(rawId);
  const key = id.success ? id.data : undefined;
  const result = schema.safeParse(raw);
  if (result.success) return { key, item: result.data };
  return { key, messages: problemsToMessages(issuesToProblems(result.error.issues)) };
}

/** Validates a list of ids for a bulk delete; invalid ones become per-item errors. */
export function parseIdList(body: unknown, maxItems: number): BulkItem<string>[] {
  if (!Array.isArray(body)) throw new CatalogError('bad_request', 'the request body must be a JSON array of ids');
  if (body.length > maxItems) {
    throw new CatalogError('payload_too_large', `at most ${maxItems} ids per call; this one has ${body.length}`);
  }
  return body.map((raw: unknown, index) => {
    const result = IdSchema.safeParse(raw);
    if (result.success) return { key: result.data, index, item: result.data };
    return { key: `items[${index}]`, index, messages: problemsToMessages(issuesToProblems(result.error.issues)) };
  });
}

/** Adds messages under a key of a bulk `errors` object. */
export function addErrors(errors: Record<string, string[]>, key: string, messages: readonly string[]): void {
  (errors[key] ??= []).push(...messages);
}
