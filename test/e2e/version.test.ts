/**
 * `catalog --version` answers from bin/catalog.js without loading the CLI (start-up time),
 * and says the same as package.json and the CLI's own `--version` (taken when more arguments follow).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'catalog.js');
const run = (...args: string[]) => execFileSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });

describe('catalog --version', () => {
  it('prints the package version, by the fast path and by the CLI alike', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(run('--version')).toBe(`${version}\n`);
    expect(run('-V')).toBe(`${version}\n`);
    // With another option the full CLI parses the line and answers the same.
    expect(run('--no-color', '--version')).toBe(`${version}\n`);
  });
});
