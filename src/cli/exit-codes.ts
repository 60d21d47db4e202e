/**
 * The process exit codes of the CLI (design/cli.md, "Exit codes"): the one place they are defined.
 * CatalogError codes map to these through src/api/errors.ts (ERROR_CODES[code].exitCode).
 */
export const EXIT = {
  /** Success, including an empty result. */
  OK: 0,
  /** A runtime error, or a bug (then the message says so, with versions). */
  ERROR: 1,
  /** A usage error: bad command, option, argument or value; a bad path or port. */
  USAGE: 2,
  /** Some items of a bulk operation were rejected. */
  PARTIAL: 3,
  /** Authentication or permission (401, 403). */
  AUTH: 4,
  /** Unavailable: maintenance mode, the server unreachable, the database busy or the disk full. */
  UNAVAILABLE: 5,
  /** Not found. */
  NOT_FOUND: 6,
  /** Interrupted (Ctrl-C). */
  INTERRUPTED: 130,
} as const;
