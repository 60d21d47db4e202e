/**
 * `catalog migrate --to postgres://… --blob-url s3://…` (docs/deploy.md, "Moving a local
 * catalog") on the built CLI: a local catalog made with the CLI is copied into a fresh PostgreSQL
 * database and an S3 prefix (s3rver), and then reads the same through --database-url/--blob-url,
 * keeps its identity, and takes its old tokens; a non-empty target is refused; an interrupted copy
 * (SIGINT, SIGKILL) continues when run again, and ends verified with nothing duplicated or missing.
 * Skipped, loudly (test/services), without PostgreSQL or the S3 server.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpCatalogClient } from '../../src/client/http-client.js';
import { catalogSpawn, exited, ROOT } from '../helpers/bin.js';
import { cli } from '../helpers/cli.js';
import { createTestDatabase, postgresAvailable, s3Available, s3Server } from '../services/services.js';

const IMAGES = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'images');
const available = postgresAvailable() && s3Available();

describe.skipIf(!available)('catalog migrate into PostgreSQL and S3', () => {
  let dir = '';
  let s3Env: Record<string, string> = {};
  const blobUrl = () => `s3://${s3Server().bucket}/migrate-${randomBytes(4).toString('hex')}`;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'migrate-'));
    const s3 = s3Server();
    s3Env = { AWS_ENDPOINT_URL_S3: s3.endpoint, AWS_REGION: s3.region, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey };
    // The AWS SDK reads its settings from the process environment, not the CLI's: this file's
    // process is its own (vitest project e2e).
    Object.assign(process.env, s3Env);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** `catalog <args>` in-process (the same code as the built CLI) with the S3 settings. */
  const run = (args: string[]) => cli(args, { cwd: dir, env: s3Env });
  /** The same, asserting exit 0. */
  async function ok(args: string[]): Promise<string> {
    const result = await run(args);
    expect(result.code, `catalog ${args.join(' ')}\n${result.stderr}`).toBe(0);
    return result.stdout;
  }

  it('copies every kind of data, keeps the identity and the tokens, and reads the same afterwards', async () => {
    const local = join(dir, 'full');
    const at = ['--data-dir', local];
    await ok([...at, 'attributes', 'import', join(ROOT, 'fixtures', 'attributes.csv')]);
    await ok([...at, 'parts', 'import', join(ROOT, 'fixtures', 'parts.csv')]);
    await ok([...at, 'relations', 'import', join(ROOT, 'fixtures', 'relations.csv')]);
    await ok([...at, 'images', 'upload', join(IMAGES, 'horse.jpg'), join(IMAGES, 'banana.jpg'), '--part', 'pci:8086:1539', '--info', 'searchable display']);
    const token = (await ok([...at, 'tokens', 'create', '--name', 'admin', '--role', 'catalogAdmin'])).trim();
    const dumps = async (where: string[]) => {
      const out: string[] = [];
      for (const noun of ['attributes', 'parts', 'relations', 'images']) out.push(await ok([...where, noun, 'list', '-o', 'json']));
      return out;
    };
    const before = await dumps(at);
    const info = JSON.parse(await ok([...at, 'tokens', 'list', '-o', 'json'])) as unknown;

    const url = await createTestDatabase('migrate');
    const blobs = blobUrl();
    const migrated = await run([...at, 'migrate', '--to', url, '--blob-url', blobs, '-o', 'json']);
    expect(migrated.code, migrated.stderr).toBe(0);
    const summary = JSON.parse(migrated.stdout) as { catalogId: string; counts: Record<string, number>; differences: unknown[] };
    expect(summary.differences).toEqual([]);
    expect(summary.counts).toMatchObject({ parts: 5, images: 2, relations: 2, tokens: 1 });
    expect(migrated.stderr).toContain('verified');
    expect(migrated.stderr).not.toContain(token);

    const target = ['--database-url', url, '--blob-url', blobs, '--data-dir', join(dir, 'unused')];
    expect(await dumps(target)).toEqual(before);
    expect(JSON.parse(await ok([...target, 'tokens', 'list', '-o', 'json']))).toEqual(info);
    // The moved catalog keeps its identity, its maintenance state (off), its originals and its
    // tokens: a server on it accepts the token made locally and serves the original from S3.
    const server = catalogSpawn([...target, 'serve', '--port', '0'], s3Env);
    try {
      const serverUrl = await new Promise<string>((resolve, reject) => {
        server.stderr?.on('data', () => {
          const m = /at (http:\/\/\S+)/.exec(server.output().stderr);
          if (m?.[1]) resolve(m[1]);
        });
        server.once('exit', (code) => reject(new Error(`serve exited ${code}: ${server.output().stderr}`)));
      });
      const client = new HttpCatalogClient({ url: serverUrl, token, retries: 0 });
      expect((await client.getCatalogInfo()).catalogId).toBe(summary.catalogId);
      expect((await client.getMaintenance()).enabled).toBe(false);
      const download = await client.downloadImage('horse');
      const chunks: Buffer[] = [];
      for await (const chunk of download.stream) chunks.push(Buffer.from(chunk as Uint8Array));
      expect(Buffer.concat(chunks).equals(readFileSync(join(IMAGES, 'horse.jpg')))).toBe(true);
      const found = await client.search({ resultOptions: { limit: 1 } }, { image: readFileSync(join(IMAGES, 'banana.jpg')), filename: 'q.jpg' });
      expect(found.results[0]?.id).toBe('pci:8086:1539');
      await client.close();
    } finally {
      server.kill('SIGTERM');
      await exited(server);
    }

    // Another catalog into the same (now non-empty) target is refused, with nothing written.
    const other = join(dir, 'other');
    await ok(['--data-dir', other, 'attributes', 'import', join(ROOT, 'fixtures', 'attributes.csv')]);
    const refused = await run(['--data-dir', other, 'migrate', '--to', url, '--blob-url', blobs]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('migration of another catalog');
    // The same catalog again: verified again, nothing duplicated.
    const again = await run([...at, 'migrate', '--to', url, '--blob-url', blobs, '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { resumed: boolean }).resumed).toBe(true);
    // A target changed behind its back fails verification, naming what differs (exit 1); the
    // next run copies again and verifies.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query("UPDATE parts SET name = '{\"en\":\"tampered\"}' WHERE part_id = 'pci:8086:15b8'");
    await db.end();
    const tampered = await run([...at, 'migrate', '--to', url, '--blob-url', blobs]);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain("parts: content differs, first at 'pci:8086:15b8'");
    const repaired = await run([...at, 'migrate', '--to', url, '--blob-url', blobs]);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(await dumps(target)).toEqual(before);
  });

  it('refuses a target that holds another catalog', async () => {
    const url = await createTestDatabase('migrate');
    await ok(['--database-url', url, '--data-dir', join(dir, 'unused2'), 'attributes', 'import', join(ROOT, 'fixtures', 'attributes.csv')]);
    await ok(['--database-url', url, '--data-dir', join(dir, 'unused2'), 'parts', 'import', join(ROOT, 'fixtures', 'parts.csv')]);
    const local = join(dir, 'small');
    await ok(['--data-dir', local, 'attributes', 'import', join(ROOT, 'fixtures', 'attributes.csv')]);
    const refused = await run(['--data-dir', local, 'migrate', '--to', url]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not empty \(it holds .*parts/);
  });

  it('continues an interrupted copy (SIGINT, then SIGKILL) without duplicating or skipping', async () => {
    const local = join(dir, 'big');
    const count = 1200;
    const file = join(dir, 'big.ndjson');
    writeFileSync(file, Array.from({ length: count }, (_, i) => JSON.stringify({ part_id: `big-${String(i).padStart(5, '0')}`, name: { en: `Big part ${i}` } })).join('\n') + '\n');
    await ok(['--data-dir', local, 'parts', 'import', file]);
    const url = await createTestDatabase('migrate');
    const blobs = blobUrl();
    const args = ['--data-dir', local, 'migrate', '--to', url, '--blob-url', blobs, '--batch-size', '20'];
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    /** Parts copied so far, from the position the migration saved. */
    const copied = async (): Promise<number> => {
      const row = await db.query<{ value: string }>("SELECT value FROM settings WHERE key = 'migration'").catch(() => ({ rows: [] as { value: string }[] }));
      const state = row.rows[0] ? (JSON.parse(row.rows[0].value) as { phase: string; done: number }) : undefined;
      return state?.phase === 'parts' ? state.done : 0;
    };
    const interruptWhenCopying = async (signal: NodeJS.Signals, atLeast: number) => {
      const child = catalogSpawn(args, s3Env);
      for (;;) {
        if ((await copied()) >= atLeast || child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill(signal);
      return { ...(await exited(child)), ...child.output() };
    };
    try {
      const first = await interruptWhenCopying('SIGINT', 200);
      expect(first.code, first.stderr).toBe(130);
      expect(first.stderr).toContain('Continue with');
      expect(first.stderr).toContain('catalog --data-dir');
      const afterInt = await copied();
      expect(afterInt).toBeGreaterThanOrEqual(200);
      expect(afterInt).toBeLessThan(count);
      const second = await interruptWhenCopying('SIGKILL', afterInt + 200);
      expect(second.signal).toBe('SIGKILL');
      const last = await run(args);
      expect(last.code, last.stderr).toBe(0);
      expect(last.stderr).toContain('continued and migrated');
      const parts = await db.query<{ n: number; d: number }>('SELECT count(*)::int AS n, count(DISTINCT part_id)::int AS d FROM parts');
      expect(parts.rows[0]).toEqual({ n: count, d: count });
    } finally {
      await db.end();
    }
  });
});
