/**
 * `catalog search` (design/cli.md): start a search or read a page of a session; a table with the
 * page footer and the next command, the `-o json` envelope, or every hit streamed with `--all`.
 * CLI pages count from 1; the API's skip is (page - 1) * limit (spec 4.4).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { CatalogError } from '../../../api/errors.js';
import type { SearchResponse, SearchResult } from '../../../api/schemas.js';
import type { CatalogClient } from '../../../client/types.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import { collect, intInRange, positiveInt, type Invoke } from '../../runner.js';
import { markSpans } from '../../../core/search/highlight.js';
import { CONFIDENT_IMAGE_SCORE, DEFAULT_SEARCH_PROJECTION } from '../../../api/schemas.js';

/** `--min-score`: a number in [0, 1]. */
function scoreOption(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`expected a score between 0 and 1, got '${value}'`);
  return n;
}

export interface SearchFlags {
  image?: string;
  org?: string;
  lang?: string;
  filter?: string[];
  facets?: string;
  highlights?: boolean;
  images?: boolean;
  attributes?: boolean;
  facetValues?: string;
  prefix?: string;
  limit?: number;
  page?: number;
  all?: boolean;
  maxItems?: number;
  session?: string;
  minScore?: number;
  sort?: string;
}

/**
 * `--sort <key>[:asc|desc]` as the request's `sort` (docs/api.md "Search"): `part_id` the part id,
 * else an attribute id (one with a `:` in it keeps it: only a final `:asc` or `:desc` is a direction).
 */
export function parseSort(value: string): { attribute_id?: string; field?: 'part_id'; order: 'asc' | 'desc' } {
  const match = /^(.*):(asc|desc)$/u.exec(value);
  const key = match ? (match[1] ?? '') : value;
  const order = match?.[2] === 'desc' ? 'desc' : 'asc';
  if (key.trim() === '') throw new UsageError(`--sort '${value}' must name an attribute (or part_id), optionally followed by :asc or :desc`);
  return key === 'part_id' ? { field: 'part_id', order } : { attribute_id: key, order };
}

const SEARCH_FIELDS = ['id', 'name', 'nameLanguage', 'serviceId', 'createdAt', 'modifiedAt', 'score', 'matches', 'highlights', 'images', 'attributes'];
/**
 * The projection of --highlights, --images and --attributes: the six default fields
 * and those asked for; undefined (the service's default) when none is.
 */
function projectionOf(flags: SearchFlags): string[] | undefined {
  const extra = [
    ...(flags.highlights ? ['results.highlights'] : []), ...(flags.images ? ['results.images'] : []), ...(flags.attributes ? ['results.attributes'] : []),
  ];
  return extra.length > 0 ? [...DEFAULT_SEARCH_PROJECTION, ...extra] : undefined;
}
const DEFAULT_FIELDS = ['id', 'name', 'modifiedAt'];
/** The projection of an image search and of reading a session: the six default fields and the score. */
const SCORED_PROJECTION = [...DEFAULT_SEARCH_PROJECTION, 'results.score'];
/** An image search shows each hit's similarity when the service reports it (`results.score`). */
const IMAGE_DEFAULT_FIELDS = ['id', 'name', 'score', 'modifiedAt'];

/**
 * The columns of a search page: with the similarity score when the hits carry one, `matches` with
 * --highlights, `images` and `attributes` with --images and --attributes.
 */
function defaultFields(response: SearchResponse, projection: readonly string[] | undefined): string[] {
  const scored = response.results.some((r) => typeof (r as { score?: unknown }).score === 'number');
  const fields = scored ? IMAGE_DEFAULT_FIELDS : DEFAULT_FIELDS;
  const has = (p: string) => projection?.includes(p) === true;
  const extra = [...(has('results.highlights') ? ['matches'] : []), ...(has('results.images') ? ['images'] : []), ...(has('results.attributes') ? ['attributes'] : [])];
  return extra.length > 0 ? [...fields.filter((f) => f !== 'modifiedAt'), ...extra] : fields;
}

/**
 * Richer hits readable in a table: `images` as their ids (`img-1, img-2`); `attributes`
 * are rendered as part listings render them (`vendor: Intel Corporation; class: Ethernet
 * controller`, output/write.ts renderCell). JSON and NDJSON keep the full structures.
 */
function readableRichHit(r: Record<string, unknown>): Record<string, unknown> {
  const hit = r as SearchResult & Record<string, unknown>;
  return hit.images !== undefined ? { ...r, images: hit.images.map((i) => i.image_id).join(', ') } : r;
}

/**
 * Hits with a `matches` column from their highlights: `name.en: [Ether]net · vendor:
 * [Intel] Corporation`, the matched spans bold on a colour terminal, in `[...]` otherwise. JSON
 * output keeps the structured `highlights` as well.
 */
function withMatches(ctx: CommandContext, results: readonly SearchResult[]): Record<string, unknown>[] {
  const bold = ctx.io.stdout.isTTY === true && ctx.color;
  const [open, close] = bold ? ['\u001b[1m', '\u001b[22m'] : ['[', ']'];
  return results.map((r) => {
    if (r.highlights === undefined) return r as Record<string, unknown>;
    const matches = r.highlights.map((h) => `${h.field === 'value' ? (h.attribute_id ?? '') : h.field === 'name' ? `name.${h.language ?? ''}` : 'id'}: ${markSpans(h, open, close)}`).join(' · ');
    return { ...r, matches };
  }).map((r) => (ctx.format === 'json' || ctx.format === 'ndjson' ? r : readableRichHit(r)));
}
/**
 * What --fields names that a hit carries only when asked for (`attributes` and `attr:` columns,
 * `images`, `matches`/`highlights`): asked for, so the column is never silently empty.
 */
function fieldsAskFor(fields: string | undefined): Pick<SearchFlags, 'attributes' | 'images' | 'highlights'> {
  const names = (fields ?? '').split(',').map((f) => f.trim().split('.')[0] ?? '');
  const asked = (fields ?? '').split(',').map((f) => f.trim());
  return {
    ...(names.includes('attributes') || asked.some((f) => f.startsWith('attr:')) ? { attributes: true } : {}),
    ...(names.includes('images') ? { images: true } : {}),
    ...(names.includes('matches') || names.includes('highlights') ? { highlights: true } : {}),
  };
}

/**
 * With --fields, a hit's flat columns (as `parts list -o csv` prints a part): its own fields as
 * text and its attribute values as `attr:<attribute_id>[@<org>].<lang>` columns, so csv/tsv print
 * `attributes` as those columns and every format accepts `attr:` names. Without --fields the
 * default columns stay as they are.
 */
async function flatHits(ctx: CommandContext): Promise<{ toCsvRow?: (hit: Record<string, unknown>) => Record<string, string> }> {
  if (ctx.flags.fields === undefined) return {};
  const { partToRow } = await import('../../import/map-rows.js');
  return {
    toCsvRow(hit) {
      const row: Record<string, string> = {};
      for (const [key, value] of Object.entries(hit)) {
        if (key === 'attributes' || key === 'highlights' || value === undefined || value === null) continue;
        row[key] = key === 'images' && Array.isArray(value) ? value.map((i: { image_id: string }) => i.image_id).join(', ') : typeof value === 'string' ? value : JSON.stringify(value);
      }
      const { part_id: _id, ...values } = partToRow({ part_id: '', attributes: (hit as SearchResult).attributes ?? [] });
      return { ...row, ...values };
    },
  };
}
const ALL_PAGE_SIZE = 1000;
/** The most hits one page can hold (spec 4.4, resultOptions.limit). */
const MAX_LIMIT = 1000;

/** Declares `catalog search` on the program. */
export function declare(program: Command, invoke: Invoke): Command {
  return program
    .command('search')
    .description('search parts by text, filters and/or an image; or read a page of a search session')
    .argument('[text...]', 'words to find in part ids, names and searchable attribute values, quotes not needed (prefix on the last word, one typo tolerated)')
    .option('--image <file>', 'search by image similarity to this photo (- reads it from stdin); each hit shows its score')
    .option('--min-score <score>', `with --image: only hits whose similarity score is at least this, 0 to 1 (default ${CONFIDENT_IMAGE_SCORE}, the confident ones; 0 lists the most similar parts whatever their score)`, scoreOption)
    .option('--org <organization>', 'search values as this organization sees them')
    .option('--lang <language>', 'language of the result names, e.g. en')
    .option('--filter <attr=value>', 'only parts whose filterable attribute has this value (repeatable)', collect)
    .option('--facets <attrs>', 'value counts over every hit of these filterable attributes, comma-separated (e.g. vendor,class)')
    .option('--highlights', 'show where the words matched (a matches column: bold on a terminal, [...] otherwise)')
    .option('--images', "each hit's shown display images (an images column of image ids; -o json: ids and original paths)")
    .option('--attributes', "each hit's attribute values you may see (an attributes column; -o json: the full values)")
    .option('--facet-values <attr>', 'instead of hits: the values of this filterable attribute over every hit, with counts (most frequent first; --limit of them)')
    .option('--prefix <text>', 'with --facet-values: only values beginning with this text (case-insensitive)')
    .option('--limit <n>', `hits per page (default 25, at most ${MAX_LIMIT})`, intInRange(1, MAX_LIMIT))
    .option('--page <n>', 'page number, from 1', positiveInt)
    .option('--session <sessionId>', 'read a page of an existing search session (24 h)')
    .addOption(new Option('--all', 'every hit, streamed (NDJSON unless -o says otherwise); exit 3 when the session keeps fewer than were found').conflicts(['page']))
    .option('--max-items <n>', 'with --all: at most this many hits', positiveInt)
    .option('--sort <attr>', 'order hits by this filterable attribute instead of relevance: numbers by value, then texts; parts without a value last; ties by part id (part_id: by part id; add :desc to reverse, e.g. price:desc)')
    .action(async (words: string[], _o: unknown, command: Command) => {
      const flags = command.opts<SearchFlags>();
      const text = words.length > 0 ? words.join(' ') : undefined;
      await invoke(command, (ctx) => {
        if (flags.all && ctx.config.output.value === undefined) ctx.format = 'ndjson';
        return run(ctx, text, flags, command);
      });
    });
}

/** `--filter attr=value` (repeatable) as the API's filters, values of one attribute grouped. */
function parseFilters(filters: readonly string[] | undefined): { label: string; values: string[] }[] {
  const byLabel = new Map<string, string[]>();
  for (const f of filters ?? []) {
    const eq = f.indexOf('=');
    if (eq <= 0) throw new UsageError(`--filter '${f}' must look like <attribute_id>=<value>`);
    const label = f.slice(0, eq);
    byLabel.set(label, [...(byLabel.get(label) ?? []), f.slice(eq + 1)]);
  }
  return [...byLabel].map(([label, values]) => ({ label, values }));
}

/**
 * The command of the next page (design/cli.md, "Conventions"): the global options in force and the
 * options given, shell-quoted, without what starts a search (words, --image, --filter, --org).
 */
async function nextPageCommand(command: Command, ctx: CommandContext): Promise<(sessionId: string, page: number, limit: number) => string> {
  const { commandLine } = await import('../../command-line.js');
  return (sessionId, page, limit) =>
    commandLine(command, ctx, { set: { session: sessionId, page, limit: limit !== 25 ? limit : undefined, image: undefined, filter: undefined, org: undefined, sort: undefined } });
}

/** The page footer of cli.md: `page 2 of 40 (hits 26-50 of 987) · next: catalog search --session <id> --page 3`. */
function pageFooter(response: SearchResponse, page: number, limit: number, next?: (sessionId: string, page: number, limit: number) => string): string {
  const total = response.resultsTotalCount;
  const pages = pageCount(response, limit);
  const first = (page - 1) * limit + 1;
  const last = (page - 1) * limit + response.results.length;
  const hits = response.results.length === 0 ? `no hits on this page, ${total} in all` : `hits ${first}-${last} of ${total}`;
  let line = `page ${page} of ${pages} (${hits}${response.resultsPageableCount < total ? `; the first ${response.resultsPageableCount} can be paged` : ''})`;
  if (page < pages) line += ` · next: ${next ? next(response.sessionId, page + 1, limit) : `catalog search --session ${response.sessionId} --page ${page + 1}${limit !== 25 ? ` --limit ${limit}` : ''}`}`;
  return line;
}

/** The facets of a search, one line per attribute: `vendor: Intel Corporation (12) · AMD (3)`. */
function facetLines(response: SearchResponse): string[] {
  return Object.entries(response.facets ?? {}).map(([id, values]) => `${id}: ${values.length === 0 ? '(no values)' : values.map((v) => `${v.value} (${v.count})`).join(' · ')}`);
}

/** Pages a session can show: its pageable hits (resultsPageableCount), at least one page. */
function pageCount(response: SearchResponse, limit: number): number {
  return Math.max(1, Math.ceil(response.resultsPageableCount / limit));
}

function notExpired(error: unknown, sessionId: string): never {
  if (error instanceof CatalogError && error.code === 'not_found') {
    throw new CatalogError('not_found', `search session '${sessionId}' does not exist, has expired (sessions last 24 hours) or belongs to another token: start a new search`);
  }
  throw error;
}

async function readPage(client: CatalogClient, sessionId: string, page: number, limit: number, projection?: string[]): Promise<SearchResponse> {
  try {
    return await client.searchState(sessionId, { skip: (page - 1) * limit, limit, ...(projection ? { projection } : {}) });
  } catch (error) {
    if (error instanceof CatalogError && error.code === 'bad_request' && page > 1) {
      // Past the pages the session keeps: said with the command line's words, not the API's skip.
      const head = await client.searchState(sessionId, { skip: 0, limit: 1 }).catch(() => undefined);
      if (head !== undefined) throw pastLastPage(head, page, limit);
    }
    return notExpired(error, sessionId);
  }
}

/** The usage error of a --page past the last page of `response`'s session. */
function pastLastPage(response: SearchResponse, page: number, limit: number): UsageError {
  const pages = pageCount(response, limit);
  const total = response.resultsTotalCount;
  const pageable = response.resultsPageableCount < total ? `; a session keeps the first ${response.resultsPageableCount} in rank order (narrow the search with more words or --filter)` : '';
  return new UsageError(`--page ${page} is past the last page, ${pages} (${total} hits at ${limit} per page${pageable})`);
}

/**
 * The search request's problems in the command line's words: `--limit`, `--filter summary=x`,
 * `--org`, `--lang`, `--facets` instead of the API's `resultOptions.limit`, `matches.filters[0]`.
 */
function inFlagWords(error: unknown, filters: readonly { label: string; values: string[] }[]): never {
  if (!(error instanceof CatalogError) || error.code !== 'bad_request' || (error.errors ?? []).length === 0) throw error;
  const flagOf = (path: string): string => {
    const filter = /^matches\.filters\[(\d+)\]/.exec(path);
    if (filter) {
      const f = filters[Number(filter[1])];
      return f ? `--filter ${f.label}=${f.values.join(',')}` : '--filter';
    }
    if (path.startsWith('resultOptions.limit')) return '--limit';
    if (path.startsWith('sort')) return '--sort';
    if (path.startsWith('resultOptions.minScore')) return '--min-score';
    if (path.startsWith('matches.organization')) return '--org';
    if (path.startsWith('matches.facets')) return '--facets';
    if (path.startsWith('matches.text')) return 'the search words';
    if (path.startsWith('language')) return '--lang';
    return path;
  };
  const lines = (error.errors ?? []).map((p) => `${flagOf(p.path)}: ${p.message.replace(/^Too big: expected number to be <=/, 'at most ')}`);
  throw new UsageError(lines.join('; '));
}

/**
 * A text session's hits without the `score: null` that asking for `results.score` brings (only an
 * image search has scores), so its output is the same whether or not --session read it.
 */
function withoutTextScores(response: SearchResponse): SearchResult[] {
  if (response.imageId !== null) return response.results;
  return response.results.map((r) => {
    if (r.score !== null) return r;
    const { score: _score, ...rest } = r;
    return rest;
  });
}

/** What an image search that kept no hit says: nothing in the catalog looks like the photo (above --min-score). */
function noMatchMessage(minScore: number | undefined): string {
  if (minScore === undefined || minScore === 0) return 'no part matches this photo';
  return `no part matches this photo with a similarity score of at least ${minScore} (--min-score; ${CONFIDENT_IMAGE_SCORE} means a confident match); --min-score 0 lists the most similar parts anyway`;
}

/** Runs `catalog search`; exit 6 for an unknown or expired session. */
export async function run(ctx: CommandContext, text: string | undefined, flags: SearchFlags, command?: Command): Promise<number> {
  if (flags.session !== undefined && (text !== undefined || flags.image !== undefined || flags.filter?.length || flags.org !== undefined || flags.facets !== undefined || flags.sort !== undefined)) {
    throw new UsageError('--session reads an existing search: drop the text, --image, --filter, --facets, --sort and --org (or drop --session to start a new search)');
  }
  if (flags.sort !== undefined && flags.image !== undefined) throw new UsageError('--sort orders a text or filter search; an image search is ordered by similarity: drop --sort or --image');
  if (flags.prefix !== undefined && flags.facetValues === undefined) throw new UsageError('--prefix narrows --facet-values: add --facet-values <attribute_id>');
  if (flags.facetValues !== undefined) return runFacetValues(ctx, text, flags);
  const facets = (flags.facets ?? '').split(',').map((f) => f.trim()).filter((f) => f !== '');
  const client = await ctx.client();
  const limit = flags.limit ?? 25;
  const page = flags.page ?? 1;
  if (flags.minScore !== undefined && flags.image === undefined) throw new UsageError('--min-score filters an image search: add --image <file>, or drop --min-score');
  flags = { ...flags, ...fieldsAskFor(ctx.flags.fields) };
  // A table for a person shows each hit's attribute values (what tells hits apart), not a timestamp.
  if (ctx.format === 'table' && ctx.flags.fields === undefined) flags = { ...flags, attributes: true };
  // An image search (and a session, which may be one) asks for the score; a text search has none.
  const scored = flags.image !== undefined || flags.session !== undefined;
  const asked = projectionOf(flags);
  const projection = asked ? [...asked, ...(scored ? ['results.score'] : [])] : scored ? SCORED_PROJECTION : undefined;
  const minScore = flags.image !== undefined ? (flags.minScore ?? CONFIDENT_IMAGE_SCORE) : undefined;
  let first: SearchResponse;
  if (flags.session !== undefined) {
    first = await readPage(client, flags.session, flags.all ? 1 : page, flags.all ? ALL_PAGE_SIZE : limit, projection);
  } else {
    const request = {
      ...(flags.lang ? { language: flags.lang } : {}),
      ...(projection ? { projection } : {}),
      matches: {
        ...(flags.org !== undefined ? { organization: flags.org } : {}),
        ...(text !== undefined ? { text } : {}),
        ...(flags.filter?.length ? { filters: parseFilters(flags.filter) } : {}),
        ...(facets.length > 0 ? { facets } : {}),
      },
      ...(flags.sort !== undefined ? { sort: [parseSort(flags.sort)] } : {}),
      resultOptions: { limit: flags.all ? ALL_PAGE_SIZE : limit, ...(minScore !== undefined ? { minScore } : {}) },
    };
    let image: Uint8Array | undefined;
    if (flags.image === '-') {
      if ((ctx.io.stdin as { isTTY?: boolean }).isTTY === true) throw new UsageError('--image - reads the photo from stdin, which is a terminal: pipe it (catalog search --image - < photo.jpg)');
      image = await buffer(ctx.io.stdin);
      if (image.length === 0) throw new UsageError('--image -: stdin is empty (pipe a photo into it, e.g. cat photo.jpg | catalog search --image -)');
    } else if (flags.image !== undefined) {
      try {
        image = await readFile(resolve(ctx.io.cwd, flags.image));
      } catch (error) {
        throw new UsageError(`cannot read --image ${flags.image}: ${(error as Error).message}`);
      }
    }
    first = await client.search(request, image ? { image, filename: flags.image === '-' ? 'stdin' : (flags.image ?? 'query') } : undefined)
      .catch((error: unknown) => inFlagWords(error, request.matches.filters ?? []));
    if (!flags.all && page > pageCount(first, limit)) throw pastLastPage(first, page, limit);
    if (!flags.all && page > 1) first = await readPage(client, first.sessionId, page, limit, projection);
  }

  if (flags.all) return emitAll(ctx, client, first, flags.maxItems, projection);
  const { emitRecords } = await import('../../output/emit.js');

  const pages = pageCount(first, limit);
  const nextPage = page < pages ? page + 1 : null;
  const records = withMatches(ctx, withoutTextScores(first));
  const spec = { fields: SEARCH_FIELDS, defaultFields: defaultFields(first, projection), ...(await flatHits(ctx)) };
  if (ctx.format === 'json') {
    await emitRecords(ctx, spec, records, (results) => ({ sessionId: first.sessionId, imageId: first.imageId, page, limit, resultsTotalCount: first.resultsTotalCount, resultsPageableCount: first.resultsPageableCount, ...(first.facets ? { facets: first.facets } : {}), nextPage, results }));
  } else {
    await emitRecords(ctx, spec, records);
    for (const line of facetLines(first)) ctx.info(line);
  }
  if (first.resultsTotalCount === 0 && first.imageId !== null) ctx.info(noMatchMessage(minScore));
  else ctx.info(pageFooter(first, page, limit, command ? await nextPageCommand(command, ctx) : undefined));
  return EXIT.OK;
}

/**
 * `catalog search [text] --facet-values <attr> [--prefix p]` (POST /1/find/facet-values):
 * the attribute's values over every hit of the text, filters and organization, with counts; a
 * table of value and count, `-o json` the API's answer. No session is started.
 */
async function runFacetValues(ctx: CommandContext, text: string | undefined, flags: SearchFlags): Promise<number> {
  if (flags.session !== undefined || flags.image !== undefined || flags.page !== undefined || flags.all || flags.facets !== undefined || flags.sort !== undefined) {
    throw new UsageError('--facet-values counts values over the hits of text, --filter and --org: drop --session, --image, --page, --all, --facets and --sort');
  }
  const client = await ctx.client();
  const answer = await client.facetValues({
    attribute_id: flags.facetValues,
    ...(flags.prefix !== undefined ? { prefix: flags.prefix } : {}),
    matches: {
      ...(flags.org !== undefined ? { organization: flags.org } : {}),
      ...(text !== undefined ? { text } : {}),
      ...(flags.filter?.length ? { filters: parseFilters(flags.filter) } : {}),
    },
    ...(flags.limit !== undefined ? { maxValues: flags.limit } : {}),
  });
  const { emitRecords } = await import('../../output/emit.js');
  const spec = { fields: ['value', 'count'], defaultFields: ['value', 'count'] };
  const records = answer.values.map((v) => ({ value: v.value, count: v.count }));
  if (ctx.format === 'json') await emitRecords(ctx, spec, records, (values) => ({ attribute_id: answer.attribute_id, values }));
  else await emitRecords(ctx, spec, records);
  if (ctx.format !== 'json' && ctx.format !== 'ndjson') ctx.info(`${answer.values.length} value${answer.values.length === 1 ? '' : 's'} of ${answer.attribute_id}`);
  return EXIT.OK;
}

/** `--all`: every stored hit, page after page, streamed (NDJSON by default), at most --max-items. */
async function emitAll(ctx: CommandContext, client: CatalogClient, first: SearchResponse, maxItems: number | undefined, projection: string[] | undefined): Promise<number> {
  const { emitRecords } = await import('../../output/emit.js');
  const cap = maxItems ?? Number.POSITIVE_INFINITY;
  let count = 0;
  async function* hits(): AsyncGenerator<SearchResult & Record<string, unknown>> {
    let response = first;
    let page = 1;
    for (;;) {
      for (const hit of response.results) {
        if (count >= cap) return;
        count++;
        yield withMatches(ctx, withoutTextScores({ ...first, results: [hit] }))[0] as SearchResult & Record<string, unknown>;
      }
      // Past resultsPageableCount a page is a 400 (the session keeps only that many).
      if (response.results.length < ALL_PAGE_SIZE || count >= cap || page * ALL_PAGE_SIZE >= first.resultsPageableCount) return;
      page++;
      response = await readPage(client, first.sessionId, page, ALL_PAGE_SIZE, projection);
    }
  }
  const spec = { fields: SEARCH_FIELDS, defaultFields: defaultFields(first, projection), ...(await flatHits(ctx)) };
  if (ctx.format === 'json') {
    await emitRecords(ctx, spec, hits(), (results) => ({ sessionId: first.sessionId, imageId: first.imageId, page: 1, limit: results.length, resultsTotalCount: first.resultsTotalCount, resultsPageableCount: first.resultsPageableCount, nextPage: null, results }));
  } else {
    await emitRecords(ctx, spec, hits());
  }
  const capped = maxItems !== undefined && count >= maxItems;
  if (count < first.resultsTotalCount && !capped) {
    // Fewer hits than found, and not because the caller asked for fewer: a partial result (exit 3),
    // said even under -q, since a pipeline would otherwise take it for every hit.
    ctx.io.stderr.write(
      `warning: ${count} of ${first.resultsTotalCount} hits printed: a search session keeps the first ${first.resultsPageableCount} in rank order; ` +
        `narrow the search (more words, --filter) to get every hit (exit 3) · session ${first.sessionId}\n`,
    );
    return EXIT.PARTIAL;
  }
  const note = count < first.resultsTotalCount ? ` (of ${first.resultsTotalCount}; --max-items reached)` : '';
  ctx.info(`${count} hits${note} · session ${first.sessionId}`);
  return EXIT.OK;
}
