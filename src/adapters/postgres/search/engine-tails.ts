/**
 * The PostgreSQL engine writer's memory of where posting lists end (engine-store.ts): by term id,
 * the first doc of the term's last block, for the terms this process wrote last. A write whose
 * changes to a term all fall in that block (an import's new parts, always after every stored one)
 * reads the block by its key instead of looking up which blocks its docs fall in (per term a
 * search of its blocks, by far the costliest statement of an import).
 *
 * It describes the index as this process's last engine write left it, so it holds only while
 * that write committed and no other write (another server, a CLI) followed: the writer checks that
 * the `engine_stats` row is still the version its last write made (the row's `xmin`, which a
 * rolled-back write or any other writer changes) and forgets everything otherwise.
 */

/** Terms remembered at most (the least recently written first out): ~8 MB. */
export const TAIL_TERMS = 200_000;

/** Where the lists of recently written terms end (see the module comment). */
export class PgEngineTails {
  private readonly lastBlock = new Map<number, number>();
  /** The `engine_stats` row version (its xmin) the memory describes, or undefined: nothing known. */
  private validFor: string | undefined;

  /**
   * Called with the `engine_stats` row's xmin as a write found it: the memory is kept only if it
   * is the row version this process's last write made; either way it stays unusable until
   * {@link wrote}.
   */
  begin(statsVersion: string): boolean {
    const valid = this.validFor !== undefined && this.validFor === statsVersion;
    if (!valid) this.lastBlock.clear();
    this.validFor = undefined;
    return valid;
  }

  /** The write finished its statements, leaving the `engine_stats` row version `statsVersion`. */
  wrote(statsVersion: string): void {
    this.validFor = statsVersion;
  }

  /** First doc of term `id`'s last block, or undefined when not known. */
  last(id: number): number | undefined {
    return this.lastBlock.get(id);
  }

  /** Term `id`'s list now ends with a block starting at `firstDoc` (undefined: not known). */
  set(id: number, firstDoc: number | undefined): void {
    this.lastBlock.delete(id);
    if (firstDoc === undefined) return;
    this.lastBlock.set(id, firstDoc);
    if (this.lastBlock.size > TAIL_TERMS) {
      const oldest = this.lastBlock.keys().next();
      if (!oldest.done) this.lastBlock.delete(oldest.value);
    }
  }

  /** Forgets every term (a rebuild empties the index). */
  clear(): void {
    this.lastBlock.clear();
    this.validFor = undefined;
  }
}
