/**
 * An import's reader thread (./entries-thread.ts) stopped without an I/O error of its own (it
 * crashed, or ran out of memory): the message names the input and the last line read. The CLI
 * reports it as an error (exit 1), not as a bug: the rows before it were written and the import
 * can be resumed.
 */
export class InputReadError extends Error {
  /** Exit code 1 (design/cli.md "Exit codes": a runtime error). */
  readonly exitCode = 1;

  /** @param message a complete sentence naming the input and where reading stopped. */
  constructor(message: string) {
    super(message);
    this.name = 'InputReadError';
  }
}
