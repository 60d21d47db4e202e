/**
 * The figures of `catalog search eval` (docs/cli.md, "catalog search eval"): success@1, @3, @10
 * and mean reciprocal rank over the first {@link EVAL_DEPTH} hits, per group of judgments and
 * overall; the worst queries; and the comparison with a saved run. Pure: no I/O, no client.
 */

/** Hits read per query: success@10 and MRR@10 need the first ten. */
export const EVAL_DEPTH = 10;

/** How much a figure may drop before `--baseline` calls it worse (default of `--tolerance`). */
export const DEFAULT_TOLERANCE = 0.005;

/** The figures of one group of queries (or of all of them): shares in [0, 1], rounded to 3 decimals. */
export interface EvalFigures {
  /** The group label (`all` for every query). */
  group: string;
  /** Queries in the group. */
  queries: number;
  /** Share of queries whose first hit is an expected part. */
  'success@1': number;
  /** Share with an expected part among the first 3 hits. */
  'success@3': number;
  /** Share with an expected part among the first 10 hits. */
  'success@10': number;
  /** Mean over the queries of 1 / the rank of the first expected part (0 when not in the first 10). */
  mrr: number;
}

/** The names of the figures a baseline compares, in the order printed. */
export const FIGURE_NAMES = ['success@1', 'success@3', 'success@10', 'mrr'] as const;
/** One of {@link FIGURE_NAMES}. */
export type FigureName = (typeof FIGURE_NAMES)[number];

/** The group every query also counts in. */
export const OVERALL = 'all';

/** One judged query's outcome: what was searched, what was expected, and the rank it got. */
export interface QueryOutcome {
  /** The judgments file's line of the row. */
  line: number;
  group: string;
  /** The text searched, or the photo's path. */
  query: string;
  /** The part ids any of which is a right answer. */
  expected: readonly string[];
  /** 1-based rank of the first expected part among the first {@link EVAL_DEPTH} hits; null when none is there. */
  rank: number | null;
  /** The first hits (at most 3): id and name, for "what came first". */
  first: readonly { id: string; name: string }[];
  /** Every hit the search found (resultsTotalCount). */
  total: number;
}

/** 1-based rank of the first of `expected` in `hitIds` (the first EVAL_DEPTH), or null. */
export function rankOf(hitIds: readonly string[], expected: readonly string[]): number | null {
  const wanted = new Set(expected);
  const at = hitIds.slice(0, EVAL_DEPTH).findIndex((id) => wanted.has(id));
  return at < 0 ? null : at + 1;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** The figures of `outcomes` under the label `group`; every figure 0 for no query. */
export function figuresOf(group: string, outcomes: readonly QueryOutcome[]): EvalFigures {
  const n = outcomes.length;
  const share = (hit: (o: QueryOutcome) => boolean): number => (n === 0 ? 0 : round3(outcomes.filter(hit).length / n));
  const within = (k: number) => (o: QueryOutcome) => o.rank !== null && o.rank <= k;
  const rr = outcomes.reduce((sum, o) => sum + (o.rank === null ? 0 : 1 / o.rank), 0);
  return { group, queries: n, 'success@1': share(within(1)), 'success@3': share(within(3)), 'success@10': share(within(10)), mrr: n === 0 ? 0 : round3(rr / n) };
}

/** The figures per group, groups in order of first appearance, then {@link OVERALL} over every query. */
export function figuresByGroup(outcomes: readonly QueryOutcome[]): EvalFigures[] {
  const groups = new Map<string, QueryOutcome[]>();
  for (const o of outcomes) {
    const list = groups.get(o.group);
    if (list) list.push(o);
    else groups.set(o.group, [o]);
  }
  const rows = [...groups].map(([group, list]) => figuresOf(group, list));
  // One group that is the whole set needs no second row saying the same.
  if (rows.length === 1 && rows[0]?.group === OVERALL) return rows;
  return [...rows, figuresOf(OVERALL, outcomes)];
}

/** The `count` worst queries: the expected part not found first, then the lowest reciprocal rank; ties in file order. */
export function worstQueries(outcomes: readonly QueryOutcome[], count: number): QueryOutcome[] {
  const rr = (o: QueryOutcome) => (o.rank === null ? 0 : 1 / o.rank);
  return outcomes.filter((o) => o.rank !== 1).sort((a, b) => rr(a) - rr(b) || a.line - b.line).slice(0, count);
}

/** A figure that moved beyond the tolerance against the baseline. */
export interface FigureChange {
  group: string;
  figure: FigureName;
  baseline: number;
  now: number;
}

/** What {@link compareWithBaseline} found. */
export interface BaselineComparison {
  /** Figures lower than the baseline's by more than the tolerance. */
  worse: FigureChange[];
  /** Figures higher by more than the tolerance. */
  better: FigureChange[];
  /** Groups of the baseline this run has no query of (they cannot be compared). */
  missingGroups: string[];
  /** Groups whose number of queries differs from the baseline's (the runs judge different sets). */
  resized: { group: string; baseline: number; now: number }[];
}

/**
 * Compares this run's figures with a saved run's, group by group (groups of only one side are not
 * compared; those of the baseline alone are listed). A figure is worse when it dropped by more than
 * `tolerance` (an absolute share, e.g. 0.005), better when it rose by more.
 */
export function compareWithBaseline(now: readonly EvalFigures[], baseline: readonly EvalFigures[], tolerance: number): BaselineComparison {
  const current = new Map(now.map((f) => [f.group, f]));
  const out: BaselineComparison = { worse: [], better: [], missingGroups: [], resized: [] };
  for (const before of baseline) {
    const after = current.get(before.group);
    if (after === undefined) {
      out.missingGroups.push(before.group);
      continue;
    }
    if (after.queries !== before.queries) out.resized.push({ group: before.group, baseline: before.queries, now: after.queries });
    for (const figure of FIGURE_NAMES) {
      const change = { group: before.group, figure, baseline: before[figure], now: after[figure] };
      // Rounded to 3 decimals on both sides: compare in thousandths so 0.1 + 0.005 is not a float question.
      const delta = Math.round((after[figure] - before[figure]) * 1000);
      const allowed = Math.round(tolerance * 1000);
      if (delta < -allowed) out.worse.push(change);
      else if (delta > allowed) out.better.push(change);
    }
  }
  return out;
}

/**
 * The figures of a saved run (`--save`, or `-o json` output), validated.
 *
 * @param json the parsed file
 * @returns its figures, one per group
 * @throws Error naming what is missing or malformed (the caller adds the file's name)
 */
export function savedFigures(json: unknown): EvalFigures[] {
  const groups = (json as { groups?: unknown } | null)?.groups;
  if (!Array.isArray(groups)) throw new Error('it holds no "groups" array (write it with catalog search eval --save)');
  return groups.map((g: unknown, i) => {
    const f = g as Record<string, unknown> | null;
    if (f === null || typeof f !== 'object' || typeof f.group !== 'string' || typeof f.queries !== 'number') throw new Error(`groups[${i}] has no "group" name or "queries" count`);
    for (const name of FIGURE_NAMES) if (typeof f[name] !== 'number') throw new Error(`groups[${i}] ("${f.group}") has no number "${name}"`);
    return f as unknown as EvalFigures;
  });
}
