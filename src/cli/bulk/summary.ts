/**
 * How a bulk run (every import, image upload) reports itself (design/cli.md): the `-o json` summary document and the
 * human line on stderr, shared by `<noun> import` and `images upload`.
 */
import type { BulkSummary as ImportSummary } from './run-bulk.js';

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
