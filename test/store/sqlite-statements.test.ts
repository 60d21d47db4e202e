/**
 * Rules every SQL statement of the SQLite store keeps (src/adapters/sqlite/database.ts): a bound row
 * limit is `LIMIT +?`, never `LIMIT ?`, which SQLite compiles again on every run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SQLITE_ADAPTER = join(ROOT, 'src', 'adapters', 'sqlite');

/** The adapter's source files (tests excluded), recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('SQLite statements', () => {
  it('bind a row limit as an expression (LIMIT +?), never as a bare parameter', () => {
    const files = sourceFiles(SQLITE_ADAPTER);
    expect(files.length).toBeGreaterThan(10);
    const offenders: string[] = [];
    for (const file of files) {
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        // A parameter: ?, ?NNN, @name, :name, $name (a template's ${constant} is SQL text, not one).
        const comment = /^\s*(\*|\/\/)/.test(line);
        if (!comment && /\bLIMIT\s+(\?|[@:]\w|\$(?!\{))/i.test(line)) offenders.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });
});
