import type { BlobStore } from '../ports.js';
/**
 * Serialises blob deletion with uploads in one process (api-decisions.md §4: identical files are
 * stored once, and a blob goes when its last image goes).
 *
 * The race it closes: upload A puts bytes that already exist as blob X (the store finds X and keeps
 * it) while a delete removes the last image using X and unlinks X; A then commits an image pointing
 * at a missing file. Rules:
 * - every put runs between {@link BlobGate.beginPut} and {@link BlobGate.endPut}; endPut pins the
 *   resulting key until the upload's metadata has committed (or was abandoned): {@link BlobGate.unpin};
 * - a blob that may have lost its last reference is only a CANDIDATE ({@link BlobGate.release});
 *   candidates are deleted by {@link BlobGate.drain}, which runs only while no put is in flight
 *   (new puts wait for it to finish), skips pinned keys, and re-checks the metadata for a reference
 *   right before deleting.
 * Candidates left when uploads never pause, or by a crash, are removed by the start-up sweep.
 * Other processes writing the same data directory are not covered (documented in docs/api.md).
 *
 * A blob store shared by several servers (object storage) cannot be guarded by one
 * process's counts: another server may be between its put and its commit. There the gate defers
 * (`deferDeletion`): a blob that lost its last image is left in place, and the servers' periodic
 * orphan sweep removes it once it is unreferenced AND untouched for a grace period longer than any
 * upload (a put that deduplicates onto a stored blob touches it; docs/deploy.md).
 */

export class BlobGate {
  private readonly blobs: BlobStore;
  private readonly isReferenced: (sha256: string) => Promise<boolean>;
  private putsInFlight = 0;
  private readonly pins = new Map<string, number>();
  private readonly candidates = new Set<string>();
  private draining: Promise<void> | undefined;

  private readonly deferDeletion: boolean;

  /**
   * @param isReferenced whether any image's metadata references the blob (a committed read).
   * @param options.deferDeletion never delete here: the store is shared with other servers (see above).
   */
  constructor(blobs: BlobStore, isReferenced: (sha256: string) => Promise<boolean>, options: { deferDeletion?: boolean } = {}) {
    this.blobs = blobs;
    this.isReferenced = isReferenced;
    this.deferDeletion = options.deferDeletion ?? false;
  }

  /** Waits while a drain deletes blobs, then counts a put as in flight. */
  async beginPut(): Promise<void> {
    while (this.draining) await this.draining;
    this.putsInFlight++;
  }

  /** Ends a put; pins its key (when it stored something) until {@link unpin}. */
  endPut(sha256: string | undefined): void {
    if (sha256 !== undefined) this.pins.set(sha256, (this.pins.get(sha256) ?? 0) + 1);
    this.putsInFlight--;
    if (this.putsInFlight === 0 && this.candidates.size > 0) void this.drain();
  }

  /** Releases one pin of each key (the metadata that needed them has committed or was dropped). */
  unpin(keys: Iterable<string>): void {
    for (const key of keys) {
      const n = (this.pins.get(key) ?? 0) - 1;
      if (n > 0) this.pins.set(key, n);
      else this.pins.delete(key);
    }
    if (this.putsInFlight === 0 && this.candidates.size > 0) void this.drain();
  }

  /** Marks blobs that may have lost their last reference; call {@link drain} after. */
  release(keys: Iterable<string>): void {
    if (this.deferDeletion) return;
    for (const key of keys) this.candidates.add(key);
  }

  /** How many candidates wait for deletion (tests, diagnostics). */
  get pending(): number {
    return this.candidates.size;
  }

  /**
   * Deletes every candidate that is neither pinned nor referenced, when no put is in flight;
   * otherwise returns and the last put to end drains. Resolves when this drain (if any) is done.
   */
  async drain(): Promise<void> {
    if (this.draining) return this.draining;
    if (this.putsInFlight > 0 || this.candidates.size === 0) return;
    this.draining = (async () => {
      for (const key of [...this.candidates]) {
        if (this.pins.has(key)) continue;
        this.candidates.delete(key);
        try {
          if (!(await this.isReferenced(key))) await this.blobs.delete(key);
        } catch {
          // Left in place: an unreferenced blob is an orphan the start-up sweep removes.
        }
      }
    })().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }
}
