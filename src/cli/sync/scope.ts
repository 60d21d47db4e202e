/**
 * What a sync covers and how much of it a prune may delete (docs/cli.md, "Sync"): the `--scope`
 * and `--max-delete` options of `parts import --sync` and `images sync --prune`. Pure parsing and
 * arithmetic; the commands read the catalog.
 */
import type { PartView } from '../../client/types.js';
import { UsageError } from '../output/usage-error.js';

/**
 * The stored parts a source is the whole truth for: every part (no `--scope`), those whose part_id
 * starts with a prefix (`part_id=AB-*`), or those with a value of an attribute (`vendor=Acme`: any
 * language, any organization).
 */
export type SyncScope =
  | { kind: 'all' }
  | { kind: 'prefix'; prefix: string }
  | { kind: 'attribute'; attribute_id: string; value: string };

/**
 * Parses `--scope`: `part_id=<prefix>*` or `<attribute_id>=<value>`; undefined means every part.
 * @throws UsageError (exit 2) naming the flag when the text has no `=`, an empty side, or a
 *   part_id scope without its trailing `*`.
 */
export function parseScope(text: string | undefined): SyncScope {
  if (text === undefined) return { kind: 'all' };
  const eq = text.indexOf('=');
  const field = eq > 0 ? text.slice(0, eq).trim() : '';
  const value = eq > 0 ? text.slice(eq + 1) : '';
  if (field === '' || value === '') throw new UsageError(`--scope '${text}': expected part_id=<prefix>* or <attribute_id>=<value>`);
  if (field === 'part_id') {
    if (!value.endsWith('*') || value.length < 2) throw new UsageError(`--scope '${text}': a part_id scope is a prefix ending in *, e.g. part_id=AB-*`);
    return { kind: 'prefix', prefix: value.slice(0, -1) };
  }
  return { kind: 'attribute', attribute_id: field, value };
}

/** How the scope reads in messages: `every part`, `parts part_id=AB-*`, `parts vendor=Acme`. */
export function describeScope(scope: SyncScope): string {
  if (scope.kind === 'all') return 'every part';
  return scope.kind === 'prefix' ? `parts part_id=${scope.prefix}*` : `parts ${scope.attribute_id}=${scope.value}`;
}

/** Whether a part is covered by the scope; an attribute scope needs the part's `attributes`. */
export function partInScope(part: PartView, scope: SyncScope): boolean {
  if (scope.kind === 'all') return true;
  if (scope.kind === 'prefix') return part.part_id.startsWith(scope.prefix);
  const attribute = part.attributes?.find((a) => a.attribute_id === scope.attribute_id);
  return attribute?.values.some((v) => Object.values(v.value).includes(scope.value)) ?? false;
}

/** `--max-delete`: a count of items, or a share of the items in scope. */
export type MaxDelete = { count: number } | { percent: number };

/** The default `--max-delete`: a tenth of what the scope holds, so a truncated export never empties a catalog. */
export const DEFAULT_MAX_DELETE: MaxDelete = { percent: 10 };

/**
 * Parses `--max-delete`: `<n>` items or `<p>%` of the scope (0 to 100, decimals allowed).
 * @throws UsageError (exit 2) for anything else.
 */
export function parseMaxDelete(text: string | undefined): MaxDelete {
  if (text === undefined) return DEFAULT_MAX_DELETE;
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text.trim());
  if (percent) {
    const value = Number(percent[1]);
    if (value <= 100) return { percent: value };
  } else if (/^\d+$/.test(text.trim())) return { count: Number(text.trim()) };
  throw new UsageError(`--max-delete '${text}': expected a number of items (e.g. 50) or a share of the scope from 0% to 100% (e.g. 25%)`);
}

/** How --max-delete reads in messages: `10 %` or `50 parts`. */
export function describeMaxDelete(max: MaxDelete, noun: string): string {
  return 'percent' in max ? `${max.percent} %` : `${max.count.toLocaleString('en-US')} ${noun}`;
}

/** Whether deleting `deleting` of `inScope` stored items stays within `max`. */
export function withinMaxDelete(max: MaxDelete, deleting: number, inScope: number): boolean {
  if (deleting === 0) return true;
  if ('count' in max) return deleting <= max.count;
  return deleting * 100 <= max.percent * inScope;
}
