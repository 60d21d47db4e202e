/**
 * What the last `parts import --sync` saw the catalog hold (docs/cli.md, "Sync"), so a run over an
 * unchanged sheet into an unchanged catalog reads no stored part: per part_id, the hash of the row
 * that the catalog was seen to equal, and the change number (POST /1/catalog/changes) it was true
 * at. The change feed says which parts were written since (by anyone); only those rows, and rows
 * whose hash differs, are compared with the stored part.
 *
 * Exact because every write of a part is numbered in the feed in its own transaction: a part with
 * no change after the remembered number is still what it was. At the end of a run, a part this run
 * did not write is remembered when nothing wrote it during the run; a part it wrote, when the feed
 * holds that write alone (a second writer's change makes two). A feed that no longer reaches back
 * (410, retention) or names a number this catalog never had (400: another catalog, a restore) means
 * a full comparison.
 */
import type { CatalogClient } from '../../client/types.js';
import { readSyncState, writeSyncState, type SyncStateFile } from './state.js';

/**
 * The state as stored: the feed's change number; the part_ids and, at the same place in `hashes`
 * ({@link ROW_HASH_CHARS} characters each), the hash of the row each part equals; `sheet` when
 * every row of the sheet is among them (the sheet's SHA-256 and the options that map its rows), so
 * that the same bytes next time need not be read at all. Arrays and one string rather than an
 * object keyed by part_id: JSON.parse of an object with 100,000 keys was most of a second run.
 */
interface Stored {
  change: number;
  ids: string[];
  hashes: string;
  sheet?: SheetIdentity;
}

/** A sheet's bytes and the options its rows were mapped with. */
export interface SheetIdentity {
  sha256: string;
  options: string;
}

/** Characters of one {@link rowHash} (SHA-256 in base64url, no padding). */
const ROW_HASH_CHARS = 43;

/** Whether a state file's data has the shape this version writes (an older shape means a full run). */
function isStored(data: unknown): data is Stored {
  const s = data as Partial<Stored> | undefined;
  return typeof s?.change === 'number' && Array.isArray(s.ids) && typeof s.hashes === 'string' && s.hashes.length === s.ids.length * ROW_HASH_CHARS;
}

/** Changes per feed request (the API's maximum). */
const FEED_PAGE = 1000;


/** Whether an error is the feed saying it cannot answer from that number (410 gone, 400 beyond latest). */
function feedCannotAnswer(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'gone' || code === 'bad_request';
}

/**
 * Reads the part changes after `since` to the end of the feed: how many each part_id has, and the
 * feed's latest number read with the last page (every change up to it is committed and visible).
 */
async function partChangesSince(client: CatalogClient, since: number): Promise<{ counts: Map<string, number>; latest: number }> {
  const counts = new Map<string, number>();
  let after = since;
  for (;;) {
    const page = await client.changes({ since: after, limit: FEED_PAGE, types: ['part'] });
    for (const change of page.changes) counts.set(change.id, (counts.get(change.id) ?? 0) + 1);
    if (!page.more) return { counts, latest: Math.max(page.latest, page.next) };
    after = page.next;
  }
}

/** One run's view of the remembered rows, and what it learns for the next run. */
export class PartHashes {
  /** The last run's state (undefined: none, ignored, or the feed cannot answer from its number). */
  private stored: Stored | undefined;
  /** part_ids the feed says were written since the stored number (by anyone). */
  private changedSince = new Map<string, number>();
  /** The remembered hash of each part unchanged since the last run, built on first use. */
  private knownMap: Map<string, string> | undefined;
  /** The feed's number this run starts from: writes after it are checked at the end. */
  private start = 0;
  private started: Promise<void> | undefined;
  /** The last run's sheet, when every part it remembered is unchanged since. */
  private lastSheet: SheetIdentity | undefined;
  /** The last run's state holds as it is: every row is one it remembered (sameSheet), none was read. */
  private allEqual = false;
  /** Rows found equal to the stored part (remembered or compared). */
  private readonly equal = new Map<string, string>();
  /** Rows this run wrote. */
  private readonly written = new Map<string, string>();
  /** part_ids on several rows of the sheet: not remembered (which row the catalog holds depends on order). */
  private readonly repeated = new Set<string>();
  private readonly rows = new Set<string>();

  constructor(
    private readonly file: SyncStateFile,
    private readonly use: boolean,
    private readonly client: () => Promise<CatalogClient>,
  ) {}

  /** Notes a part_id read from the sheet. */
  noteId(partId: string): void {
    if (this.rows.has(partId)) this.repeated.add(partId);
    else this.rows.add(partId);
  }

  /** Loads the last run's state and learns which of its parts were written since (once, before the first comparison). */
  prepare(): Promise<void> {
    this.started ??= (async () => {
      const client = await this.client();
      const data = this.use ? await readSyncState<unknown>(this.file) : undefined;
      if (isStored(data)) {
        try {
          const { counts, latest } = await partChangesSince(client, data.change);
          // The sheet's rows are mapped against the attribute definitions: any change to those and the rows are read again.
          const attributes = await client.changes({ since: data.change, limit: 1, types: ['attribute'] });
          this.stored = data;
          this.changedSince = counts;
          if (counts.size === 0 && attributes.changes.length === 0) this.lastSheet = data.sheet;
          this.start = latest;
          return;
        } catch (error) {
          if (!feedCannotAnswer(error)) throw error;
        }
      }
      this.start = (await client.changes({ limit: 1, types: ['part'] })).latest;
    })();
    return this.started;
  }

  /** The remembered hash of each part that nothing wrote since the last run. */
  private get known(): Map<string, string> {
    if (this.knownMap === undefined) {
      this.knownMap = new Map();
      const stored = this.stored;
      if (stored !== undefined) {
        stored.ids.forEach((id, k) => {
          if (!this.changedSince.has(id)) this.knownMap?.set(id, stored.hashes.slice(k * ROW_HASH_CHARS, (k + 1) * ROW_HASH_CHARS));
        });
      }
    }
    return this.knownMap;
  }

  /**
   * The part_ids of the sheet when it is the last run's sheet byte for byte, mapped with the same
   * options, and every one of its parts is unchanged since: then every row is known to be equal
   * without reading it. Undefined otherwise.
   */
  async sameSheet(sheet: SheetIdentity): Promise<readonly string[] | undefined> {
    await this.prepare();
    const last = this.lastSheet;
    return last !== undefined && last.sha256 === sheet.sha256 && last.options === sheet.options ? (this.stored?.ids ?? []) : undefined;
  }

  /** Every row of the sheet is known to be equal (sameSheet): the last run's state holds as it is. */
  noteAllEqual(): void {
    this.allEqual = true;
  }

  /** The hashes of the rows known to equal their stored part (for the reader thread: ReaderOptions.known). */
  async knownHashes(): Promise<string[]> {
    await this.prepare();
    return [...this.known.values()];
  }

  /** Whether the part is known to equal this row (no stored part needs reading). */
  unchanged(partId: string, hash: string): boolean {
    return this.known.get(partId) === hash;
  }

  /** The row was found equal to the stored part. */
  noteEqual(partId: string, hash: string): void {
    this.equal.set(partId, hash);
  }

  /** This run wrote the row. */
  noteWritten(partId: string, hash: string): void {
    this.written.set(partId, hash);
  }

  /**
   * Saves what holds at the feed's end: parts found equal that nothing wrote since the run began,
   * and parts this run wrote whose only change since is that write; with the sheet's identity
   * (`sheet()`: the bytes read, unchanged during the run) when that is every row of a sheet of
   * `rows` rows without a repeated part_id. A run that read no row (sameSheet) into a catalog
   * whose parts nobody wrote meanwhile leaves the file as it is: it still says all there is.
   * Returns a message when the state could not be saved.
   */
  async save(sheet: () => Promise<(SheetIdentity & { rows: number }) | undefined>): Promise<string | undefined> {
    await this.prepare();
    let changes: Awaited<ReturnType<typeof partChangesSince>>;
    try {
      changes = await partChangesSince(await this.client(), this.start);
    } catch (error) {
      if (!feedCannotAnswer(error)) throw error;
      return undefined;
    }
    if (this.allEqual && changes.counts.size === 0) return undefined;
    const parts = new Map<string, string>();
    if (this.allEqual) for (const [id, hash] of this.known) if (!changes.counts.has(id)) parts.set(id, hash);
    for (const [id, hash] of this.equal) if (!changes.counts.has(id)) parts.set(id, hash);
    for (const [id, hash] of this.written) if ((changes.counts.get(id) ?? 0) <= 1) parts.set(id, hash);
    for (const id of this.repeated) parts.delete(id);
    const identity = await sheet();
    const complete = identity !== undefined && this.repeated.size === 0 && parts.size === identity.rows;
    const stored: Stored = { change: changes.latest, ids: [...parts.keys()], hashes: [...parts.values()].join(''), ...(complete ? { sheet: { sha256: identity.sha256, options: identity.options } } : {}) };
    return writeSyncState(this.file, stored);
  }
}
