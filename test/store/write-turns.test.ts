/**
 * `catalog serve`'s main thread and its writer thread take turns at catalog.db's write lock
 * (adapters/sqlite/write-turns.ts): a main-thread write (image metadata, the webhook outbox, tokens)
 * that comes while the writer's task holds the lock waits for its turn without blocking the event
 * loop (SQLite's busy handler blocked the thread and slept between tries), and turns are served in
 * the order they were asked for.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { openSqliteStores, type SqliteStores } from '../../src/adapters/sqlite/stores.js';
import { systemClock } from '../../src/adapters/system.js';
import { WriteTurns } from '../../src/adapters/sqlite/write-turns.js';
import { tempDir } from '../helpers/harness.js';

describe("the main thread's writes to catalog.db take turns with the writer thread", () => {
  let stores: SqliteStores;
  let writerConnection: SqliteDatabase;
  const buffer = WriteTurns.newBuffer();
  beforeAll(() => {
    const dataDir = tempDir('catalog-write-turns-');
    stores = openSqliteStores({ dataDir, clock: systemClock(), catalogWriteTurns: buffer });
    // The writer thread's connection, and its turns (the same buffer).
    writerConnection = openConnection(join(dataDir, 'catalog.db'));
    writerConnection.pragma('busy_timeout = 30000');
  });
  afterAll(async () => {
    writerConnection?.close();
    await stores?.close();
  });

  it('waits for the writer task in progress with its event loop turning, then runs before the tasks asked for after it', async () => {
    const writer = new WriteTurns(buffer);
    const order: string[] = [];
    let endTask = () => undefined as void;
    const taskEnds = new Promise<void>((resolve) => (endTask = resolve));
    // A writer task holding catalog.db's write lock until the test lets it end.
    const task = writer.run(async () => {
      writerConnection.exec('BEGIN IMMEDIATE');
      order.push('writer task');
      await taskEnds;
      writerConnection.exec('COMMIT');
    });
    const webhook = { webhook_id: 'erp', url: 'https://erp.example.com/hook', secret: 's', types: null, createdAt: 1 };
    const mainWrite = stores.webhooks.addWebhook(webhook).then((added) => order.push(`main write ${added}`));
    const nextTask = writer.run(() => order.push('next writer task'));
    // The event loop turns while the main thread's write waits (no busy handler blocking it).
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['writer task']);
    expect(writer.waiting()).toBe(3);
    endTask();
    await Promise.all([task, mainWrite, nextTask]);
    expect(order).toEqual(['writer task', 'main write true', 'next writer task']);
    expect(writer.waiting()).toBe(0);
    expect((await stores.webhooks.listWebhooks()).map((w) => w.webhook_id)).toEqual(['erp']);
  });

  it('a webhook round with nothing due takes no write lock', async () => {
    writerConnection.exec('BEGIN IMMEDIATE');
    try {
      // Another connection holds SQLite's lock (no turn taken): a round with nothing due does not ask for it.
      expect(await stores.webhooks.claimDeliveries(Date.now() * 1000, Date.now() * 1000, 10)).toEqual([]);
    } finally {
      writerConnection.exec('COMMIT');
    }
  });

  it('a setting written in a turn is read back after a method outside the turns wrote (the store keeps one cache)', async () => {
    const catalog = stores.catalog;
    await catalog.setSetting('write-turns-test', 'one');
    expect(await catalog.getSetting('write-turns-test')).toBe('one');
    // touchToken is not one of the turn-taking methods and counts a write of its own.
    await catalog.touchToken('no-such-token', 1, 0);
    expect(await catalog.getSetting('write-turns-test')).toBe('one');
    await catalog.setSetting('write-turns-test', 'two');
    expect(await catalog.getSetting('write-turns-test')).toBe('two');
  });
});
