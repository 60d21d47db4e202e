/**
 * How a bulk run (every import, image upload) reports itself (design/cli.md): the `-o json` summary document and the
 * human line on stderr, shared by `<noun> import` and `images upload`.
 */
/** The result of a bulk run (the `-o json` summary of cli.md plus bookkeeping). */
export interface BulkSummary {
  created: number;
  updated: number;
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
  return { created: summary.created, updated: summary.updated, deleted: 0, rejected: summary.rejected, errors: summary.errors, errorsFile: summary.errorsFile };
}

/**
 * The human summary, ending with the errors file path. `detail` (e.g. bytes and rate) follows the
 * counts of a real run.
 */
export function describeImport(what: string, summary: ImportSummary, detail?: string): string {
  const n = (value: number) => value.toLocaleString('en-US');
  let line = summary.dryRun
    ? `${what} (dry run): would create ${n(summary.created)}, would update ${n(summary.updated)}, ${n(summary.rejected)} rejected`
    : `${what}: ${n(summary.created)} created, ${n(summary.updated)} updated, ${n(summary.rejected)} rejected${detail ? ` ${detail}` : ''}`;
  if (summary.skippedBatches > 0) line += `, ${n(summary.skippedBatches)} batches skipped (done before --resume)`;
  if (summary.stoppedEarly) line += ' (stopped early at --max-errors)';
  if (summary.errorsFile) line += `\nrejected rows with their errors: ${summary.errorsFile}`;
  return line;
}
