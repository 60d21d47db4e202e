/**
 * The image originals a pg_dump of a catalog references (docs/deploy.md "Backup and restore"):
 * the `sha256` and `size` of each row of the dump's `images` table (migrations.ts), read from the
 * table's `COPY ... FROM stdin` block. A plain-format dump (`pg_dump -f x.sql`) is read as is; a
 * custom, tar or directory dump (`-Fc`, `-Ft`, `-Fd`) is turned into SQL by `pg_restore -f -`
 * (only the images table's data). The dump is streamed line by line: memory holds one line and
 * the distinct originals, not the dump.
 */
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { CatalogError } from '../../api/errors.js';
import { isSha256Hex } from '../../core/images/blobs.js';

/** What a dump's images table references. */
export interface DumpImages {
  /** Rows of the images table. */
  images: number;
  /** Each distinct original (SHA-256, lowercase hex) with its size in bytes as the rows record it. */
  blobs: Map<string, number>;
  /** 'plain' when read as SQL, 'archive' when pg_restore turned it into SQL. */
  format: 'plain' | 'archive';
}

/** `COPY schema.images (col, ...) FROM stdin;` — pg_dump's header of a table's data. */
const COPY_IMAGES = /^COPY (?:(?:"[^"]+"|[a-z_][a-z0-9_$]*)\.)?images \(([^)]*)\) FROM stdin;$/;

async function dumpFormat(path: string): Promise<'plain' | 'archive'> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CatalogError('bad_request', code === 'ENOENT' ? `${path}: no such file (the dump to verify)` : `${path}: cannot be read (${code ?? String(error)})`);
  }
  // A directory-format dump (-Fd) is a directory holding toc.dat.
  if (info.isDirectory()) return 'archive';
  const head = Buffer.alloc(512);
  let read = 0;
  try {
    const file = await open(path, 'r');
    try {
      read = (await file.read(head, 0, head.length, 0)).bytesRead;
    } finally {
      await file.close();
    }
  } catch (error) {
    throw new CatalogError('bad_request', `${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  // The custom format starts with PGDMP; the tar format has tar's magic at offset 257.
  if (head.subarray(0, 5).toString('latin1') === 'PGDMP') return 'archive';
  if (read >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar') return 'archive';
  return 'plain';
}

/** Starts `pg_restore -f - --data-only --table images <path>`; its stdout is the SQL. */
function pgRestore(path: string): { stdout: Readable; done: Promise<void>; stop(): void } {
  const child = spawn('pg_restore', ['-f', '-', '--data-only', '--table', 'images', path], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 4000) stderr += d;
  });
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'ENOENT'
        ? new CatalogError('bad_request', `${path} is an archive dump (pg_dump -Fc, -Ft or -Fd) and pg_restore is not on PATH: install PostgreSQL's client tools, or turn it into SQL elsewhere (pg_restore -f catalog.sql ${path}) and verify that file`)
        : error);
    });
    child.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new CatalogError('bad_request', `pg_restore could not read ${path} (exit ${code}): ${stderr.trim().split('\n')[0] ?? ''}`));
    });
  });
  // Observed by the caller after the stream ends; this keeps an early failure from being unhandled meanwhile.
  done.catch(() => undefined);
  return { stdout: child.stdout, done, stop: () => child.kill() };
}

/**
 * Reads the images a catalog's pg_dump references. `path` is a plain SQL dump or an archive that
 * pg_restore reads (it must be on PATH then).
 *
 * @throws CatalogError bad_request when the file does not exist or cannot be read, is not a dump of
 *   a catalog (no data of an images table with sha256 and size columns: a schema-only dump, an
 *   `--inserts` dump or another database), holds more than one images table (dump one schema
 *   with `pg_dump -n`), has a malformed row (its line number), or pg_restore is missing or fails.
 */
export async function readDumpImages(path: string): Promise<DumpImages> {
  const format = await dumpFormat(path);
  const restore = format === 'archive' ? pgRestore(path) : undefined;
  const input = restore?.stdout ?? createReadStream(path);
  const blobs = new Map<string, number>();
  let images = 0;
  let tables = 0;
  let columns: { sha256: number; size: number } | undefined;
  let line = 0;
  const where = () => (format === 'plain' ? `${path} line ${line}` : `${path} (pg_restore's output line ${line})`);
  try {
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const text of lines) {
      line++;
      if (columns === undefined) {
        const copy = COPY_IMAGES.exec(text);
        if (!copy) continue;
        const names = copy[1]!.split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
        const sha256 = names.indexOf('sha256');
        const size = names.indexOf('size');
        if (sha256 < 0 || size < 0) continue;
        if (++tables > 1) throw new CatalogError('bad_request', `${where()}: a second images table; dump one catalog's schema (pg_dump -n SCHEMA) and verify that`);
        columns = { sha256, size };
        continue;
      }
      if (text === '\\.') {
        columns = undefined;
        continue;
      }
      const fields = text.split('\t');
      const sha256 = fields[columns.sha256] ?? '';
      const size = Number(fields[columns.size]);
      if (!isSha256Hex(sha256) || !Number.isSafeInteger(size) || size < 0) throw new CatalogError('bad_request', `${where()}: an images row without a SHA-256 and a size (${JSON.stringify(text.slice(0, 80))})`);
      images++;
      blobs.set(sha256, size);
    }
  } catch (error) {
    if (error instanceof CatalogError) {
      restore?.stop();
      throw error;
    }
    // pg_restore's own failure (missing, unreadable archive) explains a read error best.
    if (restore) await restore.done;
    throw new CatalogError('bad_request', `${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  await restore?.done;
  if (tables === 0) {
    throw new CatalogError('bad_request', `${path} is not a dump of a catalog: it holds no data of an images table with sha256 and size columns (take it with pg_dump in its default COPY form, not --schema-only or --inserts)`);
  }
  if (columns !== undefined) throw new CatalogError('bad_request', `${where()}: the dump ends inside the images table's data (a truncated file?)`);
  return { images, blobs, format };
}
