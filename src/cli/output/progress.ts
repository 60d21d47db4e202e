/**
 * Spinners and colour decisions for stderr (cli.md, Output): the only module that knows ora.
 * Progress appears only for a person watching a terminal; in pipes, files and CI it is silent.
 */
import type { Ora } from 'ora';

/** A spinner line on stderr. Every method is a no-op when progress is disabled. */
export interface Progress {
  /** Whether a spinner is actually shown (TTY, not CI, and requested). */
  readonly enabled: boolean;
  /** Starts the spinner (if needed) and sets its text, e.g. `imported 3,000 of ~10,000`. */
  update(text: string): void;
  /** Stops the spinner with a success mark and a final text. */
  succeed(text: string): void;
  /** Stops the spinner with a failure mark and a final text. */
  fail(text: string): void;
  /** Removes the spinner line without a mark (before printing a summary or on Ctrl-C). */
  stop(): void;
}

/** True when `CI` is set to something other than "", "0" or "false". */
function inCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/**
 * Creates a progress spinner on `stream` (normally process.stderr).
 *
 * @param stream where the spinner is drawn.
 * @param enabled the caller's wish (e.g. false with `--quiet`); the spinner is shown only when this is
 *   true AND `stream.isTTY` AND `CI` is unset in `env`. Otherwise every method does nothing.
 * @param env the environment to consult (tests pass their own); default process.env.
 * @returns a {@link Progress}; ora is loaded only when the spinner is shown (a silent run need not
 *   load it at all), created on the first call, and never reads stdin (`discardStdin: false`, so `import -` and our own Ctrl-C
 *   handling keep working).
 */
export async function createProgress(stream: NodeJS.WriteStream, enabled: boolean, env: NodeJS.ProcessEnv = process.env): Promise<Progress> {
  // A terminal of width 0 (a pseudo-terminal nobody sized, e.g. `script` fed by a pipe) would make
  // ora count Infinity lines to clear and print cursor-up codes forever: no spinner there.
  const active = enabled && stream.isTTY === true && !inCi(env) && stream.columns !== 0;
  if (!active) {
    const noop = (): void => undefined;
    return { enabled: false, update: noop, succeed: noop, fail: noop, stop: noop };
  }
  const { default: ora } = await import('ora');
  let spinner: Ora | undefined;
  const ensure = (text: string): Ora => {
    spinner ??= ora({ stream, discardStdin: false, isEnabled: true, text }).start();
    return spinner;
  };
  return {
    enabled: true,
    update(text) {
      ensure(text).text = text;
    },
    succeed(text) {
      ensure(text).succeed(text);
      spinner = undefined;
    },
    fail(text) {
      ensure(text).fail(text);
      spinner = undefined;
    },
    stop() {
      spinner?.stop();
      spinner = undefined;
    },
  };
}

export { colorEnabled } from './color.js';
