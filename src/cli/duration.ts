/**
 * `--expires-in` values (docs/cli.md, `tokens create`): a whole number and a unit, `90s`, `15m`,
 * `12h`, `30d` or `52w`, as seconds. A commander option parser: a bad value is commander's
 * InvalidArgumentError, reported as a usage error (exit 2) naming the flag.
 */
import { InvalidArgumentError } from 'commander';

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800 };

/** Parses `30d` into 2,592,000 (seconds); throws InvalidArgumentError for anything else. */
export function parseDuration(value: string): number {
  const match = /^(\d{1,9})([smhdw])$/.exec(value.trim());
  const seconds = match ? Number(match[1]) * (UNIT_SECONDS[match[2] ?? ''] ?? 0) : 0;
  if (seconds <= 0) throw new InvalidArgumentError('Expected a positive whole number and a unit: s, m, h, d or w (e.g. 30d, 12h).');
  return seconds;
}
