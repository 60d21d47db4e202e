import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FLUSH_INTERVAL_MS, openAccessLog } from './access-log.js';

/** Reads `path` until `predicate` holds or `ms` pass; returns the last contents. */
async function readUntil(path: string, predicate: (text: string) => boolean, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  let text = '';
  while (Date.now() < deadline) {
    text = readFileSync(path, 'utf8');
    if (predicate(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return text;
}

describe('access log (catalog serve --access-log)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'access-log-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a lone line on a quiet server reaches the file without waiting for its batch to fill or for close', async () => {
    const path = join(dir, 'access.log');
    const log = openAccessLog(path, () => undefined);
    log.write('one quiet request\n');
    const text = await readUntil(path, (t) => t.includes('one quiet request'), FLUSH_INTERVAL_MS * 10);
    expect(text).toBe('one quiet request\n');
    await log.close();
  });

  it('the last lines of a burst follow its first batch without another line or close', async () => {
    const path = join(dir, 'access.log');
    const log = openAccessLog(path, () => undefined);
    // ~8.9 KB: the first 8 KiB go out at once, the last dozen lines wait for a write of their own.
    const lines = Array.from({ length: 160 }, (_, i) => `request ${String(i).padStart(4, '0')} ${'x'.repeat(40)}\n`);
    for (const line of lines) log.write(line);
    const text = await readUntil(path, (t) => t.split('\n').length - 1 === lines.length, FLUSH_INTERVAL_MS * 10);
    expect(text).toBe(lines.join(''));
    await log.close();
  });

  it('close writes out every line still waiting, in order', async () => {
    const path = join(dir, 'access.log');
    const log = openAccessLog(path, () => undefined);
    const lines = Array.from({ length: 1000 }, (_, i) => `GET /1/catalog/parts/p${i} 200\n`);
    for (const line of lines) log.write(line);
    await log.close();
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
  });
});
