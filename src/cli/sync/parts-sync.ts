/**
 * `parts import --sync` (docs/cli.md, "Sync"): the sheet is the whole truth for the parts in scope.
 * Rows equal to the stored part are not sent (one select per batch compares them), and with
 * `--prune` the stored parts in scope the sheet no longer holds are deleted, listed first by
 * `--dry-run`, refused above `--max-delete`.
 */
import { MAX_PAGE_LIMIT, type PartInput } from '../../api/schemas.js';
import type { CatalogClient } from '../../client/types.js';
import { partUpsertChanges } from '../../core/catalog/part-changes.js';
import type { BulkRow } from '../bulk/run-bulk.js';
import type { BulkSummary } from '../bulk/summary.js';
import type { CommandContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { prune } from './prune.js';
import { parseMaxDelete, parseScope, partInScope, type MaxDelete, type SyncScope } from './scope.js';

/** The sync options of `parts import`. */
export interface PartsSyncFlags {
  sync?: boolean;
  prune?: boolean;
  scope?: string;
  maxDelete?: string;
}

type Row = BulkRow<Record<string, unknown>>;

/** A batch after the comparison: the rows to send, each one's index in the batch, and how many were equal. */
export interface FilteredBatch {
  rows: Row[];
  indexes: number[];
  unchanged: number;
}

/** The state of one `parts import --sync` run. */
export class PartsSync {
  /** Every part_id the sheet holds, rejected rows included: none of them is pruned. */
  private readonly sourceIds = new Set<string>();
  /** Rows whose part_id could not be read: the sheet's content is then not known, and nothing is pruned. */
  private unreadable = 0;
  private readonly scope: SyncScope;
  private readonly max: MaxDelete;

  /** @throws UsageError for a malformed --scope or --max-delete. */
  constructor(
    private readonly ctx: CommandContext,
    private readonly flags: PartsSyncFlags,
    private readonly client: () => Promise<CatalogClient>,
  ) {
    this.scope = parseScope(flags.scope);
    this.max = parseMaxDelete(flags.maxDelete);
  }

  /** Records a row read from the sheet (its part_id, or that it has none). */
  noteRow(row: Row): void {
    const id = row.item?.part_id ?? row.record?.part_id;
    if (typeof id === 'string' && id !== '') this.sourceIds.add(id);
    else this.unreadable++;
  }

  /**
   * Leaves out the rows whose part would not change (partUpsertChanges against the stored part,
   * read with one select of the batch's ids). Rows without a usable part_id are kept: the service
   * answers them.
   */
  async filter(batch: Row[]): Promise<FilteredBatch> {
    const ids = [...new Set(batch.flatMap((r) => (typeof r.item?.part_id === 'string' ? [r.item.part_id] : [])))];
    const stored = new Map<string, Awaited<ReturnType<CatalogClient['selectParts']>>[number]>();
    const client = await this.client();
    for (let i = 0; i < ids.length; i += MAX_PAGE_LIMIT) {
      for (const part of await client.selectParts({ part_ids: ids.slice(i, i + MAX_PAGE_LIMIT), projection: ['name', 'attributes'] })) stored.set(part.part_id, part);
    }
    const out: FilteredBatch = { rows: [], indexes: [], unchanged: 0 };
    batch.forEach((row, index) => {
      const item = row.item;
      if (item !== undefined && row.refused === undefined && !changes(item, stored.get(String(item.part_id)))) out.unchanged++;
      else {
        out.rows.push(row);
        out.indexes.push(index);
      }
    });
    return out;
  }

  /** After every row was answered: the prune (with --prune), else nothing. */
  async finish(summary: BulkSummary, dryRun: boolean): Promise<{ notes: string[]; exitCode?: number }> {
    if (this.flags.prune !== true) return { notes: [] };
    if (this.unreadable > 0) {
      return {
        notes: [`prune skipped: ${this.unreadable.toLocaleString('en-US')} rows have no readable part_id, so the sheet's parts are not known; nothing was deleted. Fix those rows (see the errors file) and run again.`],
        exitCode: EXIT.ERROR,
      };
    }
    const client = await this.client();
    const projection = this.scope.kind === 'attribute' ? ['attributes'] : ['serviceId'];
    const ids: string[] = [];
    let inScope = 0;
    let after: string | undefined;
    for (;;) {
      const page = await client.listParts({ paging: { limit: MAX_PAGE_LIMIT, ...(after !== undefined ? { last_object_id: after } : {}) }, projection });
      for (const part of page.result) {
        if (!partInScope(part, this.scope)) continue;
        inScope++;
        if (!this.sourceIds.has(part.part_id)) ids.push(part.part_id);
      }
      if (!page.more_data || page.result.length === 0) break;
      after = page.last_object_id;
    }
    return prune(this.ctx, summary, { noun: 'parts', plan: { ids, inScope }, scope: this.scope, max: this.max, dryRun, remove: (chunk) => client.deleteParts(chunk) });
  }
}

/** partUpsertChanges for an item as mapped from a row: a malformed one counts as a change (the service rejects it). */
function changes(item: Record<string, unknown>, stored: Parameters<typeof partUpsertChanges>[1]): boolean {
  try {
    return partUpsertChanges(item as unknown as PartInput, stored);
  } catch {
    return true;
  }
}
