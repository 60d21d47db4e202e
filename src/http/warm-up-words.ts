/**
 * The words `catalog serve`'s warm-up searches (warm-up.ts): each word once, in the order found,
 * so that each search is a word's first, as a client's first search of a word is (its postings
 * and its hits' cards read, not the result cache). The first words come from the catalog's first
 * parts, the rest from the names in the answers: the first 1,000 parts alone held 86 distinct
 * words at 1,000,000 parts, and a warm-up that cycled them met the result cache after 86 searches
 * (issue 12).
 */

/** Words kept to be searched: more than a warm-up asks for. */
const MAX_QUEUED_WORDS = 20_000;

/**
 * A queue of distinct words (letters and digits, ≥ 3 of them, lowercased) taken from names. Once
 * every word was asked, they are asked again from the first (their answers then come from the
 * result cache).
 */
export class WordQueue {
  private readonly words: string[] = [];
  private readonly known = new Set<string>();
  /** Index of the next word to ask. */
  private cursor = 0;
  /** Words asked at least once: the first `reached` of `words`. */
  private reached = 0;

  /** Queues the words of `name` not seen before (at most {@link MAX_QUEUED_WORDS} in all). */
  add(name: string): void {
    for (const word of name.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      if (word.length < 3 || this.known.has(word) || this.words.length >= MAX_QUEUED_WORDS) continue;
      this.known.add(word);
      this.words.push(word);
    }
  }

  /** The next word to search; undefined when there is none. */
  next(): string | undefined {
    if (this.words.length === 0) return undefined;
    if (this.cursor >= this.words.length) this.cursor = 0;
    const word = this.words[this.cursor++];
    this.reached = Math.max(this.reached, this.cursor);
    return word;
  }

  /**
   * The next of the words asked so far, from the first again after the last (the idle phase of
   * the warm-up: words whose postings and cards were read already, so the searches fill no cache
   * a client's searches use); undefined when none was asked.
   */
  again(): string | undefined {
    if (this.reached === 0) return undefined;
    if (this.againCursor >= this.reached) this.againCursor = 0;
    return this.words[this.againCursor++];
  }

  /** Index of the next word {@link again} asks. */
  private againCursor = 0;

  /** Never asks `word` again (its search was not answered 200). */
  drop(word: string): void {
    const at = this.words.indexOf(word);
    if (at < 0) return;
    this.words.splice(at, 1);
    if (at < this.cursor) this.cursor--;
    if (at < this.reached) this.reached--;
    if (at < this.againCursor) this.againCursor--;
  }

  /** Distinct words asked and not dropped so far. */
  get asked(): number {
    return this.reached;
  }
}
