/**
 * `catalog backup --verify-dump FILE` on the built CLI (docs/deploy.md "Backup and restore"): a
 * pg_dump of a catalog on PostgreSQL (plain SQL and custom format) checked against its S3 bucket
 * (the s3rver test server): every original the dump's images reference is there with its size →
 * exit 0; one deleted or rewritten → exit 3 naming it; no file, not a catalog dump, a custom dump
 * without pg_restore → exit 2. Skipped, loudly (test/services), without PostgreSQL or the S3 server.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, catalogSync, ROOT } from '../helpers/bin.js';
import { createTestDatabase, postgresAvailable, s3Available, s3Server } from '../services/services.js';

const IMAGES = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'images');
const PG_BIN = '/usr/lib/postgresql/15/bin';
const available = postgresAvailable() && s3Available();

interface Report {
  images: number;
  blobs: number;
  present: number;
  missing: number;
  wrongSize: number;
  problems: { sha256: string; problem: string; expectedSize: number; actualSize?: number }[];
}

describe.skipIf(!available)('catalog backup --verify-dump: a pg_dump against its bucket', () => {
  let dir = '';
  let url = '';
  let prefix = '';
  let s3Env: Record<string, string> = {};
  let s3: S3Client;
  let at: string[] = [];
  const sha = (file: string) => createHash('sha256').update(readFileSync(join(IMAGES, file))).digest('hex');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'verify-dump-'));
    const server = s3Server();
    s3Env = { AWS_ENDPOINT_URL_S3: server.endpoint, AWS_REGION: server.region, AWS_ACCESS_KEY_ID: server.accessKeyId, AWS_SECRET_ACCESS_KEY: server.secretAccessKey };
    s3 = new S3Client({ endpoint: server.endpoint, region: server.region, forcePathStyle: true, credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey } });
    url = await createTestDatabase('vdump');
    prefix = `vdump-${randomBytes(4).toString('hex')}`;
    writeFileSync(join(dir, 'horse-again.jpg'), readFileSync(join(IMAGES, 'horse.jpg')));
    at = ['--database-url', url, '--blob-url', `s3://${server.bucket}/${prefix}`, '--data-dir', join(dir, 'unused')];
    for (const args of [
      ['attributes', 'import', join(ROOT, 'fixtures', 'attributes.csv')],
      ['parts', 'import', join(ROOT, 'fixtures', 'parts.csv')],
      ['images', 'upload', join(IMAGES, 'horse.jpg'), join(IMAGES, 'banana.jpg'), '--part', 'pci:8086:1539', '--info', 'display'],
      // The same original on a second part: one blob, two images.
      ['images', 'upload', join(dir, 'horse-again.jpg'), '--part', 'pci:8086:15b8', '--info', 'display'],
    ]) {
      const run = catalogSync([...at, ...args], s3Env);
      expect(run.code, `${args.join(' ')}\n${run.stderr}`).toBe(0);
    }
    for (const [format, file] of [['p', 'catalog.sql'], ['c', 'catalog.dump']]) {
      const dump = spawnSync(join(PG_BIN, 'pg_dump'), ['-F', format!, '-f', join(dir, file!), url], { encoding: 'utf8' });
      expect(dump.status, dump.stderr).toBe(0);
    }
  });
  afterAll(() => {
    s3?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `catalog backup --verify-dump <dump> -o json` with pg_restore on PATH. */
  function verify(dump: string, path = `${PG_BIN}:${process.env.PATH ?? ''}`) {
    const run = spawnSync(process.execPath, [BIN, ...at, 'backup', '--verify-dump', dump, '-o', 'json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...s3Env, CI: '1', NO_COLOR: '1', PATH: path } });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr, report: () => JSON.parse(run.stdout) as Report };
  }

  it('passes a dump whose originals are all in the bucket, plain and custom format', () => {
    for (const file of ['catalog.sql', 'catalog.dump']) {
      const run = verify(join(dir, file));
      expect(run.code, run.stderr).toBe(0);
      expect(run.report()).toEqual({ images: 3, blobs: 2, present: 2, missing: 0, wrongSize: 0, problems: [] });
      expect(run.stderr).toContain('3 images, 2 originals: all 2 in s3://');
    }
  });

  it('exits 3 naming an original deleted from the bucket, or rewritten with another size', async () => {
    const banana = sha('banana.jpg');
    const horse = sha('horse.jpg');
    await s3.send(new DeleteObjectCommand({ Bucket: s3Server().bucket, Key: `${prefix}/blobs/${banana}` }));
    await s3.send(new PutObjectCommand({ Bucket: s3Server().bucket, Key: `${prefix}/blobs/${horse}`, Body: Buffer.from('not the horse') }));
    for (const file of ['catalog.sql', 'catalog.dump']) {
      const run = verify(join(dir, file));
      expect(run.code, run.stderr).toBe(3);
      const report = run.report();
      expect(report).toMatchObject({ images: 3, blobs: 2, present: 0, missing: 1, wrongSize: 1 });
      expect(report.problems).toEqual(expect.arrayContaining([
        { sha256: banana, problem: 'missing', expectedSize: readFileSync(join(IMAGES, 'banana.jpg')).length },
        { sha256: horse, problem: 'wrong_size', expectedSize: readFileSync(join(IMAGES, 'horse.jpg')).length, actualSize: 13 },
      ]));
      expect(run.stderr).toContain(`missing: ${banana}`);
      expect(run.stderr).toContain(horse);
      expect(run.stderr).toContain('1 missing, 1 with another size');
    }
  });

  it('refuses, as usage errors, no file, a file that is not a catalog dump, a custom dump without pg_restore, and no <dir>', () => {
    const none = verify(join(dir, 'nope.sql'));
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('nope.sql');

    writeFileSync(join(dir, 'other.sql'), '--\n-- PostgreSQL database dump\n--\nCREATE TABLE public.things (id integer);\nCOPY public.things (id) FROM stdin;\n1\n\\.\n');
    const other = verify(join(dir, 'other.sql'));
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('not a dump of a catalog');

    const noRestore = verify(join(dir, 'catalog.dump'), join(dir, 'no-bin'));
    expect(noRestore.code, noRestore.stderr).toBe(2);
    expect(noRestore.stderr).toContain('pg_restore');

    const noDir = catalogSync([...at, 'backup'], s3Env);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain('--verify-dump');
  });
});
