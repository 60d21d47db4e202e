/**
 * Spinners and colour decisions for stderr (cli.md, Output): the only module that knows ora. A job
 * of known size (an import of a file) shows a bar, percentage, rate and time left in ora's text.
 * Progress appears only for a person watching a terminal; in pipes, files and CI it is silent.
 */
import type { Ora } from 'ora';

/** A spinner line on stderr. Every method is a no-op when progress is disabled. */
export interface Progress {
  /** Whether a spinner is actually shown (TTY, not CI, and requested). */
  readonly enabled: boolean;
  /**
   * Starts the spinner (if needed) and sets its text, e.g. `imported 3,000 of ~10,000`; with
   * `amount` (bytes of a file of known size) a bar, the percentage, the rate and the time left lead it.
   */
  update(text: string, amount?: ProgressAmount): void;
  /** Stops the spinner with a success mark and a final text. */
  succeed(text: string): void;
  /** Stops the spinner with a failure mark and a final text. */
  fail(text: string): void;
  /** Removes the spinner line without a mark (before printing a summary or on Ctrl-C). */
  stop(): void;
}

/** How far a job of known size is: `done` of `total` bytes. */
export interface ProgressAmount {
  done: number;
  total: number;
}

const BAR_WIDTH = 20;

/** Bytes as a person reads them: `512 B`, `3.4 MB`, `1.2 GB` (decimal units, as file managers). */
function bytes(n: number): string {
  if (n < 1000) return `${Math.round(n)} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = n / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A duration in seconds as `42s`, `3m05s`, `1h02m`. */
function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * The line of a job of known size (as gh and npm show one): `███████░░░░░░ 35% · <text> · 4.1 MB/s
 * · 12s left`. The rate is the mean since the start (`elapsedSeconds`); no rate or time left
 * before the first second, when they would only jitter.
 */
export function amountLine(text: string, amount: ProgressAmount, elapsedSeconds: number): string {
  const fraction = amount.total > 0 ? Math.min(1, Math.max(0, amount.done / amount.total)) : 0;
  const filled = Math.round(fraction * BAR_WIDTH);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
  let line = `${bar} ${String(Math.floor(fraction * 100)).padStart(3)}% · ${text}`;
  if (elapsedSeconds >= 1 && amount.done > 0) {
    const rate = amount.done / elapsedSeconds;
    line += ` · ${bytes(rate)}/s · ${duration((amount.total - amount.done) / rate)} left`;
  }
  return line;
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
  // The CLI bundle turns import() into require(), and Node's require() of this ES module gives its
  // namespace, which the bundler's interop wraps once more: its default is then the namespace.
  const imported: { default: unknown } = await import('ora');
  const ora = (typeof imported.default === 'function' ? imported.default : (imported.default as { default: unknown }).default) as typeof import('ora').default;
  let spinner: Ora | undefined;
  const started = performance.now();
  const ensure = (text: string): Ora => {
    spinner ??= ora({ stream, discardStdin: false, isEnabled: true, text }).start();
    return spinner;
  };
  return {
    enabled: true,
    update(text, amount) {
      const line = amount !== undefined ? amountLine(text, amount, (performance.now() - started) / 1000) : text;
      ensure(line).text = line;
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
