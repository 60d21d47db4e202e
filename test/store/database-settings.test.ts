/**
 * The catalog database's connection settings (adapters/sqlite/database.ts): durability first, then
 * the WAL checkpoint interval that keeps an import from copying every batch twice.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nearestPackage, openDatabase, WAL_AUTOCHECKPOINT_PAGES } from '../../src/adapters/sqlite/database.js';
import { tempDir } from '../helpers/harness.js';

describe('openDatabase', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('opens in WAL mode with synchronous=FULL and checkpoints every 16,384 pages, and leaves no WAL behind on close', () => {
    const dir = tempDir();
    dirs.push(dir);
    const path = join(dir, 'catalog.db');
    const db = openDatabase(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL: a commit is durable when it returns
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_AUTOCHECKPOINT_PAGES);
    expect(WAL_AUTOCHECKPOINT_PAGES).toBe(16_384);
    db.exec('CREATE TABLE t (x BLOB)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 2_000; i++) insert.run(Buffer.alloc(4096, i % 251));
    })();
    expect(existsSync(`${path}-wal`)).toBe(true);
    db.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const again = openDatabase(path);
    expect(again.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2_000);
    again.close();
  });

});

describe('nearestPackage (finds the SQLite addon without require.resolve)', () => {
  it('finds the package Node resolves, the nearest first, skipping directories named node_modules', () => {
    expect(nearestPackage('better-sqlite3', import.meta.dirname)).toBe(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')));
    const root = tempDir();
    const deep = join(root, 'app', 'node_modules', 'catalog', 'dist', 'bundle');
    mkdirSync(deep, { recursive: true });
    for (const dir of [join(root, 'node_modules', 'pkg'), join(root, 'app', 'node_modules', 'pkg'), join(root, 'app', 'node_modules', 'node_modules', 'pkg')]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'package.json'), '{}');
    }
    expect(nearestPackage('pkg', deep)).toBe(join(root, 'app', 'node_modules', 'pkg'));
    expect(nearestPackage('pkg', join(root, 'app'))).toBe(join(root, 'app', 'node_modules', 'pkg'));
    expect(nearestPackage('absent-package-name', deep)).toBeUndefined();
    rmSync(root, { recursive: true, force: true });
  });
});
