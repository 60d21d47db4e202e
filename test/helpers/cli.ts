/**
 * Running the CLI in-process as a user would (argv, env, cwd, stdin), capturing stdout and stderr.
 */
import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `catalog <args>` in-process with `env` (merged over a clean base) in `cwd`. */
export async function cli(args: string[], options: { cwd: string; env?: Record<string, string>; stdin?: string }): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const env: NodeJS.ProcessEnv = { HOME: options.cwd, XDG_CONFIG_HOME: `${options.cwd}/.config`, PATH: process.env.PATH, ...options.env };
  const code = await runCli(['node', 'catalog', ...args], {
    stdout,
    stderr,
    stdin: Readable.from([options.stdin ?? '']),
    env,
    cwd: options.cwd,
  });
  return { code, stdout: out, stderr: err };
}
