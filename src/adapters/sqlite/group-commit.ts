/**
 * Group commit on SQLite (GroupCommit, core/ports.ts): several callers' writes in one immediate
 * transaction on the catalog store's connection, each in a savepoint of its own, committed once.
 *
 * Why: under load `catalog serve`'s writer thread is saturated and a queued write waits for every
 * write ahead of it; of each write's time on the thread the commit (its page writes) is the largest
 * share. Committed together, the writes that queued pay it once (docs/decisions, group commit).
 *
 * The store methods keep their own transactions: inside this one, better-sqlite3 runs each as a
 * savepoint, so every write is still decided against what the writes before it stored. The
 * search index gathers the changes of the whole group and writes them once, before the commit
 * (SqliteCatalogStore.deferListeners): a frequent word's posting block is rewritten once, not
 * once per write. So a write that fails after it reached the catalog store cannot be rolled back
 * alone: the group then rolls back and runs again without it.
 */
import type { GroupCommit, GroupedOutcome, GroupedWrite } from '../../core/ports.js';
import { runGroup, runGroupWrites } from '../group-writes.js';
import { asStorageError } from '../storage-full.js';
import type { SqliteCatalogStore } from './catalog-store.js';

/** The savepoint around one write of the group. */
const SAVEPOINT = 'grouped_write';

/** GroupCommit over the catalog store's connection (catalog.db). */
export class SqliteGroupCommit implements GroupCommit {
  constructor(private readonly store: SqliteCatalogStore) {}

  run<T>(writes: readonly GroupedWrite<T>[], budgetMs = Number.POSITIVE_INFINITY): Promise<GroupedOutcome<T>[]> {
    return runGroup(writes, (outcomes, settled) => this.attempt(writes, outcomes, settled, budgetMs));
  }

  /**
   * One transaction over the writes not settled for good, until `budgetMs` is spent. The number of
   * writes it covered (committed), or 'again' after a rollback that settled one more write for good
   * (a given-up one dropped, or one whose failure ended the transaction).
   */
  private async attempt<T>(writes: readonly GroupedWrite<T>[], outcomes: (GroupedOutcome<T> | undefined)[], settled: Set<number>, budgetMs: number): Promise<number | 'again'> {
    const db = this.store.db;
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw asStorageError(error, 'the catalog database');
    }
    // The search index writes what the whole group changed once, before the commit.
    this.store.deferListeners(true);
    try {
      const covered = await runGroupWrites(writes, outcomes, settled, budgetMs, async (write, i) => {
        const writeCalls = this.store.writeCalls;
        db.exec(`SAVEPOINT ${SAVEPOINT}`);
        try {
          const value = await write.run();
          db.exec(`RELEASE ${SAVEPOINT}`);
          return { kind: 'done', value };
        } catch (error) {
          if (!db.inTransaction || this.store.writeCalls !== writeCalls) {
            // The error ended the whole transaction (a full disk, an I/O error), or came after the
            // write reached the catalog store, whose search-index changes gathered for the whole
            // group cannot be taken back one write at a time: the others run again without it.
            outcomes[i] = { kind: 'failed', error };
            settled.add(i);
            return 'again';
          }
          // Nothing of it reached the catalog store (a bad body, a relation to an unknown part).
          db.exec(`ROLLBACK TO ${SAVEPOINT}`);
          db.exec(`RELEASE ${SAVEPOINT}`);
          return { kind: 'failed', error };
        }
      });
      if (covered === 'again') {
        this.rollback();
        return 'again';
      }
      this.store.flushListeners();
      db.exec('COMMIT');
      this.store.listenersCommitted();
      return covered;
    } catch (error) {
      this.rollback();
      throw asStorageError(error, 'the catalog database');
    } finally {
      this.store.deferListeners(false);
    }
  }

  /** Rolls the group's transaction back (if SQLite has not already) and forgets what it wrote. */
  private rollback(): void {
    if (this.store.db.inTransaction) this.store.db.exec('ROLLBACK');
    this.store.forgetUncommitted();
  }
}
