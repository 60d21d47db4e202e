/**
 * The HTTP client's image upload (POST /1/catalog/images, spec 4.2): a multipart/form-data body
 * built by hand and streamed from disk through undici's `request` with an exact Content-Length.
 * design/measurements.md: undici fetch + FormData is the client-side bottleneck; a streamed body
 * keeps up with curl. Small files are read whole and coalesced into larger writes; large files are
 * streamed in 1 MiB chunks, so memory stays flat whatever the batch size.
 *
 * Retries (design/cli.md): 429/502/503/504 (not maintenance) and connection failures are retried
 * with backoff honouring Retry-After, a bounded number of times, RE-OPENING the files for each
 * attempt (a stream cannot be replayed); a 4xx never is. Upserts by image_id make a retry safe.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Dispatcher, Pool } from 'undici';
import { CatalogError, fromProblem, MAINTENANCE_DETAIL } from '../api/errors.js';
import type { UploadFile } from '../api/image-schemas.js';
import { ROUTES } from '../api/routes.js';
import type { BulkWriteResult } from '../api/schemas.js';
import { RETRY_ERRORS, RETRY_STATUSES, retryAfterMs, sleep } from './retry.js';

/** What the upload needs from the HttpCatalogClient. */
export interface UploadTransport {
  pool: Pool;
  origin: string;
  /** The base URL's path without a trailing slash ("" for the root). */
  basePath: string;
  token: string | undefined;
  retries: number;
  backoffMs: number;
}

/** Files up to this size are read whole (one read instead of a stream). */
const SMALL_FILE = 512 * 1024;
/** Large files are streamed in chunks of this size. */
const CHUNK = 1024 * 1024;
/** Small parts are coalesced into writes of about this size. */
const COALESCE = 256 * 1024;

/** A quoted multipart parameter value: `"` and `\` escaped; UTF-8 as is (busboy decodes it). */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]/g, ' ')}"`;
}

interface PlannedFile {
  file: UploadFile;
  size: number;
  header: Buffer;
}

/** Sizes every file (stat) and lays out the body; throws ENOENT etc. for a missing file. */
async function plan(definitions: unknown[], files: readonly UploadFile[]) {
  const boundary = `----catalog-${randomBytes(16).toString('hex')}`;
  const preamble = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="images"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(definitions)}\r\n`,
  );
  const planned: PlannedFile[] = [];
  for (const file of files) {
    const size = file.data !== undefined ? file.data.length : file.path !== undefined ? (await stat(file.path)).size : Number.NaN;
    if (Number.isNaN(size)) throw new TypeError(`upload file '${file.filename}' has neither path nor data`);
    const header = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename=${quoted(file.filename)}\r\nContent-Type: application/octet-stream\r\n\r\n`);
    planned.push({ file, size, header });
  }
  const tail = Buffer.from(`--${boundary}--\r\n`);
  const length = preamble.length + planned.reduce((n, p) => n + p.header.length + p.size + 2, 0) + tail.length;
  return { contentType: `multipart/form-data; boundary=${boundary}`, length, preamble, planned, tail };
}

const CRLF = Buffer.from('\r\n');

async function readWhole(path: string, size: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(size);
    let offset = 0;
    while (offset < size) {
      const { bytesRead } = await handle.read(buffer, offset, size - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    // One more byte would mean the file grew since it was sized.
    const { bytesRead: extra } = await handle.read(Buffer.alloc(1), 0, 1, size);
    if (offset !== size || extra !== 0) throw new Error(`${path} changed size while being uploaded`);
    return buffer;
  } finally {
    await handle.close();
  }
}

/** The body, streamed: small parts coalesced, large files in 1 MiB chunks. */
async function* bodyChunks(layout: Awaited<ReturnType<typeof plan>>): AsyncGenerator<Buffer, void, undefined> {
  let pending: Buffer[] = [layout.preamble];
  let pendingBytes = layout.preamble.length;
  const flush = (): Buffer => {
    const out = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    return out;
  };
  const push = (chunk: Buffer) => {
    pending.push(chunk);
    pendingBytes += chunk.length;
  };
  for (const { file, size, header } of layout.planned) {
    push(header);
    if (file.data !== undefined) {
      push(Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength));
    } else if (size <= SMALL_FILE) {
      push(await readWhole(file.path ?? '', size));
    } else {
      yield flush();
      let read = 0;
      for await (const chunk of createReadStream(file.path ?? '', { highWaterMark: CHUNK }) as AsyncIterable<Buffer>) {
        read += chunk.length;
        if (read > size) throw new Error(`${file.path ?? ''} changed size while being uploaded`);
        yield chunk;
      }
      if (read !== size) throw new Error(`${file.path ?? ''} changed size while being uploaded`);
    }
    push(CRLF);
    if (pendingBytes >= COALESCE) yield flush();
  }
  push(layout.tail);
  yield flush();
}

/**
 * Sends one upload request (see the module comment). Returns the bulk result; throws the
 * CatalogError of the answer (4xx, maintenance 503) or `unavailable` once retries are used up.
 */
export async function uploadOverHttp(transport: UploadTransport, definitions: unknown[], files: readonly UploadFile[]): Promise<BulkWriteResult> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (transport.token) headers.authorization = `Bearer ${transport.token}`;
  for (let attempt = 0; ; attempt++) {
    const layout = await plan(definitions, files);
    let response: Dispatcher.ResponseData;
    try {
      response = await transport.pool.request({
        method: 'POST',
        path: `${transport.basePath}${ROUTES.images}`,
        headers: { ...headers, 'content-type': layout.contentType, 'content-length': String(layout.length) },
        // undici accepts an AsyncIterable body (documented; its typings lag): measurably cheaper than
        // wrapping the generator in a Readable.
        body: bodyChunks(layout) as unknown as Readable,
      });
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (RETRY_ERRORS.has(code) && attempt < transport.retries) {
        await sleep(transport.backoffMs * 2 ** attempt);
        continue;
      }
      if (RETRY_ERRORS.has(code) || code.startsWith('UND_ERR')) {
        throw new CatalogError('unavailable', `cannot reach ${transport.origin}: ${(error as Error).message}`);
      }
      throw error;
    }
    const text = await response.body.text();
    if (response.statusCode < 400) return JSON.parse(text) as BulkWriteResult;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { detail: text.slice(0, 500) || `HTTP ${response.statusCode}` };
    }
    const failure = fromProblem(response.statusCode, parsed);
    // Maintenance is told by its exact detail: codeForStatus maps every bare 503 to 'maintenance'.
    if (RETRY_STATUSES.has(response.statusCode) && failure.detail !== MAINTENANCE_DETAIL && attempt < transport.retries) {
      await sleep(retryAfterMs(response.headers['retry-after']) ?? transport.backoffMs * 2 ** attempt);
      continue;
    }
    throw failure;
  }
}
