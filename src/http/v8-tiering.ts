/**
 * V8's interrupt budget, lowered for a while (issue 12: the warm-up of `catalog serve`,
 * src/http/warm-up.ts).
 *
 * V8 counts, per function, the bytecode it runs; each time a function has run `--interrupt-budget`
 * bytes (66 KB in Node 20's V8) it gets a tick, and after a few ticks it is optimized. A function
 * of the request path runs once or twice a request, so it took ~1,000-3,000 requests to be
 * optimized. With the budget at 1/8 during the warm-up, its ticks come eight times as often, and
 * more of the request path is optimized by the end of the warm-up's 600 requests (rare-word p50
 * 5-7 % lower in two sets of four alternated pairs: docs/search.md, "third look"). Only during
 * the warm-up: a whole server life with a low budget optimized rarely used code too, and those
 * compile jobs competed with the first real requests.
 */
import { execFile } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';

/** The budget the warm-up runs with, in bytes of bytecode: 1/8 of Node 20's default (67,584). */
export const WARM_UP_INTERRUPT_BUDGET = 8448;

/** `--interrupt-budget=N` (or `_`) in this process's flags, if given. */
function budgetInFlags(flags: readonly string[]): number | undefined {
  for (const flag of flags) {
    const match = /^--interrupt[-_]budget=(\d+)$/.exec(flag);
    if (match) return Number(match[1]);
  }
  return undefined;
}

/**
 * This process's interrupt budget in bytes: the one its command line sets, else V8's default as
 * `node --v8-options` reports it (a child process, ~30 ms). Undefined when neither says (the
 * child failed): the budget is then left alone.
 */
export async function currentInterruptBudget(): Promise<number | undefined> {
  const given = budgetInFlags(process.execArgv);
  if (given !== undefined) return given;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--v8-options'], { maxBuffer: 4 << 20, timeout: 5000 }, (error, stdout) => {
      const match = error ? null : /default: --interrupt-budget=(\d+)/.exec(stdout);
      resolve(match ? Number(match[1]) : undefined);
    });
  });
}

/**
 * Runs `work` with V8's interrupt budget at `budget` bytes and sets it back to `current` after
 * (whatever `work` does). With `current` undefined (unknown), runs `work` with the budget as it is.
 */
export async function withInterruptBudget<T>(budget: number, current: number | undefined, work: () => Promise<T>): Promise<T> {
  if (current === undefined || budget >= current) return work();
  setFlagsFromString(`--interrupt-budget=${budget}`);
  try {
    return await work();
  } finally {
    setFlagsFromString(`--interrupt-budget=${current}`);
  }
}
