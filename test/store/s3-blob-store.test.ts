/**
 * The BlobStore contract (store-contract.ts) against the S3 BlobStore on a real S3 wire server
 * (s3rver, started by test/services/global-setup.ts) through the AWS SDK v3, a fresh key prefix
 * per test; plus what only the object store does: streamed multipart uploads, and no object left
 * behind by a refused or failed streamed put. Skipped, loudly, when the S3 server is absent.
 */
import { randomBytes, createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { parseS3Url, S3BlobStore } from '../../src/adapters/blobs/s3-blob-store.js';
import { s3Available, s3Server } from '../services/services.js';
import { describeBlobStoreContract } from './store-contract.js';

const available = s3Available();

function client(): S3Client {
  const s3 = s3Server();
  return new S3Client({
    endpoint: s3.endpoint, region: s3.region, forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

function freshStore(): { store: S3BlobStore; prefix: string } {
  const prefix = `t-${randomBytes(6).toString('hex')}`;
  return { store: new S3BlobStore(parseS3Url(`s3://${s3Server().bucket}/${prefix}`), client()), prefix };
}

async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await client().send(new ListObjectsV2Command({ Bucket: s3Server().bucket, Prefix: `${prefix}/` }));
  return (listed.Contents ?? []).map((o) => o.Key ?? '');
}

describe.skipIf(!available)('S3 BlobStore', () => {
  describeBlobStoreContract('S3 (s3rver)', async () => {
    const { store } = freshStore();
    return { blobs: store, cleanup: async () => store.client.destroy() };
  });

  it('parses s3:// URLs', () => {
    expect(parseS3Url('s3://bucket')).toEqual({ bucket: 'bucket', prefix: '' });
    expect(parseS3Url('s3://bucket/a/b/')).toEqual({ bucket: 'bucket', prefix: 'a/b/' });
    expect(() => parseS3Url('https://bucket/x')).toThrow(TypeError);
  });

  it('streams a large upload in parts and stores it under its hash, with no temp object left', async () => {
    const { store, prefix } = freshStore();
    const chunk = randomBytes(1024 * 1024);
    const chunks = Array.from({ length: 10 }, (_, i) => Buffer.concat([chunk.subarray(0, chunk.length - 1), Buffer.from([i])]));
    const expected = createHash('sha256').update(Buffer.concat(chunks)).digest('hex');
    const put = await store.put(Readable.from(chunks));
    expect(put.sha256).toBe(expected);
    expect(put.size).toBe(10 * 1024 * 1024);
    expect(Buffer.from(put.head)).toEqual(chunks[0]!.subarray(0, 64));
    expect(createHash('sha256').update((await store.read(expected)) ?? Buffer.alloc(0)).digest('hex')).toBe(expected);
    expect(await keysUnder(prefix)).toEqual([`${prefix}/blobs/${expected}`]);
    store.client.destroy();
  });

  it('leaves nothing behind when a streamed put is too large or its source fails', async () => {
    const { store, prefix } = freshStore();
    await expect(store.put(Readable.from([Buffer.alloc(3), Buffer.alloc(3)]), { maxBytes: 4 })).rejects.toMatchObject({ name: 'BlobTooLargeError' });
    async function* failing() {
      yield new Uint8Array(10);
      throw new Error('client went away');
    }
    await expect(store.put(failing())).rejects.toThrow('client went away');
    expect(await keysUnder(prefix)).toEqual([]);
    expect(store.localPath()).toBeUndefined();
    store.client.destroy();
  });

  it('touches a blob a put deduplicates onto, so a sweep with a grace period keeps it (several servers share the bucket)', async () => {
    const { store } = freshStore();
    const bytes = randomBytes(4096);
    const streamed = Buffer.concat([randomBytes(2048), Buffer.from('streamed')]);
    const first = await store.put(bytes);
    const second = await store.put(Readable.from([streamed]));
    // Older than the grace period below (S3 times have one-second resolution)...
    await new Promise((resolve) => setTimeout(resolve, 2100));
    // ... then an upload on another server stores the same contents again, and has not committed yet.
    expect((await store.put(bytes)).sha256).toBe(first.sha256);
    expect((await store.put(Readable.from([streamed]))).sha256).toBe(second.sha256);
    const swept = await store.sweep(() => false, { minAgeMs: 2000 });
    expect(swept.orphansRemoved).toBe(0);
    expect(await store.has(first.sha256)).toBe(true);
    expect(await store.has(second.sha256)).toBe(true);
    store.client.destroy();
  });
});
