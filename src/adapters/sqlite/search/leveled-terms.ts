/**
 * A growing set of terms in a SQLite table, kept in levels so that adding a term writes a few pages
 * whatever the size of the set (docs/search.md, "Index"; docs/decisions/0021-leveled-term-dictionary.md).
 *
 * A term table keyed by the term alone takes every new term at a random place: once the table is
 * larger than a transaction's new terms, each new term (a part number: one per part) dirties a page
 * of its own, and SQLite's write-ahead log writes each dirtied page whole at every commit. Here the
 * table is keyed by (level, term): new terms go to level 0, small enough that its pages are few and
 * shared by every transaction; when level k holds more than `firstLevel × fanout^k` terms they all
 * move, in term order, into level k + 1 (a log-structured merge). A term is in exactly one level;
 * moving a level rewrites the next one about once, so each term is rewritten about `fanout` times
 * per level it passes and the levels number log_fanout(terms / firstLevel).
 *
 * The table: `(level INTEGER, term TEXT, <value column>?)`, PRIMARY KEY (level, term), WITHOUT ROWID
 * (src/adapters/sqlite/migrations.ts). Every method must run on the connection's current
 * transaction (reads see one state of the levels).
 *
 * A lookup needs the number of levels present. A writer looking up many terms in one write
 * transaction fixes it ({@link fixLevels}): read once, kept current by its own additions and
 * moves (no other connection writes meanwhile), forgotten when the transaction ends
 * ({@link unfixLevels}). Otherwise every lookup reads it (another connection may have moved a level).
 */
import type { SqliteDatabase } from '../database.js';

/** Terms level 0 holds before it moves into level 1. */
export const FIRST_LEVEL_TERMS = 16_384;
/** Each level holds this many times the one before it. */
export const LEVEL_FANOUT = 8;
/** Levels a lookup may need (FIRST_LEVEL_TERMS × LEVEL_FANOUT^12 is far beyond any catalog). */
const MAX_LEVELS = 13;

/** A UTF-16 surrogate: a term holding one is looked up alone (getMany), never through JSON. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** Options of {@link LeveledTerms}: level sizes (smaller in tests, to move levels with few terms). */
export interface LeveledTermsOptions {
  /** The table: (level, term[, value]) keyed by (level, term). */
  table: string;
  /** The integer column stored with each term, if any (engine_term_levels: `id`). */
  valueColumn?: string;
  firstLevel?: number;
  fanout?: number;
}

/** The set's lookups, additions, ranges and level moves over one table. */
export class LeveledTerms {
  private readonly firstLevel: number;
  private readonly fanout: number;
  private readonly stmt;
  /** The value's column, or the constant 0 for a set without values. */
  private readonly value: string;
  /** The level count fixed for the running write transaction (fixLevels), or undefined: read per lookup. */
  private fixed: number | undefined;
  /** Level 0's size as this connection last knew it, valid while PRAGMA data_version stays `dataVersion` (settle). */
  private firstLevelSize: { terms: number; dataVersion: number } | undefined;
  /** Lookup statements by number of levels present (IN (0, …, n − 1): one index seek per level). */
  private readonly lookups = new Map<number, { get: (term: string) => number | undefined; range: (lo: string, hi: string) => { term: string; value: number }[]; any: (lo: string, hi: string) => boolean; countUpTo: (lo: string, hi: string, max: number) => number }>();

  /** Throws when the table is missing (a migration did not run). */
  constructor(private readonly db: SqliteDatabase, private readonly options: LeveledTermsOptions) {
    this.firstLevel = Math.max(1, options.firstLevel ?? FIRST_LEVEL_TERMS);
    this.fanout = Math.max(2, options.fanout ?? LEVEL_FANOUT);
    const t = options.table;
    const column = options.valueColumn;
    const columns = column ? `term, ${column}` : 'term';
    this.value = column ?? '0';
    this.stmt = {
      levels: db.prepare<[], number | null>(`SELECT max(level) FROM ${t}`).pluck(),
      // Many terms of one level in one statement: the seeks run inside SQLite, in the terms' order
      // (CROSS JOIN: the terms drive; joined the other way, SQLite read the whole level).
      many: db.prepare<[string, number], { term: string; value: number }>(`SELECT t.term AS term, ${column ? `t.${column}` : '0'} AS value FROM json_each(?) AS j CROSS JOIN ${t} AS t ON t.level = ? AND t.term = j.value`),
      insert: column ? db.prepare<[string, number]>(`INSERT INTO ${t} (level, term, ${column}) VALUES (0, ?, ?)`) : undefined,
      insertTerm: db.prepare<[string]>(`INSERT INTO ${t} (level, term) VALUES (0, ?)`),
      count: db.prepare<[number], number>(`SELECT count(*) FROM ${t} WHERE level = ?`).pluck(),
      // Changes when another connection commits: level 0's kept size (settle) is then counted again.
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      holds: db.prepare<[number], number>(`SELECT 1 FROM ${t} WHERE level = ? LIMIT 1`).pluck(),
      // The level's terms appended to the next in term order (the index's order): each page of the
      // next level is written about once, however the terms spread over it. OR FAIL: a failing
      // move fails the whole write transaction anyway, so SQLite keeps no statement journal of it
      // (a copy, in a temporary file, of every page of the next level it changes).
      moveDown: db.prepare<[number]>(`INSERT OR FAIL INTO ${t} (level, ${columns}) SELECT level + 1, ${columns} FROM ${t} WHERE level = ? ORDER BY term`),
      deleteLevel: db.prepare<[number]>(`DELETE FROM ${t} WHERE level = ?`),
      remove: db.prepare<[number, string]>(`DELETE FROM ${t} WHERE level = ? AND term = ?`),
      clear: db.prepare(`DELETE FROM ${t}`),
    };
  }

  /** Number of levels present now (the highest level + 1; 0 when the set is empty), read from the table. */
  private storedLevelCount(): number {
    return Math.min(MAX_LEVELS, (this.stmt.levels.get() ?? -1) + 1);
  }

  /** Number of levels present now: the fixed count inside a write transaction that fixed it, else read. */
  private levelCount(): number {
    if (this.fixed === undefined) return this.storedLevelCount();
    // A fix outlives its transaction only when the caller missed unfixLevels: never trusted then.
    if (!this.db.inTransaction) {
      this.fixed = undefined;
      return this.storedLevelCount();
    }
    return this.fixed;
  }

  /**
   * Reads the level count once for the lookups that follow, until {@link unfixLevels}. Only inside
   * a write transaction (no other connection can move a level until it ends); the caller must call
   * unfixLevels when it commits or rolls back. Calling it again while fixed does nothing.
   */
  fixLevels(): void {
    if (this.fixed === undefined && this.db.inTransaction) this.fixed = this.storedLevelCount();
  }

  /** Lookups read the level count again (the write transaction that fixed it is ending). */
  unfixLevels(): void {
    this.fixed = undefined;
  }

  private lookup(levels: number) {
    let l = this.lookups.get(levels);
    if (!l) {
      const t = this.options.table;
      const inLevels = `level IN (${Array.from({ length: Math.max(1, levels) }, (_, i) => i).join(', ')})`;
      const get = this.db.prepare<[string], number>(`SELECT ${this.value} FROM ${t} WHERE ${inLevels} AND term = ?`).pluck();
      const range = this.db.prepare<[string, string], { term: string; value: number }>(`SELECT term, ${this.value} AS value FROM ${t} WHERE ${inLevels} AND term >= ? AND term < ? ORDER BY term`);
      const any = this.db.prepare<[string, string], number>(`SELECT 1 FROM ${t} WHERE ${inLevels} AND term >= ? AND term < ? LIMIT 1`).pluck();
      const countUpTo = this.db.prepare<[string, string, number], number>(`SELECT count(*) FROM (SELECT 1 FROM ${t} WHERE ${inLevels} AND term >= ? AND term < ? LIMIT +?)`).pluck();
      l = { get: (term) => get.get(term), range: (lo, hi) => range.all(lo, hi), any: (lo, hi) => any.get(lo, hi) !== undefined, countUpTo: (lo, hi, max) => countUpTo.get(lo, hi, max) ?? 0 };
      this.lookups.set(levels, l);
    }
    return l;
  }

  /**
   * Number of levels present now, read from the table: a reader that knows no write happened since
   * may pass it to {@link get}, {@link range} and {@link any} instead of each reading it again.
   */
  levelsPresent(): number {
    return this.storedLevelCount();
  }

  /**
   * The value stored with `term` (0 for a set without values), or undefined when it is not in the
   * set. `levels`: the level count (levelsPresent), else read now.
   */
  get(term: string, levels = this.levelCount()): number | undefined {
    return this.lookup(levels).get(term);
  }

  /**
   * The values of those of `terms` in the set (0 for a set without values), by term: {@link get} of
   * each, one statement per level instead of one per term (a write transaction's thousands of new
   * terms, most of them absent). A term with a surrogate pair is looked up alone.
   */
  getMany(terms: readonly string[]): Map<string, number> {
    const found = new Map<string, number>();
    const plain: string[] = [];
    for (const term of terms) {
      if (!SURROGATE.test(term)) plain.push(term);
      else {
        const value = this.get(term);
        if (value !== undefined) found.set(term, value);
      }
    }
    if (plain.length === 0) return found;
    const json = JSON.stringify(plain);
    for (let level = 0, levels = this.levelCount(); level < levels; level++) {
      // A level that moved into the next is empty until it fills again: its seeks are skipped.
      if (this.stmt.holds.get(level) === undefined) continue;
      for (const row of this.stmt.many.all(json, level)) found.set(row.term, row.value);
    }
    return found;
  }

  /** Terms in [lo, hi) with their values, ascending (binary order). `levels`: as for {@link get}. */
  range(lo: string, hi: string, levels = this.levelCount()): { term: string; value: number }[] {
    return this.lookup(levels).range(lo, hi);
  }

  /** Number of terms in [lo, hi), counted up to `max` (so at most `max` index entries are stepped over). `levels`: as for {@link get}. */
  countUpTo(lo: string, hi: string, max: number, levels = this.levelCount()): number {
    return this.lookup(levels).countUpTo(lo, hi, max);
  }

  /** Whether any term lies in [lo, hi). `levels`: as for {@link get}. */
  any(lo: string, hi: string, levels = this.levelCount()): boolean {
    return this.lookup(levels).any(lo, hi);
  }

  /** Adds `term` (not in the set: the caller looked it up) with `value` to level 0. */
  add(term: string, value = 0): void {
    if (this.stmt.insert) this.stmt.insert.run(term, value);
    else this.stmt.insertTerm.run(term);
    if (this.fixed === 0) this.fixed = 1;
    if (this.firstLevelSize) this.firstLevelSize.terms++;
  }

  /**
   * Takes `term` out of the set (a term no part holds any more); returns whether it was there.
   * Levels only shrink, so none moves.
   */
  remove(term: string): boolean {
    // A term is in one level: a seek per level until it is found, the largest (the deepest) first.
    for (let level = this.levelCount() - 1; level >= 0; level--) {
      if (this.stmt.remove.run(level, term).changes === 0) continue;
      if (level === 0 && this.firstLevelSize) this.firstLevelSize.terms--;
      return true;
    }
    return false;
  }

  /**
   * Moves every level holding more than its share into the next, from level 0 down, so a level
   * that fills by the move moves too. Called once per write transaction, after its additions.
   *
   * Level 0's size is counted once and then kept by this connection's additions while no other
   * connection commits (PRAGMA data_version): counting it took a few milliseconds, at every
   * transaction of a server's small writes. A rollback makes it counted again ({@link rolledBack}).
   */
  settle(): void {
    const dataVersion = this.stmt.dataVersion.get()!;
    const kept = this.firstLevelSize?.dataVersion === dataVersion ? this.firstLevelSize.terms : undefined;
    const firstSize = kept ?? this.stmt.count.get(0)!;
    this.firstLevelSize = { terms: firstSize, dataVersion };
    if (firstSize <= this.firstLevel) return;
    this.firstLevelSize.terms = 0;
    for (let level = 0, cap = this.firstLevel; level < MAX_LEVELS - 1; level++, cap *= this.fanout) {
      if (level > 0 && this.stmt.count.get(level)! <= cap) return;
      this.stmt.moveDown.run(level);
      this.stmt.deleteLevel.run(level);
      if (this.fixed !== undefined) this.fixed = Math.max(this.fixed, Math.min(MAX_LEVELS, level + 2));
    }
  }

  /** The running transaction rolled back: level 0's kept size (settle) no longer holds. */
  rolledBack(): void {
    this.firstLevelSize = undefined;
  }

  /** Empties the set. */
  clear(): void {
    this.stmt.clear.run();
    if (this.fixed !== undefined) this.fixed = 0;
    this.firstLevelSize = undefined;
  }
}
