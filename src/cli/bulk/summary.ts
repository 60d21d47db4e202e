/**
 * How a bulk run (every import, image upload) reports itself (design/cli.md): the `-o json` summary document and the
 * human line on stderr, shared by `<noun> import` and `images upload`.
 */
/** The result of a bulk run (the `-o json` summary of cli.md plus bookkeeping). */
export interface BulkSummary {
  created: number;
  updated: number;
  /** Of `updated`: images moved to another part (image upload only; the CLI compares with before). */
  moved?: number;
  /** Items deleted by tombstones (`{"part_id": ..., "deleted": true}` rows of a parts delta). */
  deleted?: number;
  /** Rows a sync found equal to what is stored and did not send (sync runs only). */
  unchanged?: number;
  /** Stored items a sync's prune deleted (or, in a dry run, would delete). */
  pruned?: number;
  /** The ids of `pruned`, in the order deleted (sync runs with --prune only). */
  prunedIds?: string[];
  /** Photos of an image sync that name no existing part (not sent). */
  unmatched?: number;
  rejected: number;
  /** Rows read (including rejected ones and those skipped by --resume). */
  rows: number;
  /** Bytes of the rows sent (`size`). */
  bytes: number;
  /** Batches skipped because the checkpoint says they are done. */
  skippedBatches: number;
  /** id (or `line:<n>`) -> messages; at most MAX_SUMMARY_ERRORS (run-bulk.ts) entries (all are in the errors file). */
  errors: Record<string, string[]>;
  errorsFile: string | null;
  dryRun: boolean;
  interrupted: boolean;
  /** True when --max-errors stopped the run early. */
  stoppedEarly: boolean;
}


type ImportSummary = BulkSummary;

/** The `-o json` summary of cli.md: `{created, updated, deleted, rejected, errors, errorsFile}`. */
export function summaryDocument(summary: ImportSummary): Record<string, unknown> {
  return {
    created: summary.created,
    updated: summary.updated,
    ...(summary.moved !== undefined ? { moved: summary.moved } : {}),
    ...(summary.unchanged !== undefined ? { unchanged: summary.unchanged } : {}),
    ...(summary.unmatched !== undefined ? { unmatched: summary.unmatched } : {}),
    deleted: (summary.deleted ?? 0) + (summary.pruned ?? 0),
    ...(summary.prunedIds !== undefined ? { [summary.dryRun ? 'wouldDelete' : 'deletedIds']: summary.prunedIds } : {}),
    rejected: summary.rejected,
    errors: summary.errors,
    errorsFile: summary.errorsFile,
  };
}

/** Rejected rows shown in the summary itself when an errors file holds them all. */
export const INLINE_ERRORS = 5;

/**
 * The human summary: the counts, then, when an errors file holds the rejected rows, the first
 * {@link INLINE_ERRORS} of them inline (in input order: id or line, and message) and the file's path. `detail` (e.g. bytes and rate) follows the counts of a real run.
 */
export function describeImport(what: string, summary: ImportSummary, detail?: string): string {
  const n = (value: number) => value.toLocaleString('en-US');
  // An upload that gives an existing image to another part says so: the other part lost it.
  const moved = `${summary.moved ? ` (moved: ${n(summary.moved)} to another part)` : ''}${summary.deleted ? `, ${n(summary.deleted)} deleted` : ''}`;
  // A sync's own counts: what it skipped, deleted and could not bind to a part.
  const sync = [
    summary.unchanged !== undefined ? `${n(summary.unchanged)} unchanged` : '',
    summary.pruned !== undefined ? `${summary.dryRun ? 'would prune' : 'pruned'} ${n(summary.pruned)}` : '',
    summary.unmatched !== undefined ? `${n(summary.unmatched)} unmatched` : '',
  ].filter((s) => s !== '').map((s) => `, ${s}`).join('');
  let line = summary.dryRun
    ? `${what} (dry run): would create ${n(summary.created)}, would update ${n(summary.updated)}${moved}${sync}, ${n(summary.rejected)} rejected`
    : `${what}: ${n(summary.created)} created, ${n(summary.updated)} updated${moved}${sync}, ${n(summary.rejected)} rejected${detail ? ` ${detail}` : ''}`;
  if (summary.skippedBatches > 0) line += `, ${n(summary.skippedBatches)} batches skipped (done before --resume)`;
  if (summary.stoppedEarly) line += ' (stopped early at --max-errors)';
  // Without an errors file the caller lists every rejected row after this line.
  const entries = summary.errorsFile ? Object.entries(summary.errors) : [];
  const shown = entries.slice(0, INLINE_ERRORS);
  // A `line:<n>` key adds nothing: its messages start with the row's line already.
  for (const [key, messages] of shown) line += `\n  ${key.startsWith('line:') ? '' : `${key}: `}${messages.join('; ')}`;
  if (entries.length > shown.length) line += `\n  ... and more (${n(summary.rejected)} rejected rows in all)`;
  if (summary.errorsFile) line += `\nrejected rows with their errors: ${summary.errorsFile}`;
  return line;
}
