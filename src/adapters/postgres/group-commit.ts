/**
 * Group commit on PostgreSQL (GroupCommit, core/ports.ts): several callers' writes in one
 * transaction holding the catalog write lock, each in a savepoint of its own, committed once.
 *
 * Why: under load `catalog serve`'s writer thread runs the queued writes one after the other, and
 * each paid its own BEGIN, lock, COMMIT and WAL flush, with the next write queued behind them. The
 * writes that queued meanwhile now share one (docs/decisions, group commit on PostgreSQL).
 *
 * The stores' own transactions join the group's (PgDatabase.joinedTo): every statement of a write
 * runs on the group's connection and sees the writes before it. A savepoint rolls back every
 * statement of a failed write, index postings included (the PostgreSQL index keeps no state of a
 * write outside its transaction), so the others go on.
 */
import type { GroupCommit, GroupedOutcome, GroupedWrite } from '../../core/ports.js';
import { runGroup, runGroupWrites } from '../group-writes.js';
import type { PgClient, PgDatabase } from './database.js';

/** The savepoint around one write of the group. */
const SAVEPOINT = 'grouped_write';

/** Thrown inside a group's transaction to roll it back and run the group again. */
const RUN_AGAIN = Symbol('run the group again');

/** GroupCommit over a catalog's PostgreSQL pool. */
export class PgGroupCommit implements GroupCommit {
  constructor(private readonly db: PgDatabase) {}

  run<T>(writes: readonly GroupedWrite<T>[], budgetMs = Number.POSITIVE_INFINITY): Promise<GroupedOutcome<T>[]> {
    return runGroup(writes, (outcomes, settled) => this.attempt(writes, outcomes, settled, budgetMs));
  }

  /**
   * One write transaction (PgDatabase.write: BEGIN, the catalog write lock, in this process's turn)
   * over the writes not settled, until `budgetMs` is spent: the number of writes it committed, or
   * 'again' after a rollback because a write was given up while it ran.
   */
  private async attempt<T>(writes: readonly GroupedWrite<T>[], outcomes: (GroupedOutcome<T> | undefined)[], settled: Set<number>, budgetMs: number): Promise<number | 'again'> {
    try {
      return await this.db.write(async (client) => {
        const covered = await runGroupWrites(writes, outcomes, settled, budgetMs, (write) => this.inSavepoint(client, write));
        if (covered === 'again') throw RUN_AGAIN;
        return covered;
      });
    } catch (error) {
      if (error === RUN_AGAIN) return 'again';
      throw error;
    }
  }

  /** Runs one write in a savepoint of the group's transaction; rolls back to it when the write fails. */
  private async inSavepoint<T>(client: PgClient, write: GroupedWrite<T>): Promise<GroupedOutcome<T>> {
    await client.query(`SAVEPOINT ${SAVEPOINT}`);
    try {
      const value = await this.db.joinedTo(client, write.run);
      await client.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
      return { kind: 'done', value };
    } catch (error) {
      // Rejects (the whole group fails) when the connection is gone: nothing of the group is stored.
      await client.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}; RELEASE SAVEPOINT ${SAVEPOINT}`);
      return { kind: 'failed', error };
    }
  }
}
