/**
 * A PostgreSQL connection error does not end `catalog serve` (docs/deploy.md, "When PostgreSQL goes
 * away"): the built CLI serves a PostgreSQL catalog while searches and writes run; every connection
 * the catalog holds is terminated (pg_terminate_backend), twice. The process stays up, every answer
 * meanwhile is 200 or 503 with Retry-After (never 500), and it serves again afterwards. Skipped,
 * loudly (test/services), without PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSpawn, catalogSync, exited } from '../helpers/bin.js';
import { createTestDatabase, postgresAvailable } from '../services/services.js';

describe.skipIf(!postgresAvailable())('catalog serve on PostgreSQL when its connections are terminated', () => {
  let env: Record<string, string> = {};
  let dataDir = '';
  let databaseUrl = '';
  let token = '';
  let child: ReturnType<typeof catalogSpawn>;
  let url = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pg-hiccup-'));
    databaseUrl = await createTestDatabase('hiccup');
    env = { CATALOG_DATABASE_URL: databaseUrl, CATALOG_DATA_DIR: dataDir };
    const created = catalogSync(['tokens', 'create', '--name', 'admin', '--role', 'catalogAdmin'], env);
    expect(created.code, created.stderr).toBe(0);
    token = created.stdout.trim();
    child = catalogSpawn(['serve', '--port', '0'], env);
    url = await new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', () => {
        const m = /at (http:\/\/\S+)/.exec(child.output().stderr);
        if (m?.[1]) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${child.output().stderr}`)));
    });
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited(child);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; retryAfter: string | null; text: string }> {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), text: await response.text() };
  }

  async function terminateCatalogConnections(): Promise<number> {
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ ok: boolean }>(
        'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      return rows.length;
    } finally {
      await admin.end();
    }
  }

  it('stays up, answers 503 with Retry-After (never 500) while connections die, and serves again', async () => {
    const seeded = await call('POST', '/1/catalog/parts', Array.from({ length: 50 }, (_, i) => ({ id: `p${i}`, name: `bolt ${i}` })));
    expect(seeded.status, seeded.text).toBe(200);
    const answers: { status: number; retryAfter: string | null; text: string }[] = [];
    let running = true;
    const load = Array.from({ length: 4 }, async (_, worker) => {
      for (let n = 0; running; n++) {
        const answer = worker % 2 === 0
          ? await call('POST', '/1/find/search', { matches: { text: 'bolt' } }).catch((error: Error) => ({ status: -1, retryAfter: null, text: error.message }))
          : await call('POST', '/1/catalog/parts', [{ id: `w${worker}-${n}`, name: `nut ${n}` }]).catch((error: Error) => ({ status: -1, retryAfter: null, text: error.message }));
        answers.push(answer);
      }
    });
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await terminateCatalogConnections();
      expect(child.exitCode, child.output().stderr).toBeNull();
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
    running = false;
    await Promise.all(load);
    expect(child.exitCode, child.output().stderr).toBeNull();
    const unexpected = answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.retryAfter !== null));
    expect(unexpected, JSON.stringify(unexpected.slice(0, 3))).toEqual([]);
    // Serving again: a search and a write succeed (within the pool's reconnect; no restart).
    let after = await call('POST', '/1/find/search', { matches: { text: 'bolt' } });
    for (let i = 0; i < 50 && after.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await call('POST', '/1/find/search', { matches: { text: 'bolt' } });
    }
    expect(after.status, after.text).toBe(200);
    expect((await call('POST', '/1/catalog/parts', [{ id: 'after', name: 'after' }])).status).toBe(200);
    expect(child.exitCode).toBeNull();
  });
});
