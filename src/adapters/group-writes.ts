/**
 * The loop both stores' group commits share (GroupCommit, core/ports.ts; sqlite/group-commit.ts,
 * postgres/group-commit.ts): which writes one transaction of a group runs, in order, and whether it
 * may commit them. The store supplies the transaction and how one write runs in it.
 */
import type { GroupedOutcome, GroupedWrite } from '../core/ports.js';

/**
 * GroupCommit.run over a store's `attempt`: one transaction over the writes not settled for good
 * (runGroupWrites inside it), resolving with the number of writes it committed or 'again' after a
 * rollback that settled one more write for good (a given-up one dropped, or one whose failure ended
 * the transaction); attempts until one commits, so this ends. The outcomes of the committed writes.
 */
export async function runGroup<T>(
  writes: readonly GroupedWrite<T>[],
  attempt: (outcomes: (GroupedOutcome<T> | undefined)[], settled: Set<number>) => Promise<number | 'again'>,
): Promise<GroupedOutcome<T>[]> {
  const outcomes: (GroupedOutcome<T> | undefined)[] = writes.map(() => undefined);
  // Writes settled for good whatever happens to a transaction: dropped ones, and one whose failure
  // ended the whole transaction.
  const settled = new Set<number>();
  for (;;) {
    const ran = await attempt(outcomes, settled);
    if (ran !== 'again') return outcomes.slice(0, ran) as GroupedOutcome<T>[];
  }
}

/**
 * Runs, inside the caller's open transaction, the writes not in `settled`, in order, each through
 * `runOne` (the write in a savepoint: its outcome, or 'again' when the whole transaction must roll
 * back and run again, having settled a write for good itself). A write no longer wanted is not run:
 * `dropped`, settled. Once writes have run for `budgetMs`, no further one starts. Resolves with the
 * number of writes the transaction covers, to be committed, or 'again' to be rolled back: also when
 * a write that ran was given up before the commit (the rerun then drops it unrun).
 */
export async function runGroupWrites<T>(
  writes: readonly GroupedWrite<T>[],
  outcomes: (GroupedOutcome<T> | undefined)[],
  settled: Set<number>,
  budgetMs: number,
  runOne: (write: GroupedWrite<T>, index: number) => Promise<GroupedOutcome<T> | 'again'>,
): Promise<number | 'again'> {
  const started = performance.now();
  let covered = writes.length;
  let ran = false;
  for (let i = 0; i < writes.length; i++) {
    if (settled.has(i)) continue;
    const write = writes[i] as GroupedWrite<T>;
    // Past the budget, commit what ran: another thread's write waits for one transaction, not a batch.
    if (ran && performance.now() - started >= budgetMs) {
      covered = i;
      break;
    }
    if (!write.wanted()) {
      outcomes[i] = { kind: 'dropped' };
      settled.add(i);
      continue;
    }
    ran = true;
    const outcome = await runOne(write, i);
    if (outcome === 'again') return 'again';
    outcomes[i] = outcome;
  }
  // A write given up while the group ran must not commit: the group runs again without it.
  const givenUp = writes.some((write, i) => i < covered && !settled.has(i) && outcomes[i]?.kind === 'done' && !write.wanted());
  return givenUp ? 'again' : covered;
}
