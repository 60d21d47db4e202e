import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../database.js';
import { LeveledTerms } from './leveled-terms.js';

describe('LeveledTerms', () => {
  it('finds every term and range across levels, each level within its share, whatever order terms arrive in', () => {
    const db = openDatabase(':memory:');
    const terms = new LeveledTerms(db, { table: 'engine_term_levels', valueColumn: 'id', firstLevel: 4, fanout: 2 });
    // 100 terms in scattered order (as part numbers arrive), 5 per transaction.
    const words = Array.from({ length: 100 }, (_, i) => `w${String((i * 37) % 100).padStart(3, '0')}`);
    for (let from = 0; from < words.length; from += 5) {
      db.transaction(() => {
        for (const [k, w] of words.slice(from, from + 5).entries()) {
          expect(terms.get(w)).toBeUndefined();
          terms.add(w, from + k + 1);
        }
        terms.settle();
      })();
    }
    for (const [i, w] of words.entries()) expect(terms.get(w)).toBe(i + 1);
    expect(terms.get('w100')).toBeUndefined();
    expect(terms.range('w01', 'w02').map((t) => t.term)).toEqual(Array.from({ length: 10 }, (_, i) => `w01${i}`));
    expect(terms.any('w05', 'w06')).toBe(true);
    expect(terms.any('x', 'y')).toBe(false);
    const levels = db.prepare('SELECT level, count(*) AS n FROM engine_term_levels GROUP BY level ORDER BY level').all() as { level: number; n: number }[];
    expect(levels.reduce((n, l) => n + l.n, 0)).toBe(100);
    expect(Math.max(...levels.map((l) => l.level))).toBeGreaterThanOrEqual(3);
    for (const { level, n } of levels) expect(n).toBeLessThanOrEqual(4 * 2 ** level);
    terms.clear();
    expect(terms.get(words[0]!)).toBeUndefined();
  });

  it('counts level 0 once while only its own connection writes, again after another connection commits, and keeps every level within its share', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leveled-terms-'));
    try {
      const counted: string[] = [];
      const file = join(dir, 'terms.db');
      openDatabase(file).close();
      /** A connection to the file whose level counts (SELECT count(*)) are recorded in `counted`. */
      const connection = (name: string): SqliteDatabase =>
        new Database(file, { verbose: (sql) => /count\(\*\)/.test(String(sql)) && counted.push(`${name} ${/level = (\d+)/.exec(String(sql))?.[1] ?? '?'}`) });
      const a = connection('a');
      const b = connection('b');
      const options = { table: 'engine_term_levels', valueColumn: 'id', firstLevel: 8, fanout: 2 };
      const termsA = new LeveledTerms(a, options);
      const termsB = new LeveledTerms(b, options);
      let id = 0;
      const write = (db: SqliteDatabase, terms: LeveledTerms, n: number) => db.transaction(() => {
        for (let i = 0; i < n; i++) terms.add(`t${String(++id).padStart(4, '0')}`, id);
        terms.settle();
      })();
      // Ten transactions of one term each: level 0 counted at the first only.
      for (let i = 0; i < 10; i++) write(a, termsA, 1);
      expect(counted.filter((c) => c === 'a 0')).toHaveLength(1);
      // Another connection commits: the next settle counts again.
      write(b, termsB, 3);
      counted.length = 0;
      write(a, termsA, 1);
      expect(counted).toContain('a 0');
      // A rolled-back transaction (its additions and any move undone): counted again after it.
      expect(() => a.transaction(() => {
        for (let i = 0; i < 20; i++) termsA.add(`r${i}`, 10_000 + i);
        termsA.settle();
        throw new Error('roll back');
      })()).toThrow('roll back');
      termsA.rolledBack();
      counted.length = 0;
      write(a, termsA, 1);
      expect(counted).toContain('a 0');
      for (let i = 0; i < 40; i++) write(i % 3 === 0 ? b : a, i % 3 === 0 ? termsB : termsA, 1 + (i % 4));
      const levels = a.prepare('SELECT level, count(*) AS n FROM engine_term_levels GROUP BY level').all() as { level: number; n: number }[];
      expect(levels.reduce((n, l) => n + l.n, 0)).toBe(id);
      for (const { level, n } of levels) expect(n, `level ${level}`).toBeLessThanOrEqual(8 * 2 ** level);
      for (let t = 1; t <= id; t++) expect(termsB.get(`t${String(t).padStart(4, '0')}`)).toBe(t);
      a.close();
      b.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** Bytes this process has written through write calls so far (Linux's /proc/self/io `wchar`). */
  const bytesWritten = (): number => Number(/wchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);

  it.skipIf(!existsSync('/proc/self/io'))('moves a level without writing a copy of the next level to a temporary file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leveled-terms-'));
    try {
      const db = openDatabase(join(dir, 'terms.db'));
      const terms = new LeveledTerms(db, { table: 'engine_term_levels', valueColumn: 'id', firstLevel: 1000, fanout: 100 });
      let id = 0;
      const add = (n: number) => {
        for (let i = 0; i < n; i++) {
          id++;
          terms.add(`part-number-${String((id * 7919) % 100_000).padStart(6, '0')}`, id);
        }
      };
      // Level 1: 20,000 terms (~200 pages, fewer than the page cache holds).
      for (let tx = 0; tx < 20; tx++) {
        db.transaction(() => {
          add(1001);
          terms.settle();
        })();
      }
      const levels = () => db.prepare('SELECT level, count(*) AS n FROM engine_term_levels GROUP BY level').all();
      expect(levels()).toEqual([{ level: 1, n: 20_020 }]);
      // A transaction that moves level 0 into level 1: nothing reaches a file before its commit
      // (a statement journal would copy level 1's ~200 changed pages, ~600 KB; the bound leaves
      // room for the test runner's own messages, which this process's threads may write meanwhile).
      db.transaction(() => {
        add(1001);
        const before = bytesWritten();
        terms.settle();
        expect(bytesWritten() - before).toBeLessThan(100_000);
      })();
      expect(levels()).toEqual([{ level: 1, n: 21_021 }]);
      expect(terms.get('part-number-007919')).toBe(1);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('removes a term from whichever level holds it, and level 0 fills up to its share again before it moves', () => {
    const db = openDatabase(':memory:');
    const terms = new LeveledTerms(db, { table: 'engine_term_levels', valueColumn: 'id', firstLevel: 4, fanout: 2 });
    const level = (term: string) => db.prepare('SELECT level FROM engine_term_levels WHERE term = ?').pluck().get(term) as number | undefined;
    const write = (work: () => void) => db.transaction(() => {
      work();
      terms.settle();
    })();
    write(() => ['a', 'b', 'c', 'd', 'e'].forEach((t, i) => terms.add(t, i + 1)));
    write(() => terms.add('f', 6));
    expect([level('a'), level('f')]).toEqual([1, 0]);
    write(() => {
      expect(terms.remove('a')).toBe(true);
      expect(terms.remove('f')).toBe(true);
      expect(terms.remove('zz')).toBe(false);
    });
    expect([terms.get('a'), terms.get('f'), terms.get('b')]).toEqual([undefined, undefined, 2]);
    expect(terms.range('a', 'g').map((t) => t.term)).toEqual(['b', 'c', 'd', 'e']);
    // Level 0 holds nothing now: four more terms stay in it (its share), the fifth moves it.
    write(() => ['g', 'h', 'i', 'j'].forEach((t, i) => terms.add(t, 10 + i)));
    expect(level('j')).toBe(0);
    write(() => terms.add('k', 20));
    expect(level('k')).toBeGreaterThan(0);
    expect(terms.get('k')).toBe(20);
  });

  it('keeps a set without values (the vocabulary)', () => {
    const db = openDatabase(':memory:');
    const terms = new LeveledTerms(db, { table: 'search_term_levels', firstLevel: 2, fanout: 2 });
    for (const w of ['rotor', 'stator', 'gear', 'shaft', 'bearing']) {
      terms.add(w);
      terms.settle();
    }
    expect(terms.get('gear')).toBe(0);
    expect(terms.get('gears')).toBeUndefined();
    expect(terms.range('', '\u{10FFFF}').map((t) => t.term)).toEqual(['bearing', 'gear', 'rotor', 'shaft', 'stator']);
  });

  it('with the level count fixed for a write transaction, finds terms one by one and together (getMany) as levels move and fill', () => {
    const db = openDatabase(':memory:');
    const terms = new LeveledTerms(db, { table: 'engine_term_levels', valueColumn: 'id', firstLevel: 2, fanout: 2 });
    const words = Array.from({ length: 30 }, (_, i) => `m${String((i * 17) % 30).padStart(2, '0')}`);
    words[7] = 'm\u{1F600}'; // a surrogate pair: looked up alone
    let id = 0;
    for (let from = 0; from < words.length; from += 3) {
      db.transaction(() => {
        terms.fixLevels();
        // An empty set gains level 0 with its first term; a move adds a level: both seen at once.
        for (const w of words.slice(from, from + 3)) {
          expect(terms.get(w)).toBeUndefined();
          terms.add(w, ++id);
          expect(terms.get(w)).toBe(id);
        }
        terms.settle();
        const seen = words.slice(0, from + 3);
        expect(terms.getMany([...seen, 'absent', 'm\u{1F601}'])).toEqual(new Map(seen.map((w, i) => [w, i + 1])));
        terms.unfixLevels();
      })();
    }
    expect(Math.max(...(db.prepare('SELECT level FROM engine_term_levels').pluck().all() as number[]))).toBeGreaterThanOrEqual(3);
    // Outside a transaction a fix is refused: the count is read per lookup.
    terms.fixLevels();
    expect(terms.getMany(words).size).toBe(30);
    const vocabulary = new LeveledTerms(db, { table: 'search_term_levels', firstLevel: 2, fanout: 2 });
    for (const w of ['gear', 'shaft', 'rotor']) vocabulary.add(w);
    expect(vocabulary.getMany(['rotor', 'gear', 'cog'])).toEqual(new Map([['gear', 0], ['rotor', 0]]));
  });
});
