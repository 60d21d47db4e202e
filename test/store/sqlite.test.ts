/**
 * The store contract suite (store-contract.ts) against the SQLite adapter: in memory, and on disk
 * (where it also checks that every committed write survives a reopen).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileBlobStore } from '../../src/adapters/blobs/file-blob-store.js';
import { openSqliteStores } from '../../src/adapters/sqlite/stores.js';
import { systemClock } from '../../src/adapters/system.js';
import { describeStoreContract } from './store-contract.js';

describeStoreContract('SQLite in memory', async () => {
  const blobDir = mkdtempSync(join(tmpdir(), 'store-contract-blobs-'));
  return {
    stores: openSqliteStores({ dataDir: undefined, clock: systemClock() }),
    blobs: new FileBlobStore(blobDir),
    async cleanup() {
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
});

describeStoreContract('SQLite on disk', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'store-contract-'));
  const open = () => ({ stores: openSqliteStores({ dataDir: dir, clock: systemClock() }), blobs: new FileBlobStore(join(dir, 'images')) });
  return {
    ...open(),
    reopen: async () => open(),
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
