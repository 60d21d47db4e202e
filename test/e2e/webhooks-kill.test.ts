/**
 * Webhooks survive a crash (docs/api.md "Webhooks"): a receiver on loopback gets every change
 * exactly once per change number (it deduplicates by the Catalog-Change header, as documented)
 * although the server was killed with SIGKILL in the middle of a delivery; the delivery in flight
 * is sent again by the next server (at least once), every body signed.
 */
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { catalogSpawn, catalogSync, exited, startServe } from '../helpers/bin.js';
import { tempDir } from '../helpers/harness.js';

const SECRET = 'whsec_test_0123456789abcdef';

function verified(header: string | undefined, body: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  return m !== null && createHmac('sha256', SECRET).update(`${m[1]}.${body}`).digest('hex') === m[2];
}

describe('webhooks after kill -9', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('delivers every change exactly once per change number after a server kill -9 mid-delivery', async () => {
    const dir = tempDir();
    const dataDir = join(dir, 'data');
    const received: { change: number; body: Record<string, unknown>; signed: boolean }[] = [];
    const processed = new Map<number, Record<string, unknown>>();
    const held: ServerResponse[] = [];
    let hungOn: number | undefined;
    const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => {
        const change = Number(req.headers['catalog-change']);
        received.push({ change, body: JSON.parse(raw) as Record<string, unknown>, signed: verified(req.headers['catalog-signature'] as string | undefined, raw) });
        if (hungOn === undefined) {
          // The first delivery never gets an answer: the server dies while it waits.
          hungOn = change;
          held.push(res);
          return;
        }
        if (!processed.has(change)) processed.set(change, JSON.parse(raw) as Record<string, unknown>);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => receiver.close(() => r())));
    const port = (receiver.address() as { port: number }).port;
    cleanups.push(() => {
      for (const res of held) res.destroy();
    });

    expect(catalogSync(['--data-dir', dataDir, 'tokens', 'create', '--name', 'admin', '--role', 'catalogAdmin']).code).toBe(0);
    writeFileSync(join(dir, 'secret'), SECRET);
    const added = catalogSync(['--data-dir', dataDir, 'webhooks', 'add', 'hook', `http://127.0.0.1:${port}/hook`, '--secret-file', join(dir, 'secret')]);
    expect(added.code, added.stderr).toBe(0);
    writeFileSync(join(dir, 'parts.ndjson'), ['a', 'b', 'c', 'd', 'e'].map((id) => JSON.stringify({ part_id: id, name: { en: id } })).join('\n'));
    expect(catalogSync(['--data-dir', dataDir, 'parts', 'import', join(dir, 'parts.ndjson')]).code).toBe(0);

    const first = await startServeWithTimeout(dataDir);
    await vi.waitFor(() => expect(hungOn).toBeDefined(), { timeout: 20_000, interval: 50 });
    first.kill('SIGKILL');
    await exited(first);

    // More writes while no server runs, then a new server.
    writeFileSync(join(dir, 'more.ndjson'), ['a', 'f'].map((id) => JSON.stringify({ part_id: id, name: { en: `${id} again` } })).join('\n'));
    expect((await catalogAsync(['--data-dir', dataDir, 'parts', 'import', join(dir, 'more.ndjson')])).code).toBe(0);
    expect((await catalogAsync(['--data-dir', dataDir, 'parts', 'delete', 'e'])).code).toBe(0);
    const second = await startServeWithTimeout(dataDir);
    cleanups.push(async () => {
      second.kill('SIGTERM');
      await exited(second);
    });

    const feed = JSON.parse((await catalogAsync(['--data-dir', dataDir, '-o', 'json', 'changes'])).stdout) as { change: number; type: string; op: string; id: string }[];
    expect(feed.map((c) => `${c.op} ${c.id}`)).toEqual(['upsert a', 'upsert b', 'upsert c', 'upsert d', 'upsert e', 'upsert a', 'upsert f', 'delete e']);
    await vi.waitFor(() => expect([...processed.keys()].sort((x, y) => x - y)).toEqual(feed.map((c) => c.change)), { timeout: 30_000, interval: 100 });
    // Each processed body is its change, once per number; the hung one came again (at least once).
    for (const c of feed) expect(processed.get(c.change)).toMatchObject({ webhook_id: 'hook', change: c.change, type: c.type, op: c.op, id: c.id });
    expect(received.filter((r) => r.change === hungOn).length).toBeGreaterThanOrEqual(2);
    expect(received.every((r) => r.signed)).toBe(true);
    // The log says so too, once the last answer is recorded.
    await vi.waitFor(async () => {
      const log = JSON.parse((await catalogAsync(['--data-dir', dataDir, '-o', 'json', 'webhooks', 'deliveries', 'hook'])).stdout) as { change: number; outcome: string }[];
      expect(new Set(log.filter((d) => d.outcome === 'delivered').map((d) => d.change)), JSON.stringify(log)).toEqual(new Set(feed.map((c) => c.change)));
    }, { timeout: 20_000, interval: 200 });
  }, 120_000);
});

/**
 * Runs the CLI without blocking this process's event loop: the receiver lives here and must
 * answer while the CLI runs (catalogSync would stall it past the webhook timeout).
 */
async function catalogAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = catalogSpawn(args);
  const { code } = await exited(child);
  return { code, ...child.output() };
}

/** `catalog serve` with a 3 s webhook timeout (a killed server's delivery in flight is due again after 6 s). */
async function startServeWithTimeout(dataDir: string) {
  const { child } = await startServe(dataDir, ['--webhook-timeout', '3000', '--readers', '0']);
  return child;
}
