/**
 * `catalog serve`'s memory backed by transparent huge pages (Linux; issue 12: rare-word search
 * p50 ≤ 1 ms over HTTP; docs/search.md, "sixth look").
 *
 * A request touches a few hundred of the server's 4 KiB pages: V8's heap (the request's objects,
 * the route's, the engine's arrays), its compiled code, SQLite's caches. Each page's address is
 * translated through page tables, and under a hypervisor through two levels of them. On the
 * development machines (virtual machines beside other tenants), those translations are evicted
 * from the caches while a process waits: touching 64 MiB of 4 KiB pages again took 2 ms at once,
 * 4 ms after 50 ms of sleep, 40 ms after 1 s, 160 ms after 5 s; in 2 MiB pages, 0.5-4 ms after any
 * of them (one translation per 512 pages). A server waits between requests, so its requests paid
 * it: the same rare words ranked again cost 0.42-0.47 ms of main-thread CPU each back to back,
 * 0.6-0.8 ms in rounds a second apart.
 *
 * Linux backs anonymous memory with 2 MiB pages where a process asks for it (`madvise`), unless
 * the machine turns them off; Node asks for none. So once the server's warm-up has filled its
 * heaps, {@link collapseIntoHugePages} asks the kernel to collapse each 2 MiB range of its
 * anonymous memory that is at least half resident into one huge page (`MADV_COLLAPSE`, Linux 6.1;
 * on a libuv thread, one range at a time, so the event loop never waits), and again every
 * {@link HUGE_PAGES_INTERVAL_MS} for what was allocated since. Only ranges at least half resident:
 * a huge page is resident whole, so the server's resident memory grows by less than the collapsed
 * ranges' unused half at most (measured at 1,000,000 parts: 857 → 873 MB, 512 MiB in huge pages).
 *
 * `madvise` is called through koffi (an FFI library with prebuilt binaries; an optional
 * dependency). Without it, on another system, with huge pages off (`never`) or on a kernel without
 * `MADV_COLLAPSE`, nothing is done and the report says why.
 */
import { open, readFile } from 'node:fs/promises';

/** A huge page on x86-64 and arm64 Linux with 4 KiB pages, in bytes. */
export const HUGE_PAGE_BYTES = 2 * 1024 * 1024;
/** A base page, in bytes. */
const PAGE_BYTES = 4096;
/** `madvise` advice: collapse the range into huge pages now (Linux 6.1+, linux/mman.h). */
const MADV_COLLAPSE = 25;
/**
 * A 2 MiB range is collapsed only when at least this share of its 512 base pages is resident: the
 * rest becomes resident with it, so this bounds how much memory a collapse can add.
 */
export const MIN_RESIDENT_SHARE = 0.5;
/** How often a serving process collapses what it allocated since the last time, in ms. */
export const HUGE_PAGES_INTERVAL_MS = 5 * 60 * 1000;
/** Consecutive failed ranges, none succeeded yet, after which the kernel is taken not to collapse at all. */
const FAILURES_BEFORE_GIVING_UP = 16;

/** A private anonymous mapping of this process (from /proc/self/smaps): address range and memory, in bytes. */
export interface AnonymousMapping {
  start: number;
  end: number;
  /** Resident bytes. */
  rss: number;
  /** Resident bytes in huge pages already. */
  hugeBytes: number;
}

/**
 * The private, anonymous, writable mappings in `smaps` (the text of /proc/self/smaps) whose
 * resident memory outside huge pages spans at least one huge page: those a collapse can help.
 * Named mappings other than `[heap]` (stacks, vDSO) and file mappings are left out.
 */
export function collapsibleMappings(smaps: string): AnonymousMapping[] {
  const mappings: AnonymousMapping[] = [];
  let current: AnonymousMapping | undefined;
  for (const line of smaps.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      const [, start = '', end = '', perms = '', inode, name = ''] = header;
      const anonymous = inode === '0' && (name === '' || name === '[heap]') && perms[0] === 'r' && perms[1] === 'w' && perms[3] === 'p';
      current = anonymous ? { start: parseInt(start, 16), end: parseInt(end, 16), rss: 0, hugeBytes: 0 } : undefined;
      if (current) mappings.push(current);
      continue;
    }
    if (!current) continue;
    const field = /^(Rss|AnonHugePages):\s+(\d+) kB/.exec(line);
    if (field?.[1] === 'Rss') current.rss = Number(field[2]) * 1024;
    else if (field?.[1] === 'AnonHugePages') current.hugeBytes = Number(field[2]) * 1024;
  }
  return mappings.filter((m) => m.rss - m.hugeBytes >= HUGE_PAGE_BYTES && alignedRanges(m).length > 0);
}

/** The start addresses of the huge-page-aligned 2 MiB ranges wholly inside `mapping`. */
export function alignedRanges(mapping: { start: number; end: number }): number[] {
  const ranges: number[] = [];
  for (let at = Math.ceil(mapping.start / HUGE_PAGE_BYTES) * HUGE_PAGE_BYTES; at + HUGE_PAGE_BYTES <= mapping.end; at += HUGE_PAGE_BYTES) ranges.push(at);
  return ranges;
}

/** How many of the 512 base pages in `entries` (a range's /proc/self/pagemap entries, 8 bytes each) are resident (bit 63). */
export function residentPages(entries: Buffer): number {
  let resident = 0;
  for (let i = 0; i + 8 <= entries.length; i += 8) if ((entries.readUInt32LE(i + 4) & 0x8000_0000) !== 0) resident++;
  return resident;
}

/**
 * What a pass did: ranges in huge pages after it and their bytes (a range huge already counts
 * too: the call is cheap and a mapping only partly huge is walked whole), ranges that failed, how
 * long it took (ms); `skipped` says why nothing was tried.
 */
export interface HugePagesReport {
  collapsed: number;
  bytes: number;
  failed: number;
  ms: number;
  skipped?: string;
}

/** `madvise(addr, length, advice)` on a libuv thread; resolves with its return value (0 or -1). */
type AsyncMadvise = (addr: number, length: number, advice: number) => Promise<number>;

/** libc's `madvise` through koffi, or why it cannot be had here. */
async function loadMadvise(): Promise<AsyncMadvise | string> {
  if (process.platform !== 'linux') return `huge pages are collapsed on Linux only, not ${process.platform}`;
  const setting = await readFile('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8').catch(() => undefined);
  if (setting === undefined) return 'this kernel has no transparent huge pages';
  if (setting.includes('[never]')) return 'transparent huge pages are off on this machine (/sys/kernel/mm/transparent_hugepage/enabled: never)';
  try {
    const { default: koffi } = await import('koffi');
    // The process's own symbols, libc's among them, whichever libc it is (glibc, musl).
    const madvise = koffi.load(null).func('int madvise(uintptr_t addr, size_t length, int advice)');
    return (addr, length, advice) =>
      new Promise((resolve) => {
        madvise.async(addr, length, advice, (error: unknown, result: number) => resolve(error ? -1 : result));
      });
  } catch (error) {
    return `koffi (an optional dependency) could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
  }
}

let madvise: Promise<AsyncMadvise | string> | undefined;
/** Set when a pass found the kernel collapses nothing (no MADV_COLLAPSE before Linux 6.1). */
let unsupported: string | undefined;

/**
 * Collapses this process's anonymous memory into huge pages where a 2 MiB range is at least
 * {@link MIN_RESIDENT_SHARE} resident, in mappings not wholly huge already (see the module comment). One range at
 * a time on a libuv thread; `stopped()` is asked between ranges. Never throws: what could not be
 * done is in the report (`skipped`, `failed`).
 */
export async function collapseIntoHugePages(stopped: () => boolean = () => false): Promise<HugePagesReport> {
  const started = performance.now();
  const report: HugePagesReport = { collapsed: 0, bytes: 0, failed: 0, ms: 0 };
  const call = await (madvise ??= loadMadvise());
  if (typeof call === 'string') return { ...report, skipped: call };
  if (unsupported !== undefined) return { ...report, skipped: unsupported };
  let pagemap: Awaited<ReturnType<typeof open>> | undefined;
  try {
    const mappings = collapsibleMappings(await readFile('/proc/self/smaps', 'utf8'));
    pagemap = await open('/proc/self/pagemap', 'r');
    const entries = Buffer.alloc((HUGE_PAGE_BYTES / PAGE_BYTES) * 8);
    for (const mapping of mappings) {
      for (const at of alignedRanges(mapping)) {
        if (stopped()) return report;
        const { bytesRead } = await pagemap.read(entries, 0, entries.length, (at / PAGE_BYTES) * 8);
        if (residentPages(entries.subarray(0, bytesRead)) < (HUGE_PAGE_BYTES / PAGE_BYTES) * MIN_RESIDENT_SHARE) continue;
        if ((await call(at, HUGE_PAGE_BYTES, MADV_COLLAPSE)) === 0) {
          report.collapsed++;
          report.bytes += HUGE_PAGE_BYTES;
        } else if (++report.failed >= FAILURES_BEFORE_GIVING_UP && report.collapsed === 0) {
          unsupported = 'this kernel collapses no range into a huge page (MADV_COLLAPSE needs Linux 6.1)';
          return { ...report, skipped: unsupported };
        }
      }
    }
  } catch (error) {
    // /proc unreadable (a sandbox): nothing more to do.
    report.skipped = `could not read this process's mappings: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await pagemap?.close();
    report.ms = Math.round(performance.now() - started);
  }
  return report;
}

/** A process's memory kept in huge pages ({@link keepInHugePages}). */
export interface HugePagesKeeper {
  /** The first pass's report, once it has run (undefined when stopped before it). */
  readonly first: Promise<HugePagesReport | undefined>;
  /** Ends it: no pass starts after; resolves once a pass under way has stopped. */
  stop(): Promise<void>;
}

/**
 * Runs {@link collapseIntoHugePages} once `after` resolves (the server's warm-up has ended and
 * filled its heaps), then every `intervalMs` (default {@link HUGE_PAGES_INTERVAL_MS}), one pass at
 * a time. `collapse` is for tests.
 */
export function keepInHugePages(after: Promise<unknown>, options: { intervalMs?: number; collapse?: typeof collapseIntoHugePages } = {}): HugePagesKeeper {
  const collapse = options.collapse ?? collapseIntoHugePages;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const passIfRunning = () => (stopped ? undefined : collapse(() => stopped));
  const first = after.then(passIfRunning, passIfRunning);
  let last: Promise<unknown> = first;
  let busy = true;
  void first.then(() => {
    busy = false;
    if (stopped) return;
    timer = setInterval(() => {
      // A pass still under way (a machine under load) is not queued behind.
      if (busy) return;
      busy = true;
      last = Promise.resolve(passIfRunning()).then(() => {
        busy = false;
      });
    }, options.intervalMs ?? HUGE_PAGES_INTERVAL_MS).unref();
  });
  return {
    first,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await last;
    },
  };
}
