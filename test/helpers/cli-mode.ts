/**
 * One CLI test body run in local mode (a fresh data directory) and against a server (--remote, with a
 * token of every role): `describe.each(['local', 'remote'])` plus this gives both modes the same steps.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { ROLES } from '../../src/api/schemas.js';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { cli, type CliResult } from './cli.js';
import { createHarness, tempDir, type Harness } from './harness.js';

/** The current test's working folder and a `catalog` runner bound to the mode. */
export interface CliInMode {
  /** The test's working folder (cwd and HOME of every run; removed after the test). */
  readonly dir: string;
  /** Runs `catalog <global mode flags> <args>` in `dir`, with `stdin` if given. */
  run(args: string[], stdin?: string): Promise<CliResult>;
}

/**
 * Registers beforeEach/afterEach hooks that give each test a fresh folder and, in remote mode, a
 * fresh HTTP harness; returns an accessor valid inside tests.
 */
export function cliInMode(mode: 'local' | 'remote', folderPrefix: string): CliInMode {
  let dir = '';
  let args: string[] = [];
  let env: Record<string, string> = {};
  let h: Harness | undefined;
  beforeEach(async () => {
    dir = tempDir(folderPrefix);
    if (mode === 'local') {
      args = ['--data-dir', join(dir, 'data')];
      env = {};
    } else {
      h = await createHarness('http');
      const { secret } = await h.service.createToken(LOCAL_OWNER, { name: 'cli', roles: [...ROLES] });
      args = ['--remote', h.url ?? ''];
      env = { CATALOG_TOKEN: secret };
    }
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    run: (more, stdin) => cli([...args, ...more], { cwd: dir, env, ...(stdin !== undefined ? { stdin } : {}) }),
  };
}
