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
import { beginWrite, type PgClient, type PgDatabase } from './database.js';

/** The savepoint around one write of the group. */
const SAVEPOINT = 'grouped_write';

/** GroupCommit over a catalog's PostgreSQL pool. */
export class PgGroupCommit implements GroupCommit {
  constructor(private readonly db: PgDatabase) {}

  async run<T>(writes: readonly GroupedWrite<T>[], budgetMs = Number.POSITIVE_INFINITY): Promise<GroupedOutcome<T>[]> {
    const outcomes: (GroupedOutcome<T> | undefined)[] = writes.map(() => undefined);
    // Writes dropped unrun stay dropped whatever happens to the transaction.
    const dropped = new Set<number>();
    // Each attempt drops one more given-up write or commits, so this ends.
    for (;;) {
      const ran = await this.db.inWriteTurn(() => this.attempt(writes, outcomes, dropped, budgetMs));
      if (ran !== 'again') return outcomes.slice(0, ran) as GroupedOutcome<T>[];
    }
  }

  /**
   * One transaction over the writes not dropped, until `budgetMs` is spent: the number of writes it
   * covered (committed), or 'again' after a rollback that dropped a write given up while it ran.
   */
  private async attempt<T>(writes: readonly GroupedWrite<T>[], outcomes: (GroupedOutcome<T> | undefined)[], dropped: Set<number>, budgetMs: number): Promise<number | 'again'> {
    const client = await this.db.pool.connect();
    let broken = false;
    try {
      await client.query(beginWrite());
      const started = performance.now();
      let covered = writes.length;
      let ran = false;
      for (let i = 0; i < writes.length; i++) {
        if (dropped.has(i)) continue;
        const write = writes[i] as GroupedWrite<T>;
        // Past the budget, commit what ran: a write of another thread waits for one transaction, not a batch.
        if (ran && performance.now() - started >= budgetMs) {
          covered = i;
          break;
        }
        if (!write.wanted()) {
          outcomes[i] = { kind: 'dropped' };
          dropped.add(i);
          continue;
        }
        ran = true;
        outcomes[i] = await this.inSavepoint(client, write);
      }
      // A write given up while the group ran must not commit: the group runs again without it.
      const givenUp = writes.findIndex((write, i) => i < covered && !dropped.has(i) && outcomes[i]?.kind === 'done' && !write.wanted());
      if (givenUp >= 0) {
        outcomes[givenUp] = { kind: 'dropped' };
        dropped.add(givenUp);
        await client.query('ROLLBACK');
        return 'again';
      }
      await client.query('COMMIT');
      return covered;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true; // the connection is gone: do not return it to the pool
      }
      throw error;
    } finally {
      client.release(broken);
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
