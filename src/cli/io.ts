/**
 * The process surface a command may touch, passed in so tests can run the CLI in-process with
 * captured streams and their own environment.
 */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WriteStream | (NodeJS.WritableStream & { isTTY?: boolean });
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The real process. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
}
