/**
 * The prune step of a sync (docs/cli.md, "Sync"): stored items in scope that the source no longer
 * holds are listed by `--dry-run`, refused above `--max-delete`, else deleted in chunks.
 */
import type { BulkDeleteResult } from '../../api/schemas.js';
import type { BulkSummary } from '../bulk/summary.js';
import type { CommandContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { describeMaxDelete, describeScope, withinMaxDelete, type MaxDelete, type SyncScope } from './scope.js';

/** Ids per delete request (decisions §9). */
const DELETE_CHUNK = 1000;

/** What a prune would delete: the ids in scope missing from the source, and how many are in scope. */
export interface PrunePlan {
  ids: string[];
  inScope: number;
}

/** How one prune runs. */
export interface PruneOptions {
  /** `parts` or `images`, for messages. */
  noun: string;
  plan: PrunePlan;
  scope: SyncScope;
  max: MaxDelete;
  dryRun: boolean;
  /** Deletes one chunk of ids (DELETE /1/catalog/parts or images). */
  remove(ids: string[]): Promise<BulkDeleteResult>;
}

/**
 * Lists (dry run) or deletes the planned ids and records them in `summary` (`pruned`,
 * `prunedIds`). The ids go to stdout one a line (in `-o json`, into the summary document), so a
 * dry run shows what would go before anything does. Above `--max-delete` nothing is deleted and the
 * run exits 1 with a note saying how many would have gone and how to allow it. Ids the service
 * refuses (e.g. a part that still has images) count as rejected, each with its message.
 */
export async function prune(ctx: CommandContext, summary: BulkSummary, options: PruneOptions): Promise<{ notes: string[]; exitCode?: number }> {
  const { noun, plan, max } = options;
  const n = (value: number) => value.toLocaleString('en-US');
  const share = plan.inScope > 0 ? ` (${((plan.ids.length * 100) / plan.inScope).toFixed(1)} %)` : '';
  const list = (ids: string[]) => {
    summary.prunedIds = ids;
    if (ctx.format !== 'json' && ids.length > 0) ctx.io.stdout.write(`${ids.join('\n')}\n`);
  };
  if (!withinMaxDelete(max, plan.ids.length, plan.inScope)) {
    summary.pruned = 0;
    if (options.dryRun) list(plan.ids);
    return {
      notes: [
        `prune refused: ${n(plan.ids.length)} of ${n(plan.inScope)} ${noun} in scope (${describeScope(options.scope)})${share} are not in the source, ` +
          `above --max-delete ${describeMaxDelete(max, noun)}; nothing was deleted. ` +
          'Check that the source is complete, list them with --dry-run, or allow it with --max-delete <n> or <p>%.',
      ],
      exitCode: EXIT.ERROR,
    };
  }
  if (options.dryRun) {
    summary.pruned = plan.ids.length;
    list(plan.ids);
    return { notes: [] };
  }
  const deleted: string[] = [];
  for (let i = 0; i < plan.ids.length; i += DELETE_CHUNK) {
    const result = await options.remove(plan.ids.slice(i, i + DELETE_CHUNK));
    deleted.push(...result.deleted);
    for (const [id, messages] of Object.entries(result.errors)) {
      summary.rejected++;
      summary.errors[id] = messages.map((m) => `not pruned: ${m}`);
    }
  }
  summary.pruned = deleted.length;
  list(deleted);
  return { notes: [] };
}
