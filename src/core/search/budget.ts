/**
 * A search's work budget (docs/search.md, "Cheap searches on the main thread").
 *
 * `catalog serve` hands text searches to reader threads so that a costly one never stalls the
 * event loop; but for a rare word the hop to a thread and back costs more than the search itself
 * (~0.3 ms against ~0.1 ms at 1,000,000 parts). So the main thread first runs a search with a
 * budget: the index counts the postings the search would read BEFORE it reads them, and gives up
 * with {@link SearchBudgetExceeded} as soon as the count passes the budget. Nothing is written
 * until ranking is done, so a search that gives up leaves no trace; the caller then runs it on a
 * reader thread without a budget.
 */
export type { SearchBudget } from '../model.js';

/** What one stored part read (per-organization checks, phrases) counts against a budget. */
export const PART_READ_POSTINGS = 64;
/** What one vocabulary word read for typo neighbours counts against a budget. */
export const VOCABULARY_WORD_POSTINGS = 4;

/**
 * Thrown by a budgeted search when it would exceed its budget. Not a CatalogError: it never
 * reaches a client; the caller catches it and runs the search where cost does not matter.
 */
export class SearchBudgetExceeded extends Error {
  constructor(readonly maxPostings: number) {
    super(`the search would read more than ${maxPostings} postings`);
    this.name = 'SearchBudgetExceeded';
  }
}

/** Counts work against a budget; `charge` throws {@link SearchBudgetExceeded} once the total passes it. */
export class BudgetMeter {
  private spent = 0;

  constructor(readonly maxPostings: number) {}

  /** What is left before the budget is exceeded (never negative). */
  get left(): number {
    return Math.max(0, this.maxPostings - this.spent);
  }

  /** Adds `postings` of work; throws SearchBudgetExceeded when the total is past the budget. */
  charge(postings: number): void {
    this.spent += postings;
    if (this.spent > this.maxPostings) throw new SearchBudgetExceeded(this.maxPostings);
  }
}
