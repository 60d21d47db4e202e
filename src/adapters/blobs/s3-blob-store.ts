/**
 * {@link BlobStore} over S3-compatible object storage (docs/deploy.md): image originals
 * stored by SHA-256 in a bucket, through the AWS SDK for JavaScript v3.
 *
 * Layout under the configured prefix: `blobs/<sha256>` for stored blobs and `tmp/<random>` for
 * uploads in progress. A streamed put sends the bytes to a temp object while hashing them
 * (@aws-sdk/lib-storage: multipart above 8 MiB, so memory stays bounded), then copies it to its
 * content address on the server side and deletes the temp object; a Uint8Array put (its hash is
 * known up front) goes straight to its address. The durability rule is the file store's: `put`
 * resolves only after S3 acknowledged the complete object, so the object is stored before the
 * metadata that references it commits; temp objects left by a crash and orphaned blobs are removed
 * by {@link S3BlobStore.sweep}. No local files: `localPath` is undefined.
 */
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import {
  CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { BLOB_HEAD_BYTES, BlobTooLargeError, isSha256Hex } from '../../core/images/blobs.js';
import type { BlobPutResult, BlobStore, BlobSweepResult } from '../../core/ports.js';

/** Where blobs live: a bucket and a key prefix ('' or ending in '/'). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

/**
 * Parses `s3://bucket/optional/prefix` (the --blob-url setting). Throws a TypeError naming the
 * problem for anything else.
 */
export function parseS3Url(url: string): S3Location {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`not a URL: '${url}' (expected s3://bucket/prefix)`);
  }
  if (parsed.protocol !== 's3:' || parsed.hostname === '') throw new TypeError(`not an s3:// URL with a bucket: '${url}' (expected s3://bucket/prefix)`);
  const path = decodeURIComponent(parsed.pathname).replace(/^\/+/, '').replace(/\/+$/, '');
  return { bucket: parsed.hostname, prefix: path === '' ? '' : `${path}/` };
}

/**
 * The S3 client settings: endpoint, region and credentials come from the AWS SDK's standard
 * sources (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY, profiles, instance roles). With a custom endpoint (an S3-compatible
 * store) keys go in the path, not the host name. Checksums are sent only when S3 requires them
 * unless AWS_REQUEST_CHECKSUM_CALCULATION says otherwise: several S3-compatible servers reject the
 * SDK's default streaming checksum trailers.
 */
export function s3ClientConfigFromEnv(env: NodeJS.ProcessEnv = process.env): S3ClientConfig {
  const config: S3ClientConfig = {};
  if (env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL) config.forcePathStyle = true;
  if (!env.AWS_REQUEST_CHECKSUM_CALCULATION) config.requestChecksumCalculation = 'WHEN_REQUIRED';
  if (!env.AWS_RESPONSE_CHECKSUM_VALIDATION) config.responseChecksumValidation = 'WHEN_REQUIRED';
  return config;
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

function checkKey(sha256: string): void {
  if (!isSha256Hex(sha256)) throw new TypeError(`not a blob key (64 lowercase hex digits): ${JSON.stringify(sha256)}`);
}

/** Part size of multipart uploads (S3's minimum is 5 MiB). */
const PART_SIZE = 8 * 1024 * 1024;

/** The BlobStore on S3-compatible object storage. */
export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  /** Temp keys of puts running in this process (never swept). */
  private readonly inFlight = new Set<string>();

  constructor(location: S3Location, client: S3Client = new S3Client(s3ClientConfigFromEnv())) {
    this.client = client;
    this.bucket = location.bucket;
    this.prefix = location.prefix;
  }

  private blobKey(sha256: string): string {
    return `${this.prefix}blobs/${sha256}`;
  }

  async put(source: AsyncIterable<Uint8Array> | Uint8Array, options: { maxBytes?: number } = {}): Promise<BlobPutResult> {
    const max = options.maxBytes ?? Number.POSITIVE_INFINITY;
    if (source instanceof Uint8Array) {
      if (source.length > max) throw new BlobTooLargeError(max);
      const sha256 = createHash('sha256').update(source).digest('hex');
      if (!(await this.touch(sha256))) {
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.blobKey(sha256), Body: source, ContentLength: source.length }));
      }
      return { sha256, size: source.length, head: Uint8Array.from(source.subarray(0, BLOB_HEAD_BYTES)) };
    }
    const tempKey = `${this.prefix}tmp/${randomUUID()}`;
    this.inFlight.add(tempKey);
    const body = new PassThrough();
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: tempKey, Body: body }, partSize: PART_SIZE, queueSize: 2, leavePartsOnError: false });
    const done = upload.done();
    // Observed below; this keeps an early failure from being an unhandled rejection meanwhile.
    done.catch(() => undefined);
    const hash = createHash('sha256');
    const head: Buffer[] = [];
    let headBytes = 0;
    let size = 0;
    try {
      for await (const chunk of source) {
        size += chunk.length;
        if (size > max) throw new BlobTooLargeError(max);
        hash.update(chunk);
        if (headBytes < BLOB_HEAD_BYTES) {
          const piece = Buffer.from(chunk.subarray(0, BLOB_HEAD_BYTES - headBytes));
          head.push(piece);
          headBytes += piece.length;
        }
        // A copy: the producer may reuse its buffer once we ask for the next chunk.
        if (!body.write(Buffer.from(chunk))) await Promise.race([once(body, 'drain'), done]);
      }
      body.end();
      await done;
      const sha256 = hash.digest('hex');
      if (!(await this.touch(sha256))) {
        await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: this.blobKey(sha256), CopySource: `${this.bucket}/${encodeURIComponent(tempKey).replaceAll('%2F', '/')}` }));
      }
      await this.deleteKey(tempKey);
      return { sha256, size, head: new Uint8Array(Buffer.concat(head)) };
    } catch (error) {
      body.destroy();
      await upload.abort().catch(() => undefined);
      await this.deleteKey(tempKey).catch(() => undefined);
      throw error;
    } finally {
      this.inFlight.delete(tempKey);
    }
  }

  /**
   * Marks a stored blob as used now: a copy onto itself with the metadata `touched` = now (S3 also
   * renews its last-modified time); false when it is not stored. A put that finds its content already stored touches it, so a sweep with
   * a grace period (several servers: {@link sweep} with `minAgeMs`) never removes a blob that an
   * upload still in flight on any server has just deduplicated onto.
   */
  private async touch(sha256: string): Promise<boolean> {
    const key = this.blobKey(sha256);
    try {
      await this.client.send(new CopyObjectCommand({
        Bucket: this.bucket, Key: key, CopySource: `${this.bucket}/${encodeURIComponent(key).replaceAll('%2F', '/')}`,
        MetadataDirective: 'REPLACE', Metadata: { touched: String(Date.now()) },
      }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** The `touched` stamp of an object (ms since the epoch), 0 when it has none or is gone. */
  private async touchedAt(key: string): Promise<number> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      const touched = Number(head.Metadata?.touched ?? 0);
      return Number.isFinite(touched) ? touched : 0;
    } catch (error) {
      if (isNotFound(error)) return 0;
      throw error;
    }
  }

  async open(sha256: string): Promise<{ size: number; stream: NodeJS.ReadableStream } | undefined> {
    checkKey(sha256);
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.blobKey(sha256) }));
      return { size: got.ContentLength ?? 0, stream: got.Body as Readable };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async read(sha256: string): Promise<Buffer | undefined> {
    const opened = await this.open(sha256);
    if (!opened) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of opened.stream) chunks.push(Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  }

  async has(sha256: string): Promise<boolean> {
    checkKey(sha256);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.blobKey(sha256) }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** The stored size of a blob in bytes (a HEAD request: no bytes read); undefined when it is not stored. */
  async size(sha256: string): Promise<number | undefined> {
    checkKey(sha256);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.blobKey(sha256) }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async delete(sha256: string): Promise<void> {
    checkKey(sha256);
    await this.deleteKey(this.blobKey(sha256));
  }

  private async deleteKey(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** Every object under `prefix` with its last modification (ms since the epoch). */
  private async *list(prefix: string): AsyncIterable<{ key: string; modified: number }> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) yield { key: o.Key, modified: o.LastModified?.getTime() ?? 0 };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * Removes temp objects (not of puts running in this process) and blobs not in `referenced`,
   * both only when older than `minAgeMs` (S3 times have one-second resolution).
   */
  async sweep(referenced: (sha256: string) => boolean, options: { minAgeMs?: number } = {}): Promise<BlobSweepResult> {
    const cutoff = Date.now() - (options.minAgeMs ?? 0);
    const old = (modified: number) => (options.minAgeMs ?? 0) === 0 || modified <= cutoff;
    let tempFilesRemoved = 0;
    let orphansRemoved = 0;
    for await (const o of this.list(`${this.prefix}tmp/`)) {
      if (this.inFlight.has(o.key) || !old(o.modified)) continue;
      await this.deleteKey(o.key);
      tempFilesRemoved++;
    }
    const blobsPrefix = `${this.prefix}blobs/`;
    for await (const o of this.list(blobsPrefix)) {
      const sha = o.key.slice(blobsPrefix.length);
      if (!isSha256Hex(sha) || referenced(sha) || !old(o.modified)) continue;
      // A put that deduplicated onto this blob stamps `touched` (S3 itself renews the last-modified
      // time of a copy onto itself, not every S3-compatible server does): read it for the few orphans.
      if ((options.minAgeMs ?? 0) > 0 && !old(await this.touchedAt(o.key))) continue;
      await this.deleteKey(o.key);
      orphansRemoved++;
    }
    return { tempFilesRemoved, orphansRemoved };
  }

  localPath(): string | undefined {
    return undefined;
  }
}
