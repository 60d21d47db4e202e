/**
 * The warm-up's V8 interrupt budget (src/http/v8-tiering.ts): this process's budget is found, and
 * the work runs (its value or its error) whatever the budget.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { currentInterruptBudget, withInterruptBudget, WARM_UP_INTERRUPT_BUDGET } from '../../src/http/v8-tiering.js';

describe('V8 interrupt budget', () => {
  it("is this process's, as V8 reports its default", async () => {
    const reported = /default: --interrupt-budget=(\d+)/.exec(execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }));
    expect(reported).not.toBeNull();
    const budget = await currentInterruptBudget();
    expect(budget).toBe(Number(reported?.[1]));
    // The warm-up's budget is lower than V8's own, or the warm-up would change nothing.
    expect(WARM_UP_INTERRUPT_BUDGET).toBeLessThan(budget as number);
  });

  it('answers what the work answers, or its error, whether the budget is known or not', async () => {
    const budget = await currentInterruptBudget();
    await expect(withInterruptBudget(WARM_UP_INTERRUPT_BUDGET, budget, async () => 42)).resolves.toBe(42);
    await expect(withInterruptBudget(WARM_UP_INTERRUPT_BUDGET, budget, async () => Promise.reject(new Error('failed inside')))).rejects.toThrow('failed inside');
    // Unknown budget: the work still runs, the budget is left alone.
    await expect(withInterruptBudget(WARM_UP_INTERRUPT_BUDGET, undefined, async () => 'ran')).resolves.toBe('ran');
  });
});
