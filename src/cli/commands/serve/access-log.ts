/**
 * Where `catalog serve` writes its access log (docs/deploy.md, "Access log"): a file given with
 * `--access-log`, else standard error.
 *
 * Why not process.stderr itself: on Linux, writes to a pipe or a file through process.stderr are
 * synchronous, so every request paid a write system call on the event loop, and a slow reader of
 * the pipe (a terminal, `| tee`, a log shipper) stalled every request. sonic-boom (pino's
 * destination) writes asynchronously: lines that arrive while a write is in flight go out together
 * in the next one (one system call for many requests under load), and at most
 * {@link MAX_BUFFERED_BYTES} wait in memory; beyond that, lines are dropped (and counted in a
 * warning), never the server's memory grown.
 *
 * Lines are written {@link BATCH_BYTES} at a time, or {@link FLUSH_INTERVAL_MS} after the first one
 * waiting: written one by one, each line cost a write handed to libuv's thread pool and its
 * callback, ~15-20 µs of the event loop's ~125 µs per GET part under load.
 */
import { openSync } from 'node:fs';
import sonicBoom from 'sonic-boom';
import { UsageError } from '../../output/usage-error.js';

/** Log bytes waiting for a slow destination before lines are dropped. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** Bytes gathered before a write (about 60 lines; below sonic-boom's 16 KiB maxWrite). */
const BATCH_BYTES = 8 * 1024;
/** Longest a line waits for its batch to fill, in ms: a quiet server's log still reads live. */
export const FLUSH_INTERVAL_MS = 200;

/** An open access log: `write` takes whole lines; `close` writes out what waits (never closes stderr). */
export interface AccessLog {
  write(line: string): unknown;
  close(): Promise<void>;
}

/**
 * Opens the access log before the server starts: `path` appended to (created if missing), or
 * standard error without one. Throws UsageError (exit 2) naming a path that cannot be opened, so
 * the mistake shows at once rather than on the first request.
 */
export function openAccessLog(path: string | undefined, warn: (message: string) => void): AccessLog {
  let fd = 2;
  if (path !== undefined) {
    try {
      fd = openSync(path, 'a');
    } catch (error) {
      throw new UsageError(`cannot write --access-log ${path}: ${(error as Error).message}`);
    }
  }
  const sink = new sonicBoom.SonicBoom({ fd, sync: false, minLength: BATCH_BYTES, maxLength: MAX_BUFFERED_BYTES });
  let dropped = 0;
  sink.on('drop', () => {
    if (dropped++ === 0) warn(`the access log${path !== undefined ? ` ${path}` : ''} is not keeping up: lines beyond ${MAX_BUFFERED_BYTES / 1024 / 1024} MiB waiting are dropped`);
  });
  // At most one timer at a time, armed by a line or by a completed write (lines that came in while
  // a write was in flight wait for the next one); an idle server is not woken.
  let flushTimer: NodeJS.Timeout | undefined;
  let closed = false;
  const flushSoon = () => {
    if (closed) return;
    flushTimer ??= setTimeout(() => {
      flushTimer = undefined;
      if (!closed) sink.flush();
    }, FLUSH_INTERVAL_MS).unref();
  };
  sink.on('write', (bytes: number) => {
    if (bytes > 0) flushSoon();
  });
  return {
    write: (line) => {
      const accepted = sink.write(line);
      flushSoon();
      return accepted;
    },
    close: () =>
      new Promise<void>((done) => {
        closed = true;
        if (flushTimer) clearTimeout(flushTimer);
        // Standard error stays open for the process's own last words; a file is closed.
        if (path === undefined) sink.flush(() => done());
        else {
          sink.once('close', () => done());
          sink.end();
        }
      }),
  };
}
