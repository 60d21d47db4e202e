/**
 * Output format and field selection: the `-o/--output` and `--fields` flags of every listing command
 * (cli.md, Output), decided once here so every command behaves the same on a TTY and in a pipe.
 */
import { UsageError } from './usage-error.js';

/** The values of `-o, --output`. */
export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;

/** One of `table | json | ndjson | csv | tsv`. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Resolves the `-o/--output` flag.
 *
 * @param flag the flag's raw value, or undefined when not given (case-insensitive; surrounding spaces ignored).
 * @param stdoutIsTTY whether stdout is a terminal (`process.stdout.isTTY === true`).
 * @returns the flag's format; without a flag `table` on a TTY and `tsv` (with a header) when piped.
 * @throws UsageError when the value is not one of {@link OUTPUT_FORMATS}; the message lists them.
 */
export function resolveFormat(flag: string | undefined, stdoutIsTTY: boolean): OutputFormat {
  if (flag === undefined) return stdoutIsTTY ? 'table' : 'tsv';
  const value = flag.trim().toLowerCase();
  const found = OUTPUT_FORMATS.find((f) => f === value);
  if (found === undefined) {
    throw new UsageError(`invalid output format '${flag}'; valid formats: ${OUTPUT_FORMATS.join(', ')}`);
  }
  return found;
}

/**
 * Resolves the `--fields a,b,c` flag against the fields a command can print.
 *
 * @param requested the flag's raw comma-separated value, or undefined when not given. Spaces around
 *   names are ignored, empty entries skipped, a repeated name kept once (first position wins).
 * @param available every field the command can print, in its preferred order (used in the message).
 * @param defaults the fields printed without `--fields`.
 * @param extra names valid besides `available` and their nested paths, e.g. a resource's flat CSV
 *   columns (`attr:class.en`).
 * @returns the requested field names in the requested order, or `defaults` when `requested` is undefined.
 *   A nested name (`name.en`) is valid when its first part (`name`) is an available field.
 * @throws UsageError when a name is not valid (the message names every unknown one and lists
 *   the valid ones), or when the flag names no field at all.
 */
export function selectFields(requested: string | undefined, available: string[], defaults: string[], extra: (name: string) => boolean = () => false): string[] {
  if (requested === undefined) return [...defaults];
  const names = [...new Set(requested.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
  if (names.length === 0) {
    throw new UsageError(`--fields names no field; valid fields: ${available.join(', ')}`);
  }
  const known = new Set(available);
  const unknown = names.filter((n) => !known.has(n) && !known.has(n.split('.')[0] ?? n) && !extra(n));
  if (unknown.length > 0) {
    const list = unknown.map((n) => `'${n}'`).join(', ');
    throw new UsageError(`unknown field${unknown.length > 1 ? 's' : ''} ${list}; valid fields: ${available.join(', ')}`);
  }
  return names;
}
