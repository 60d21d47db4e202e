/**
 * Start-up (`catalog search x` within 2× `node -e 0`): the CLI builds only the command
 * being run, launches node without V8 flags, and behaves as before for help, typos and global
 * options. Speed itself is measured by bench/startup.js, never here.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram, invokedCommand } from '../../src/cli/program.js';
import { cli } from '../helpers/cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'catalog-start-up-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('the command being run', () => {
  it('is the first word that is not an option or an option value', () => {
    expect(invokedCommand(['search', 'x'])).toBe('search');
    expect(invokedCommand(['--data-dir', 'parts', 'search', 'x'])).toBe('search');
    expect(invokedCommand(['-o', 'json', '--fields', 'part_id', 'parts', 'list'])).toBe('parts');
    expect(invokedCommand(['--data-dir=parts', '-q', 'images', 'list'])).toBe('images');
    expect(invokedCommand(['--remote', 'http://h', '--token-file', 't', 'search', 'x'])).toBe('search');
    // A value that is also a command's name is the option's (the value-taking options come from the program's own list).
    expect(invokedCommand(['--profile', 'search', '--database-url', 'parts', '--blob-url', 'images', 'relations', 'list'])).toBe('relations');
  });

  it('is none for help, a typo, no command or after --', () => {
    expect(invokedCommand([])).toBeUndefined();
    expect(invokedCommand(['--help'])).toBeUndefined();
    expect(invokedCommand(['help', 'parts'])).toBeUndefined();
    expect(invokedCommand(['serch', 'x'])).toBeUndefined();
    expect(invokedCommand(['--', 'search'])).toBeUndefined();
  });

  it('builds a tree of that command alone, or of every command', () => {
    const only = buildProgram(async () => undefined, 'search');
    expect(only.commands.map((c) => c.name())).toEqual(['search']);
    const all = buildProgram(async () => undefined);
    expect(all.commands.map((c) => c.name())).toEqual(
      ['attributes', 'parts', 'images', 'relations', 'synonyms', 'organizations', 'search', 'tokens', 'maintenance', 'settings', 'changes', 'webhooks', 'backup', 'restore', 'serve', 'migrate', 'api', 'config', 'completion'],
    );
  });
});

describe('behaviour with the partial tree', () => {
  it('still suggests the command for a typo and lists every command in the help', async () => {
    const typo = await cli(['serch', 'x'], { cwd });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'serch'");
    expect(typo.stderr).toContain('Did you mean search?');
    const help = await cli(['--help'], { cwd });
    expect(help.code).toBe(0);
    for (const name of ['attributes', 'parts', 'images', 'relations', 'synonyms', 'search', 'tokens', 'serve', 'migrate']) expect(help.stdout).toContain(`  ${name}`);
  });

  it('shows the global options in a verb help', async () => {
    const help = await cli(['--data-dir', join(cwd, 'none'), 'parts', 'list', '--help'], { cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--data-dir <dir>');
    expect(help.stdout).toContain('--fields <list>');
  });
});

describe('bin/catalog.js', () => {
  it('launches node without V8 flags (each costs every command ~20 ms; bulk jobs set theirs at run time)', () => {
    const first = readFileSync(join(import.meta.dirname, '..', '..', 'bin', 'catalog.js'), 'utf8').split('\n')[0];
    expect(first).toBe('#!/usr/bin/env node');
  });
});
