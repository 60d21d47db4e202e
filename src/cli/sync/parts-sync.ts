/**
 * `parts import --sync` (docs/cli.md, "Sync"): the sheet is the whole truth for the parts in scope.
 * Rows equal to the stored part are not sent: a row the last run saw the catalog hold, on a part
 * nothing wrote since (part-hashes.ts), is not even compared; the others are, with one select per
 * batch. With
 * `--prune` the stored parts in scope the sheet no longer holds are deleted, listed first by
 * `--dry-run`, refused above `--max-delete`.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { MAX_PAGE_LIMIT, type PartInput } from '../../api/schemas.js';
import type { CatalogClient } from '../../client/types.js';
import { partUpsertChanges } from '../../core/catalog/part-changes.js';
import type { BulkRow } from '../bulk/run-bulk.js';
import type { BulkSummary } from '../bulk/summary.js';
import type { CommandContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { PartHashes, type SheetIdentity } from './part-hashes.js';
import { rowHash } from './row-hash.js';
import { prune } from './prune.js';
import { parseMaxDelete, parseScope, partInScope, type MaxDelete, type SyncScope } from './scope.js';
import type { SyncStateFile } from './state.js';

/** The sync options of `parts import`. */
export interface PartsSyncFlags {
  sync?: boolean;
  prune?: boolean;
  scope?: string;
  maxDelete?: string;
  /** false (`--no-sync-state`): compare every row with the stored part, whatever the last run saw. */
  syncState?: boolean;
}

type Row = BulkRow<Record<string, unknown>>;

/** A batch after the comparison: the rows to send, each one's index in the batch and row hash, and how many were equal. */
export interface FilteredBatch {
  rows: Row[];
  indexes: number[];
  /** rowHash of each row to send (undefined: a row without a usable part_id). */
  hashes: (string | undefined)[];
  unchanged: number;
}

/** The state of one `parts import --sync` run. */
export class PartsSync {
  /** Every part_id of the rows read, rejected rows included: none of them is pruned. */
  private readonly sourceIds = new Set<string>();
  /** The part_ids of a sheet not read (sheetUnchanged): none of them is pruned either. */
  private unreadIds: readonly string[] = [];
  /** Rows whose part_id could not be read: the sheet's content is then not known, and nothing is pruned. */
  private unreadable = 0;
  private readonly scope: SyncScope;
  private readonly max: MaxDelete;

  private readonly hashes: PartHashes;
  /** The sheet's bytes and mapping options as the run began (a file sheet only). */
  private sheet: (SheetIdentity & { path: string }) | undefined;
  /** Rows known equal without being read (the last run's sheet, byte for byte, on unchanged parts). */
  private skipped = 0;

  /**
   * `state`: the sync state file of this sheet and catalog (src/cli/sync/state.ts).
   * @throws UsageError for a malformed --scope or --max-delete.
   */
  constructor(
    private readonly ctx: CommandContext,
    private readonly flags: PartsSyncFlags,
    private readonly client: () => Promise<CatalogClient>,
    state: SyncStateFile,
  ) {
    this.scope = parseScope(flags.scope);
    this.max = parseMaxDelete(flags.maxDelete);
    this.hashes = new PartHashes(state, flags.syncState !== false, client);
  }

  /**
   * Whether the sheet at `path` need not be read: the last finished run read these very bytes with
   * the same `options` (what maps its rows), remembered every row, and the change feed shows no
   * write to any of those parts nor to an attribute since. Then every row counts as unchanged.
   */
  async sheetUnchanged(path: string, options: string): Promise<boolean> {
    this.sheet = { sha256: await fileSha256(path), options, path };
    const ids = await this.hashes.sameSheet(this.sheet);
    if (ids === undefined) return false;
    this.unreadIds = ids;
    this.hashes.noteAllEqual();
    this.skipped = ids.length;
    return true;
  }

  /** The hashes of the rows known to equal their stored part: the reader thread does not validate those rows. */
  knownHashes(): Promise<string[]> {
    return this.hashes.knownHashes();
  }

  /** Records a row read from the sheet (its part_id, or that it has none). */
  noteRow(row: Row): void {
    const id = row.item?.part_id ?? row.record?.part_id;
    if (typeof id === 'string' && id !== '') {
      this.sourceIds.add(id);
      this.hashes.noteId(id);
    } else this.unreadable++;
  }

  /** Records which rows of a filtered batch the service stored (created or updated). */
  noteSent(filtered: FilteredBatch, result: { created: string[]; updated: string[] } | undefined): void {
    if (result === undefined) return;
    const stored = new Set([...result.created, ...result.updated]);
    filtered.rows.forEach((row, k) => {
      const id = row.item?.part_id;
      const hash = filtered.hashes[k];
      if (typeof id === 'string' && hash !== undefined && stored.has(id)) this.hashes.noteWritten(id, hash);
    });
  }

  /**
   * Leaves out the rows whose part would not change (partUpsertChanges against the stored part,
   * read with one select of the batch's ids). Rows without a usable part_id are kept: the service
   * answers them.
   */
  async filter(batch: Row[]): Promise<FilteredBatch> {
    await this.hashes.prepare();
    // The reader thread hashed its rows (row.hash); rows read here are hashed now.
    const hashes = batch.map((r) => (r.item !== undefined && r.refused === undefined && typeof r.item.part_id === 'string' ? (r.hash ?? rowHash(r.item)) : undefined));
    const known = batch.map((r, k) => hashes[k] !== undefined && this.hashes.unchanged(String(r.item?.part_id), hashes[k]));
    const ids = [...new Set(batch.flatMap((r, k) => (!known[k] && typeof r.item?.part_id === 'string' ? [r.item.part_id] : [])))];
    const stored = new Map<string, Awaited<ReturnType<CatalogClient['selectParts']>>[number]>();
    const client = await this.client();
    for (let i = 0; i < ids.length; i += MAX_PAGE_LIMIT) {
      for (const part of await client.selectParts({ part_ids: ids.slice(i, i + MAX_PAGE_LIMIT), projection: ['name', 'attributes'] })) stored.set(part.part_id, part);
    }
    const out: FilteredBatch = { rows: [], indexes: [], hashes: [], unchanged: 0 };
    batch.forEach((row, index) => {
      const item = row.item;
      const hash = hashes[index];
      if (item !== undefined && hash !== undefined && (known[index] || !changes(item, stored.get(String(item.part_id))))) {
        out.unchanged++;
        this.hashes.noteEqual(String(item.part_id), hash);
      } else {
        out.rows.push(row);
        out.indexes.push(index);
        out.hashes.push(hash);
      }
    });
    return out;
  }

  /** After every row was answered: the prune (with --prune), then the state for the next run is saved. */
  async finish(summary: BulkSummary, dryRun: boolean): Promise<{ notes: string[]; exitCode?: number }> {
    if (this.skipped > 0) {
      summary.rows += this.skipped;
      summary.unchanged = (summary.unchanged ?? 0) + this.skipped;
    }
    const pruned = await this.prune(summary, dryRun);
    // A dry run wrote nothing, and what it compared is all it could remember: the next real run decides.
    const unsaved = dryRun ? undefined : await this.hashes.save(() => this.sheetAsRead());
    return unsaved === undefined ? pruned : { ...pruned, notes: [...pruned.notes, unsaved] };
  }

  /** The sheet's identity with its row count, when the file is still the bytes the run began with and every row had a part_id. */
  private async sheetAsRead(): Promise<(SheetIdentity & { rows: number }) | undefined> {
    if (this.sheet === undefined || this.unreadable > 0) return undefined;
    const { sha256, options, path } = this.sheet;
    return (await fileSha256(path)) === sha256 ? { sha256, options, rows: this.sourceIds.size + this.unreadIds.length } : undefined;
  }

  private async prune(summary: BulkSummary, dryRun: boolean): Promise<{ notes: string[]; exitCode?: number }> {
    if (this.flags.prune !== true) return { notes: [] };
    if (this.unreadable > 0) {
      return {
        notes: [`prune skipped: ${this.unreadable.toLocaleString('en-US')} rows have no readable part_id, so the sheet's parts are not known; nothing was deleted. Fix those rows (see the errors file) and run again.`],
        exitCode: EXIT.ERROR,
      };
    }
    const client = await this.client();
    const source = this.unreadIds.length > 0 ? new Set([...this.sourceIds, ...this.unreadIds]) : this.sourceIds;
    // Without an attribute scope the ids alone (an empty projection) are listed: no value is read.
    const projection = this.scope.kind === 'attribute' ? ['attributes'] : [];
    const ids: string[] = [];
    let inScope = 0;
    let after: string | undefined;
    for (;;) {
      const page = await client.listParts({ paging: { limit: MAX_PAGE_LIMIT, ...(after !== undefined ? { last_object_id: after } : {}) }, projection });
      for (const part of page.result) {
        if (!partInScope(part, this.scope)) continue;
        inScope++;
        if (!source.has(part.part_id)) ids.push(part.part_id);
      }
      if (!page.more_data || page.result.length === 0) break;
      after = page.last_object_id;
    }
    return prune(this.ctx, summary, { noun: 'parts', plan: { ids, inScope }, scope: this.scope, max: this.max, dryRun, remove: (chunk) => client.deleteParts(chunk) });
  }
}

/** The SHA-256 (hex) of a file's bytes, read as a stream. */
async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** partUpsertChanges for an item as mapped from a row: a malformed one counts as a change (the service rejects it). */
function changes(item: Record<string, unknown>, stored: Parameters<typeof partUpsertChanges>[1]): boolean {
  try {
    return partUpsertChanges(item as unknown as PartInput, stored);
  } catch {
    return true;
  }
}
