/**
 * The work limit of SqliteSearchIndex.searchTextWithin: the index counts the postings a search
 * would read BEFORE it reads them, and gives up as soon as the count passes the limit. Nothing is
 * written until ranking is done, so a search that gives up leaves no trace (not even in the result
 * cache). Other reads count in posting-equivalents, by what they cost against a posting decoded.
 */

/** What one stored part read (per-organization checks, phrases) counts against a limit. */
export const PART_READ_POSTINGS = 64;
/** What one vocabulary word read for typo neighbours counts against a limit. */
export const VOCABULARY_WORD_POSTINGS = 4;

/** Thrown inside the index's read transaction when a search would pass its limit; caught by searchTextWithin. */
export class ReadLimitExceeded extends Error {
  constructor(readonly maxPostings: number) {
    super(`the search would read more than ${maxPostings} postings`);
    this.name = 'ReadLimitExceeded';
  }
}

/** Counts work against a limit; `charge` throws {@link ReadLimitExceeded} once the total passes it. */
export class ReadMeter {
  private spent = 0;
  /** Term ids whose lists this search was charged for. */
  private readonly terms = new Set<number>();

  constructor(readonly maxPostings: number) {}

  /** What is left before the limit is passed (never negative). */
  get left(): number {
    return Math.max(0, this.maxPostings - this.spent);
  }

  /**
   * Whether the list of term `id` was charged already in this search; marks it charged. A list
   * read again is in memory: it costs nothing new.
   */
  charged(id: number): boolean {
    if (this.terms.has(id)) return true;
    this.terms.add(id);
    return false;
  }

  /** Adds `postings` of work; throws ReadLimitExceeded when the total is past the limit. */
  charge(postings: number): void {
    this.spent += postings;
    if (this.spent > this.maxPostings) throw new ReadLimitExceeded(this.maxPostings);
  }
}
