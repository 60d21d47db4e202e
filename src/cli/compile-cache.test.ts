/**
 * The CLI's code cache (issue 12, start-up): where it lives and when it is not used. That the built
 * CLI writes, reuses and prunes it is test/e2e/start-up-modules.test.ts.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheDirectory, contentKey, importEsModule, installCompileCache } from './compile-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'catalog-compile-cache-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cacheDirectory', () => {
  it('makes a directory per Node version and bundle that only its user can enter', () => {
    const place = cacheDirectory('/opt/catalog/dist/bundle', join(dir, 'fresh'));
    if (!('directory' in place)) throw new Error(place.reason);
    expect(place.directory.startsWith(join(dir, 'fresh', `${process.version}-${process.arch}`))).toBe(true);
    expect(statSync(place.directory).mode & 0o777).toBe(0o700);
    expect(cacheDirectory('/other/install/dist/bundle', join(dir, 'fresh'))).not.toEqual(place);
  });

  it('refuses a directory others may write, and makes nothing in it', () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    expect(cacheDirectory('/b', shared)).toEqual({ reason: `${shared} is writable by others` });
    expect(readdirSync(shared)).toEqual([]);
  });

  it('refuses a symbolic link in place of the directory', () => {
    const target = join(dir, 'target');
    mkdirSync(target, { mode: 0o700 });
    const link = join(dir, 'link');
    symlinkSync(target, link);
    expect(cacheDirectory('/b', link)).toEqual({ reason: `${link} is not a directory` });
  });
});

describe('installCompileCache', () => {
  it('does nothing with CATALOG_COMPILE_CACHE=0', () => {
    expect(installCompileCache(join(dir, 'bundle'), { CATALOG_COMPILE_CACHE: '0' })).toEqual({ enabled: false, reason: 'CATALOG_COMPILE_CACHE=0' });
  });
});

describe('contentKey', () => {
  it('keys a chunk named by its content (rolldown [name]-[hash].cjs) by its length, any other file by its content', () => {
    expect(contentKey('cli-Cnnv_WCc.cjs', 'x'.repeat(300))).toBe('000000000000012c');
    expect(contentKey('resource--XGCKSu-.cjs', 'abc')).toBe(contentKey('resource--XGCKSu-.cjs', 'xyz'));
    // The entries: same length, other content, other key (V8 itself checks only the length).
    expect(contentKey('main.cjs', 'module.exports = 1;')).toMatch(/^[0-9a-f]{16}$/);
    expect(contentKey('main.cjs', 'module.exports = 1;')).not.toBe(contentKey('main.cjs', 'module.exports = 2;'));
    expect(contentKey('compile-cache.cjs', 'a')).not.toBe(contentKey('compile-cache.cjs', 'b'));
  });
});

describe('importEsModule', () => {
  it('imports an ES module by its path', async () => {
    const { default: ora } = await importEsModule<typeof import('ora')>(join(import.meta.dirname, '..', '..', 'node_modules', 'ora', 'index.js'));
    expect(typeof ora).toBe('function');
  });
});
