/**
 * `catalog search eval <judgments>` (docs/cli.md): a user's own relevance check. Each row of the
 * judgments file (judgments.ts) is searched through the CatalogClient, so local and --remote
 * mode judge alike; the figures (eval-figures.ts) are printed per group and overall, with the
 * worst queries and what came first. `--save` keeps the figures, `--baseline` compares with kept
 * ones and exits 3 when one got worse by more than `--tolerance`, so a pipeline can gate a
 * synonym file, a settings change or a re-import.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { CatalogError } from '../../../api/errors.js';
import type { SearchResponse } from '../../../api/schemas.js';
import type { CatalogClient } from '../../../client/types.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import { intInRange, type Invoke } from '../../runner.js';
import {
  DEFAULT_TOLERANCE, EVAL_DEPTH, FIGURE_NAMES, compareWithBaseline, figuresByGroup, rankOf, savedFigures, worstQueries,
  type BaselineComparison, type EvalFigures, type QueryOutcome,
} from './eval-figures.js';
import type { Judgment } from './judgments.js';

/** Options of `catalog search eval`. */
export interface EvalFlags {
  save?: string;
  baseline?: string;
  tolerance?: number;
  worst?: number;
}

/** `--tolerance`: a share in [0, 1). */
function toleranceOption(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n >= 1) throw new InvalidArgumentError(`expected a share between 0 and 1, e.g. 0.005, got '${value}'`);
  return n;
}

/** The root of `command`'s tree (the program). */
function programOf(command: Command): Command {
  let root = command;
  while (root.parent) root = root.parent;
  return root;
}

/**
 * Refuses options of `catalog search` given to `search eval` (commander reads a parent's options
 * anywhere on the line): a judgments file holds each query's filters and organization.
 *
 * @throws UsageError naming them
 */
function assertNoSearchOptions(command: Command): void {
  const search = command.parent;
  if (!search) return;
  const given = Object.entries(search.opts()).filter(([, v]) => v !== undefined).map(([key]) => search.options.find((o) => o.attributeName() === key)?.long ?? key);
  if (given.length > 0) throw new UsageError(`${given.join(', ')} ${given.length === 1 ? 'is an option' : 'are options'} of catalog search, not of search eval: a judgments file gives each query its filter and organization (docs/import-formats.md)`);
}

/** Declares `catalog search eval` under the `search` command. */
export function declareEval(search: Command, invoke: Invoke): Command {
  return search
    .command('eval')
    .description('judge the search with your own relevance judgments: success@1/3/10 and mean reciprocal rank per group and overall; exit 3 when worse than --baseline')
    .argument('[judgments]', 'CSV or TSV file: columns query and/or image (a photo, relative to the file), expected (part ids, a|b), and optionally group, filter (attr=value;attr2=value), organization')
    .option('--save <file>', 'write the figures to this file as JSON (a later run compares with it through --baseline)')
    .option('--baseline <file>', 'compare with the figures of a saved run (--save, or -o json): exit 3 when any figure got worse by more than --tolerance')
    .option('--tolerance <share>', `how much a figure may drop before it counts as worse (default ${DEFAULT_TOLERANCE})`, toleranceOption)
    .option('--worst <n>', 'how many of the worst queries to show, with what came first (default 10; 0: none)', intInRange(0, 1000))
    // Its help lists the program's options as global ones, not those of `catalog search`, which do not apply.
    .configureHelp({ ...search.configureHelp(), visibleGlobalOptions: (cmd: Command) => programOf(cmd).options.filter((o) => !o.hidden) })
    .action(async (file: string | undefined, _o: unknown, command: Command) => {
      const flags = command.opts<EvalFlags>();
      await invoke(command, (ctx) => {
        assertNoSearchOptions(command);
        return runEval(ctx, file, flags);
      });
    });
}

/** The search request of one judgment: its text, filters and organization; the first EVAL_DEPTH hits. */
function requestOf(judgment: Judgment): Record<string, unknown> {
  return {
    matches: {
      ...(judgment.organization !== undefined ? { organization: judgment.organization } : {}),
      ...(judgment.text !== undefined ? { text: judgment.text } : {}),
      ...(judgment.filters.length > 0 ? { filters: judgment.filters } : {}),
    },
    // A photo search keeps its most similar parts whatever their score: a rank is what is judged.
    resultOptions: { limit: EVAL_DEPTH, ...(judgment.image !== undefined ? { minScore: 0 } : {}) },
  };
}

/**
 * A search refused for what the row asks (an unknown filter attribute or organization, a text too
 * long): a usage error naming the file, line and field, since the row is what needs fixing.
 */
function rowError(error: unknown, shown: string, judgment: Judgment): never {
  if (!(error instanceof CatalogError) || error.code !== 'bad_request') throw error;
  const fieldOf = (path: string): string | undefined =>
    path.startsWith('matches.filters') ? 'filter' : path.startsWith('matches.organization') ? 'organization' : path.startsWith('matches.text') ? 'query' : path === 'image' ? 'image' : undefined;
  const problems = error.errors ?? [];
  const first = problems[0];
  const field = first ? fieldOf(first.path) : undefined;
  const message = problems.length > 0 ? problems.map((p) => p.message).join('; ') : error.message;
  throw new UsageError(`${shown} line ${judgment.line}${field !== undefined ? `, field ${field}` : ''}: ${message}`);
}

/** Searches one judgment and ranks its expected parts among the first hits. */
async function judge(client: CatalogClient, judgment: Judgment, shown: string): Promise<QueryOutcome> {
  let image: { image: Uint8Array; filename: string } | undefined;
  if (judgment.image !== undefined) {
    try {
      image = { image: await readFile(judgment.image.file), filename: judgment.image.path };
    } catch (error) {
      throw new UsageError(`${shown} line ${judgment.line}, field image: cannot read the photo ${judgment.image.path}: ${(error as Error).message}`);
    }
  }
  let response: SearchResponse;
  try {
    response = await client.search(requestOf(judgment), image);
  } catch (error) {
    rowError(error, shown, judgment);
  }
  const ids = response.results.map((r) => r.id ?? '');
  return {
    line: judgment.line,
    group: judgment.group,
    query: judgment.text ?? judgment.image?.path ?? '',
    expected: judgment.expected,
    rank: rankOf(ids, judgment.expected),
    first: response.results.slice(0, 3).map((r) => ({ id: r.id ?? '', name: r.name ?? '' })),
    total: response.resultsTotalCount,
  };
}

/** What `--save` writes and `-o json` prints (the worst queries and the comparison only in the latter). */
interface EvalReport {
  judgments: string;
  depth: number;
  groups: EvalFigures[];
  worst?: QueryOutcome[];
  baseline?: { file: string; tolerance: number } & BaselineComparison;
}

/** Reads the figures of `--baseline`. @throws UsageError naming the file and what is wrong with it */
async function readBaseline(ctx: CommandContext, file: string): Promise<EvalFigures[]> {
  let text: string;
  try {
    text = await readFile(resolve(ctx.io.cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --baseline ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  try {
    return savedFigures(JSON.parse(text));
  } catch (error) {
    throw new UsageError(`--baseline ${file} is not a saved evaluation: ${(error as Error).message}`);
  }
}

const pct = (x: number): string => x.toFixed(3);

/** One worst query as a line: `line 7 [names] "debug": npm:debug at rank 4 of 310; first: npm:debuggo (debuggo), ...`. */
function worstLine(o: QueryOutcome): string {
  const where = o.rank === null ? `not in the first ${EVAL_DEPTH}` : `at rank ${o.rank}`;
  const first = o.first.length === 0 ? 'no hit' : o.first.map((h) => (h.name !== '' && h.name !== h.id ? `${h.id} (${h.name})` : h.id)).join(', ');
  return `  line ${o.line} [${o.group}] ${JSON.stringify(o.query)}: ${o.expected.join(' | ')} ${where} of ${o.total} hits; first: ${first}`;
}

/** The comparison with the baseline in lines for stderr. */
function comparisonLines(c: BaselineComparison, file: string, tolerance: number): string[] {
  const change = (f: BaselineComparison['worse'][number]) => `  ${f.group} ${f.figure}: ${pct(f.baseline)} → ${pct(f.now)}`;
  const lines: string[] = [];
  if (c.worse.length > 0) lines.push(`worse than ${file} (by more than ${tolerance}):`, ...c.worse.map(change));
  if (c.better.length > 0) lines.push(`better than ${file}:`, ...c.better.map(change));
  if (c.worse.length === 0 && c.better.length === 0) lines.push(`no figure moved by more than ${tolerance} from ${file}`);
  for (const g of c.missingGroups) lines.push(`note: group ${g} of ${file} has no query in this run: not compared`);
  for (const r of c.resized) lines.push(`note: group ${r.group} has ${r.now} queries, ${file} had ${r.baseline}: the runs judge different sets`);
  return lines;
}

/**
 * Runs `catalog search eval`: reads and checks the judgments (nothing is searched when a row is
 * bad: exit 2), searches each row in file order, prints the figures, the worst queries and the
 * comparison with `--baseline`.
 *
 * @returns 3 when a figure is worse than the baseline's beyond the tolerance, else 0
 * @throws UsageError for a bad judgments file, row, baseline or --save path; the client's errors
 */
export async function runEval(ctx: CommandContext, file: string | undefined, flags: EvalFlags): Promise<number> {
  // `eval` first among the words of `catalog search` names this command: say how to search the word.
  if (file === undefined) throw new UsageError('catalog search eval needs <judgments>, a CSV or TSV file; to search for the word eval, write it capitalised or quoted with the words after it (catalog search Eval, catalog search "eval board")');
  if (!/\.(csv|tsv)$/i.test(file)) throw new UsageError(`${file} is not a judgments file (.csv or .tsv); to search for the words, quote them: catalog search "eval ${file}"`);
  const { readJudgments } = await import('./judgments.js');
  const judgments = await readJudgments(file, file, ctx.io.cwd);
  const baseline = flags.baseline !== undefined ? await readBaseline(ctx, flags.baseline) : undefined;
  const client = await ctx.client();
  // A spinner only for a person watching a terminal (ora loads only then).
  const watching = !ctx.flags.quiet && (ctx.io.stderr as NodeJS.WriteStream).isTTY === true;
  const progress = watching ? await (await import('../../output/progress.js')).createProgress(ctx.io.stderr as NodeJS.WriteStream, true, ctx.io.env) : undefined;
  const outcomes: QueryOutcome[] = [];
  try {
    for (const judgment of judgments) {
      if (outcomes.length % 25 === 0) progress?.update(`judged ${outcomes.length.toLocaleString('en')} of ${judgments.length.toLocaleString('en')} queries`);
      outcomes.push(await judge(client, judgment, file));
    }
  } finally {
    progress?.stop();
  }

  const groups = figuresByGroup(outcomes);
  const worst = worstQueries(outcomes, flags.worst ?? 10);
  const tolerance = flags.tolerance ?? DEFAULT_TOLERANCE;
  const comparison = baseline !== undefined ? compareWithBaseline(groups, baseline, tolerance) : undefined;

  if (flags.save !== undefined) {
    const saved: EvalReport = { judgments: file, depth: EVAL_DEPTH, groups };
    try {
      await writeFile(resolve(ctx.io.cwd, flags.save), `${JSON.stringify(saved, null, 2)}\n`);
    } catch (error) {
      throw new UsageError(`cannot write --save ${flags.save}: ${(error as Error).message}`);
    }
  }

  const { emitRecords } = await import('../../output/emit.js');
  const spec = { fields: ['group', 'queries', ...FIGURE_NAMES], defaultFields: ['group', 'queries', ...FIGURE_NAMES] };
  if (ctx.format === 'json') {
    const report: EvalReport = {
      judgments: file, depth: EVAL_DEPTH, groups, worst,
      ...(comparison !== undefined && flags.baseline !== undefined ? { baseline: { file: flags.baseline, tolerance, ...comparison } } : {}),
    };
    ctx.io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    await emitRecords(ctx, spec, groups as unknown as Record<string, unknown>[]);
    if (worst.length > 0) {
      ctx.info(`worst queries (a right answer not first; of ${outcomes.length}):`);
      for (const o of worst) ctx.info(worstLine(o));
    }
  }
  if (comparison !== undefined && flags.baseline !== undefined) {
    // Said even under -q when worse: a pipeline's log must show why it failed.
    for (const line of comparisonLines(comparison, flags.baseline, tolerance)) {
      if (comparison.worse.length > 0) ctx.io.stderr.write(`${line}\n`);
      else ctx.info(line);
    }
  }
  if (flags.save !== undefined) ctx.info(`figures saved to ${flags.save}`);
  return comparison !== undefined && comparison.worse.length > 0 ? EXIT.PARTIAL : EXIT.OK;
}
