/**
 * A closed pipe (`catalog parts list | head`) ends the program quietly (cli.md, Output). Apart from
 * write.ts so that main.ts can install it without loading cli-table3.
 */

function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code: unknown = error.code;
  return typeof code === 'string' ? code : undefined;
}

/** True for the error a write to a closed pipe raises (`head` exited, `less` quit). */
export function isEpipe(error: unknown): boolean {
  return errnoCode(error) === 'EPIPE';
}

/**
 * Makes a closed pipe end the program quietly (`catalog parts list | head`): an EPIPE 'error' on
 * `stream` is swallowed and `onEpipe` runs — by default, for process.stdout only, `process.exit(0)`
 * (the one deliberate exit outside main.ts, as cli.md wants `| head` to succeed). Other errors are
 * rethrown unless another 'error' listener is attached (so Node's default crash is kept).
 * Call once at start-up for process.stdout (and process.stderr, where the default does nothing).
 *
 * @returns a function that removes the handler.
 */
export function installEpipeHandler(
  stream: NodeJS.WritableStream,
  options: { onEpipe?: () => void } = {},
): () => void {
  const onEpipe = options.onEpipe ?? (stream === process.stdout ? () => process.exit(0) : () => undefined);
  const handler = (error: unknown): void => {
    if (isEpipe(error)) {
      onEpipe();
      return;
    }
    if (stream.listenerCount('error') <= 1) throw error;
  };
  stream.on('error', handler);
  return () => {
    stream.removeListener('error', handler);
  };
}
