/**
 * The judgments file of `catalog search eval` (docs/import-formats.md, "Relevance judgments"): one
 * row a query, read with the import readers (CSV or TSV by extension, csv-parse), checked whole
 * before any search so that a bad row is reported with its file, line and field (exit 2).
 *
 * Columns: `query` (the words searched) and/or `image` (a photo file, relative to the judgments
 * file's folder), `expected` (the part ids any of which is a right answer: `a|b`, or a JSON array
 * `["a|b", "c"]` for ids that hold `|`), and optionally `group` (the label the figures are given
 * per; default `all`), `filter` (`<attribute_id>=<value>` as `catalog search --filter` takes it,
 * several separated by `;`) and `organization` (search values as it sees them, as `--org`).
 */
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { closest } from '../../output/did-you-mean.js';
import { UsageError } from '../../output/usage-error.js';
import { OVERALL } from './eval-figures.js';

/** The columns a judgments file may have. */
export const JUDGMENT_COLUMNS = ['query', 'image', 'expected', 'group', 'filter', 'organization'] as const;

/** One row of a judgments file, checked. */
export interface Judgment {
  /** The row's line in the file (the header is line 1). */
  line: number;
  group: string;
  /** The words searched; undefined for a photo alone. */
  text?: string;
  /** The photo: its path as written, and resolved (read when its query runs, so photos are never all in memory). */
  image?: { path: string; file: string };
  /** Filters as the API takes them (`matches.filters`): values of one attribute grouped. */
  filters: { label: string; values: string[] }[];
  organization?: string;
  /** Part ids, any of which is a right answer. */
  expected: string[];
}

/** Rows with problems reported in one error, at most this many (the rest counted). */
const MAX_REPORTED = 10;

/** `a|b` or `["a|b", "c"]` as part ids; a string saying what is wrong otherwise. */
function parseExpected(cell: string): string[] | string {
  const text = cell.trim();
  if (text === '') return 'empty: name the part id(s) a right answer has';
  if (text.startsWith('[')) {
    let ids: unknown;
    try {
      ids = JSON.parse(text);
    } catch {
      return `'${text}' starts with [ but is not a JSON array of part ids`;
    }
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string' && id !== '')) return `'${text}' is not a non-empty JSON array of part ids`;
    return ids as string[];
  }
  const ids = text.split('|').map((id) => id.trim());
  if (ids.some((id) => id === '')) return `'${text}' has an empty part id between its | separators`;
  return ids;
}

/** `attr=value;attr2=value` as the API's filters (values of one attribute grouped), or what is wrong. */
export function parseFilterCell(cell: string): { label: string; values: string[] }[] | string {
  const byLabel = new Map<string, string[]>();
  for (const item of cell.split(';')) {
    if (item.trim() === '') continue;
    const eq = item.indexOf('=');
    if (eq <= 0) return `'${item}' must look like <attribute_id>=<value> (several separated by ;)`;
    const label = item.slice(0, eq).trim();
    byLabel.set(label, [...(byLabel.get(label) ?? []), item.slice(eq + 1)]);
  }
  return [...byLabel].map(([label, values]) => ({ label, values }));
}

/** `file line N, field F: message`: where a judgment is wrong, in the words of the import commands. */
export function at(file: string, line: number, field: string | undefined, message: string): string {
  return `${file} line ${line}${field !== undefined ? `, field ${field}` : ''}: ${message}`;
}

/** Checks the header: known columns only, `expected`, and `query` or `image`. @throws UsageError */
function checkColumns(file: string, columns: readonly string[]): void {
  const known: readonly string[] = JUDGMENT_COLUMNS;
  for (const column of columns) {
    if (known.includes(column)) continue;
    const near = closest(column, known);
    throw new UsageError(`the header of ${file} names an unknown column '${column}'${near ? ` (did you mean '${near}'?)` : ''}; columns: ${JUDGMENT_COLUMNS.join(', ')}`);
  }
  if (!columns.includes('expected')) throw new UsageError(`the header of ${file} has no 'expected' column (the part id(s) a right answer has); columns: ${JUDGMENT_COLUMNS.join(', ')}`);
  if (!columns.includes('query') && !columns.includes('image')) throw new UsageError(`the header of ${file} has neither a 'query' nor an 'image' column: each row needs the words searched or a photo`);
}

/**
 * Reads and checks every row of the judgments file `path` (relative to `cwd`); photos are looked
 * up here, so a missing one is a row problem like any other.
 *
 * @param shown the file as the user named it, for messages
 * @returns the judgments in file order
 * @throws UsageError (exit 2) for an unreadable file, a bad header, or any bad row (up to 10 are
 *   named with their line and field, the rest counted); nothing is searched then
 */
export async function readJudgments(path: string, shown: string, cwd: string): Promise<Judgment[]> {
  const { formatFromPath, readRecords, locationLabel } = await import('../../import/read-records.js');
  const format = formatFromPath(path);
  if (format !== 'csv' && format !== 'tsv') throw new UsageError(`${shown}: a judgments file is CSV or TSV (.csv, .tsv)`);
  const full = resolve(cwd, path);
  try {
    if (!(await stat(full)).isFile()) throw new UsageError(`cannot read ${shown}: it is not a file`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${shown}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  const folder = dirname(full);
  const judgments: Judgment[] = [];
  const problems: string[] = [];
  let columnsChecked = false;
  for await (const entry of readRecords({ path: full }, format)) {
    if ('error' in entry) {
      if (entry.line === 1) throw new UsageError(`the header of ${shown}: ${entry.error}`);
      problems.push(`${shown} ${locationLabel(format, entry.line)}: ${entry.error}`);
      continue;
    }
    const row = entry.record as Record<string, string>;
    if (!columnsChecked) {
      checkColumns(shown, Object.keys(row));
      columnsChecked = true;
    }
    const wrong = (field: string, message: string) => problems.push(at(shown, entry.line, field, message));
    const text = (row.query ?? '').trim();
    const imagePath = (row.image ?? '').trim();
    if (text === '' && imagePath === '') {
      wrong('query', row.image === undefined ? 'empty: give the words searched' : 'empty, and so is image: give the words searched or a photo');
    }
    const expected = parseExpected(row.expected ?? '');
    if (typeof expected === 'string') wrong('expected', expected);
    const filters = parseFilterCell(row.filter ?? '');
    if (typeof filters === 'string') wrong('filter', filters);
    let image: Judgment['image'];
    if (imagePath !== '') {
      try {
        const file = resolve(folder, imagePath);
        if (!(await stat(file)).isFile()) throw new Error('it is not a file');
        image = { path: imagePath, file };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        wrong('image', `cannot read the photo ${imagePath}${code === 'ENOENT' ? ' (no such file; paths are relative to the judgments file\'s folder)' : `: ${(error as Error).message}`}`);
      }
    }
    if (typeof expected === 'string' || typeof filters === 'string' || (text === '' && image === undefined)) continue;
    const organization = (row.organization ?? '').trim();
    judgments.push({
      line: entry.line,
      group: (row.group ?? '').trim() || OVERALL,
      ...(text !== '' ? { text } : {}),
      ...(image !== undefined ? { image } : {}),
      filters,
      ...(organization !== '' ? { organization } : {}),
      expected,
    });
  }
  if (!columnsChecked && problems.length === 0) throw new UsageError(`${shown} holds no judgment: a header line (query, expected, ...) and one row a query`);
  if (problems.length > 0) {
    const more = problems.length > MAX_REPORTED ? `\n(and ${problems.length - MAX_REPORTED} more)` : '';
    throw new UsageError(`${problems.length === 1 ? 'a row' : `${problems.length} rows`} of ${shown} cannot be judged; nothing was searched:\n${problems.slice(0, MAX_REPORTED).join('\n')}${more}`);
  }
  return judgments;
}
