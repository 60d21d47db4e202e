/**
 * Running the BUILT CLI (bin/catalog.js) as a subprocess, as a user or a CI pipeline does.
 * `npm test` builds dist/ before running the tests.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'catalog.js');

/** Runs `catalog <args>` to completion. */
export function catalogSync(args: string[], env: Record<string, string> = {}, cwd = ROOT) {
  const run = spawnSync(BIN, args, { cwd, encoding: 'utf8', env: { ...process.env, CI: '1', ...env } });
  return { code: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
}

/** Starts `catalog <args>` and returns the child; stdout and stderr are collected. */
export function catalogSpawn(args: string[], env: Record<string, string> = {}, cwd = ROOT): ChildProcess & { output: () => { stdout: string; stderr: string } } {
  const child = spawn(BIN, args, { cwd, env: { ...process.env, CI: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return Object.assign(child, { output: () => ({ stdout, stderr }) });
}

/** Resolves when the child exits, with its code and signal. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Starts `catalog serve --port 0` on a data directory and resolves with its URL once it listens. */
export async function startServe(dataDir: string, extra: string[] = []): Promise<{ url: string; child: ChildProcess & { output: () => { stdout: string; stderr: string } } }> {
  const child = catalogSpawn(['--data-dir', dataDir, 'serve', '--port', '0', ...extra]);
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const m = /at (http:\/\/\S+)/.exec(child.output().stderr);
      if (m?.[1]) resolve(m[1]);
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${child.output().stderr}`)));
  });
  return { url, child };
}

/** A TCP port free on 127.0.0.1 right now (another process on a shared machine may hold a fixed one). */
export function freePort(): Promise<number> {
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
