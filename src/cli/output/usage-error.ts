/**
 * A mistake in how the command was invoked (bad flag value, unknown field, unknown file format).
 * The CLI's main maps it to exit code 2 (cli.md, Exit codes) and prints only the message, no stack.
 * The message is meant for the user as is: it names the bad value and lists the valid ones.
 */
export class UsageError extends Error {
  /** The process exit code cli.md assigns to usage errors. */
  readonly exitCode = 2;

  /** @param message a complete sentence for the user, e.g. `unknown field 'x'; valid fields: a, b`. */
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
