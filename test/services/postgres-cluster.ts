/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: initdb in a temp directory,
 * `pg_ctl start` on a free loopback port, stopped and removed by `stop()`. Runs the server as an
 * unprivileged user: the current one, or `postgres` (Debian's package creates it) when we are
 * root, since PostgreSQL refuses to run as root. Small and fast, for tests only: shared_buffers
 * 64MB, fsync off (a crash of the test machine may lose the throwaway data, nothing else).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How to get PostgreSQL when it is missing (printed in the skip message). */
export const POSTGRES_INSTALL_HINT = 'apt-get update && apt-get install -y postgresql';

/** A running cluster. `url` reaches its `postgres` database as a superuser without a password. */
export interface PostgresCluster {
  url: string;
  port: number;
  /** Stops the server (immediate shutdown) and removes its directory. */
  stop(): void;
}

/** The directory holding initdb and pg_ctl: $CATALOG_PG_BIN (when set, only it), pg_config --bindir, or Debian's /usr/lib/postgresql/<newest>/bin. */
export function findPostgresBin(): string | undefined {
  const fromEnv = process.env.CATALOG_PG_BIN;
  // Set but without initdb: taken at its word (also how the skip path is tried by hand).
  if (fromEnv !== undefined && fromEnv !== '') return existsSync(join(fromEnv, 'initdb')) ? fromEnv : undefined;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(join(debian, v, 'bin', 'initdb'))) return join(debian, v, 'bin');
  }
  const config = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = config.status === 0 ? config.stdout.trim() : '';
  return dir !== '' && existsSync(join(dir, 'initdb')) ? dir : undefined;
}

/** A free TCP port on 127.0.0.1 (asked from the kernel, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The uid/gid to run the server as when we are root (the `postgres` account), else undefined. */
function serverAccount(): { name: string; uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (id.status !== 0 || gid.status !== 0) throw new Error('running as root and there is no `postgres` account to run the test cluster as');
  return { name: 'postgres', uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Creates and starts a cluster. Throws with the tool's output when PostgreSQL is not installed or
 * does not start (the caller decides whether that skips or fails).
 */
export async function startPostgresCluster(options: { sharedBuffers?: string } = {}): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(`PostgreSQL is not installed (no initdb found); install it with: ${POSTGRES_INSTALL_HINT}`);
  const account = serverAccount();
  const dir = mkdtempSync(join(tmpdir(), 'catalog-pg-'));
  const data = join(dir, 'data');
  if (account) {
    chownSync(dir, account.uid, account.gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool: string, args: string[]): void => {
    const command = account ? 'runuser' : join(bin, tool);
    const argv = account ? ['-u', account.name, '--', join(bin, tool), ...args] : args;
    execFileSync(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir, timeout: 120_000 });
  };
  const port = await freePort();
  try {
    run('initdb', ['-D', data, '-U', 'catalog', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
    const settings = [
      `-p ${port}`, `-k ${dir}`, "-c listen_addresses='127.0.0.1'", `-c shared_buffers=${options.sharedBuffers ?? '64MB'}`,
      '-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off', '-c max_connections=200', '-c max_locks_per_transaction=256',
    ].join(' ');
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', settings, '-w', '-t', '60', 'start']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const e = error as { stderr?: Buffer; message: string };
    throw new Error(`the test PostgreSQL cluster did not start: ${e.stderr?.toString().trim() || e.message}`);
  }
  let stopped = false;
  return {
    url: `postgres://catalog@127.0.0.1:${port}/postgres`,
    port,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
