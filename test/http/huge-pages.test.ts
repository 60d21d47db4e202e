import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/core/permissions.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { openCatalog } from '../../src/open-catalog.js';
import { tempDir } from '../helpers/harness.js';
import { alignedRanges, collapseIntoHugePages, collapsibleMappings, HUGE_PAGE_BYTES, keepInHugePages, residentPages, type HugePagesReport } from '../../src/http/huge-pages.js';

const MIB = 1024 * 1024;

/** One mapping of /proc/self/smaps: its header and the fields a collapse reads. */
function smapsEntry(start: number, end: number, perms: string, inode: number, name: string, rssKb: number, hugeKb = 0): string {
  return [
    `${start.toString(16)}-${end.toString(16)} ${perms} 00000000 00:00 ${inode}${name ? `                          ${name}` : ''}`,
    `Size:           ${(end - start) / 1024} kB`,
    `Rss:            ${rssKb} kB`,
    `Pss:            ${rssKb} kB`,
    `AnonHugePages:  ${hugeKb} kB`,
    'VmFlags: rd wr mr mw me ac',
  ].join('\n');
}

/** AnonHugePages of this process, in bytes. */
function anonHugeBytes(): number {
  const match = /AnonHugePages:\s+(\d+) kB/.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

/** Every aligned 2 MiB range of `mappings`. */
function rangesOf(mappings: { start: number; end: number }[]): number[] {
  return mappings.flatMap((m) => alignedRanges(m));
}

/** Whether the 2 MiB range at `at` has exactly every fourth page resident (from any first page), from /proc/self/pagemap. */
function residentPattern(at: number): 'one in four' | 'other' {
  const fd = openSync('/proc/self/pagemap', 'r');
  try {
    const entries = Buffer.alloc(512 * 8);
    readSync(fd, entries, 0, entries.length, (at / 4096) * 8);
    const resident = (page: number) => (entries.readUInt32LE(page * 8 + 4) & 0x8000_0000) !== 0;
    const phase = [0, 1, 2, 3].find((p) => resident(p));
    if (phase === undefined) return 'other';
    for (let page = 0; page < 512; page++) if (resident(page) !== (page % 4 === phase)) return 'other';
    return 'one in four';
  } finally {
    closeSync(fd);
  }
}

const thpSetting = process.platform === 'linux' ? (() => { try { return readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'); } catch { return ''; } })() : '';
const canCollapse = thpSetting !== '' && !thpSetting.includes('[never]');

describe('which memory is collapsed into huge pages', () => {
  const base = 0x7f00_0000_0000;
  it('takes private anonymous writable mappings and the brk heap with at least 2 MiB resident outside huge pages, nothing else', () => {
    const smaps = [
      smapsEntry(base, base + 8 * MIB, 'rw-p', 0, '', 6 * 1024), // a heap region: taken
      smapsEntry(base + 8 * MIB, base + 16 * MIB, 'rw-p', 0, '', 1024), // 1 MiB resident: nothing to gain
      smapsEntry(base + 16 * MIB, base + 24 * MIB, 'rw-p', 0, '', 8 * 1024, 8 * 1024), // huge already
      smapsEntry(base + 24 * MIB, base + 32 * MIB, 'r--p', 0, '', 8 * 1024), // read-only
      smapsEntry(base + 32 * MIB, base + 40 * MIB, 'rw-s', 0, '', 8 * 1024), // shared
      smapsEntry(base + 40 * MIB, base + 48 * MIB, 'rw-p', 1234, '/data/catalog.db', 8 * 1024), // a file
      smapsEntry(base + 48 * MIB, base + 56 * MIB, 'rw-p', 0, '[stack]', 8 * 1024), // the stack
      smapsEntry(0x0200_0000, 0x0200_0000 + 6 * MIB, 'rw-p', 0, '[heap]', 4 * 1024), // malloc's heap: taken
      smapsEntry(base + 64 * MIB, base + 72 * MIB, 'rwxp', 0, '', 8 * 1024), // JIT code: taken
    ].join('\n');
    const taken = collapsibleMappings(smaps);
    expect(taken.map((m) => [m.start, m.end])).toEqual([
      [base, base + 8 * MIB],
      [0x0200_0000, 0x0200_0000 + 6 * MIB],
      [base + 64 * MIB, base + 72 * MIB],
    ]);
    expect(taken[0]).toMatchObject({ rss: 6 * MIB, hugeBytes: 0 });
  });

  it('collapses only 2 MiB ranges aligned to 2 MiB and wholly inside the mapping', () => {
    expect(alignedRanges({ start: 0x20_0000, end: 0x80_0000 })).toEqual([0x20_0000, 0x40_0000, 0x60_0000]);
    // 4 KiB past a boundary at each end: the two ranges in between only.
    expect(alignedRanges({ start: 0x20_1000, end: 0x80_1000 })).toEqual([0x40_0000, 0x60_0000]);
    expect(alignedRanges({ start: 0x20_1000, end: 0x40_1000 })).toEqual([]);
  });

  it("counts a range's resident pages from its pagemap entries (bit 63)", () => {
    const entries = Buffer.alloc(512 * 8);
    for (const i of [0, 7, 300, 511]) entries.writeBigUInt64LE((1n << 63n) | 12345n, i * 8);
    // Swapped (bit 62) or soft-dirty (bit 55) alone is not resident.
    entries.writeBigUInt64LE(1n << 62n, 8);
    entries.writeBigUInt64LE(1n << 55n, 16);
    expect(residentPages(entries)).toBe(4);
  });
});

describe.skipIf(!canCollapse)('collapsing this process into huge pages (Linux, transparent huge pages not off)', () => {
  it('leaves a range less than half resident in base pages, so collapsing cannot double the memory it holds', async () => {
    // 64 MiB not zero-filled (nothing resident), then one page in four written.
    const sparse = Buffer.allocUnsafeSlow(64 * MIB);
    for (let page = 0; page < (64 * MIB) / 4096; page += 4) sparse[page * 4096] = 1;
    // Its ranges: those a quarter resident, one page in four (found through the pagemap, since
    // the buffer's mapping may have merged with a neighbour).
    const quarterResident = () => rangesOf(collapsibleMappings(readFileSync('/proc/self/smaps', 'utf8'))).filter((at) => residentPattern(at) === 'one in four');
    const ranges = quarterResident();
    expect(ranges.length).toBeGreaterThanOrEqual(30);
    await collapseIntoHugePages();
    // Collapsed, each would be resident whole.
    expect(ranges.filter((at) => residentPattern(at) === 'one in four')).toEqual(ranges);
    expect(sparse[4 * 4096]).toBe(1);
  });

  it('turns a resident 64 MiB buffer into huge pages and reports what it did', async () => {
    const buffer = Buffer.alloc(64 * MIB, 1);
    const before = anonHugeBytes();
    const report = await collapseIntoHugePages();
    expect(report.skipped).toBeUndefined();
    // The buffer alone holds 31 whole aligned ranges, all resident.
    expect(report.collapsed).toBeGreaterThanOrEqual(31);
    expect(report.bytes).toBe(report.collapsed * HUGE_PAGE_BYTES);
    // With huge pages on request only (madvise), the new buffer was in base pages before.
    if (thpSetting.includes('[madvise]')) expect(anonHugeBytes() - before).toBeGreaterThanOrEqual(31 * HUGE_PAGE_BYTES);
    else expect(anonHugeBytes()).toBeGreaterThanOrEqual(31 * HUGE_PAGE_BYTES);
    expect(buffer[64 * MIB - 1]).toBe(1);
  });

  it('stops between ranges when told', async () => {
    const buffer = Buffer.alloc(16 * MIB, 2);
    const report = await collapseIntoHugePages(() => true);
    expect(report.collapsed).toBe(0);
    expect(buffer[0]).toBe(2);
  });
});

describe('keeping a server in huge pages', () => {
  const report: HugePagesReport = { collapsed: 1, bytes: HUGE_PAGE_BYTES, failed: 0, ms: 1 };
  it('runs its first pass once the warm-up has ended, then one pass an interval, never two at once, and none after stop', async () => {
    let warmedUp!: () => void;
    const after = new Promise<void>((resolve) => (warmedUp = resolve));
    const starts: number[] = [];
    let running = 0;
    let most = 0;
    const collapse = async () => {
      starts.push(performance.now());
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 30));
      running--;
      return report;
    };
    const keeper = keepInHugePages(after, { intervalMs: 10, collapse });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(starts).toHaveLength(0);
    warmedUp();
    expect(await keeper.first).toEqual(report);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await keeper.stop();
    const passes = starts.length;
    // 150 ms at 30 ms a pass, passes not queued behind one another: a few, not 15.
    expect(passes).toBeGreaterThanOrEqual(3);
    expect(passes).toBeLessThanOrEqual(7);
    expect(most).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(starts).toHaveLength(passes);
  });

  it('runs no pass when stopped before the warm-up ends', async () => {
    let warmedUp!: () => void;
    const after = new Promise<void>((resolve) => (warmedUp = resolve));
    let passes = 0;
    const keeper = keepInHugePages(after, { intervalMs: 5, collapse: async () => (passes++, report) });
    const stopping = keeper.stop();
    warmedUp();
    await stopping;
    expect(await keeper.first).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(passes).toBe(0);
  });
});

describe('catalog serve and huge pages', () => {
  let dir: string;
  const servers: RunningServer[] = [];
  beforeAll(async () => {
    dir = tempDir('catalog-huge-pages-');
    const catalog = openCatalog({ dataDir: dir });
    await catalog.service.createToken(LOCAL_OWNER, { name: 'admin', roles: ['catalogAdmin'] });
    await catalog.service.upsertParts(LOCAL_OWNER, Array.from({ length: 20 }, (_, i) => ({ part_id: `p${i}`, name: { en: `Gear pump ${i}` } })));
    await catalog.close();
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it.skipIf(!canCollapse)('collapses once its warm-up has ended when asked (the CLI asks unless --no-huge-pages)', async () => {
    const server = await startServer({ dataDir: dir, host: '127.0.0.1', port: 0, accessLog: null, readers: 1, warmUpRequests: 20, idleWarmUpRequests: 20, hugePages: true });
    servers.push(server);
    const report = await server.hugePages?.first;
    expect(report?.skipped).toBeUndefined();
    expect(report?.collapsed).toBeGreaterThan(0);
    expect(anonHugeBytes()).toBeGreaterThan(0);
  });

  it('leaves memory alone when not asked', async () => {
    const server = await startServer({ dataDir: dir, host: '127.0.0.1', port: 0, accessLog: null, readers: 0 });
    servers.push(server);
    expect(server.hugePages).toBeUndefined();
  });
});
