/**
 * The memory of a photo index's posting lists (docs/search.md, "Photo search"): one
 * WebAssembly.Memory that the scan kernel (scan-kernel.ts) reads, with a small
 * allocator. Pure code.
 *
 * The memory is shared (a SharedArrayBuffer, at most 4 GiB reserved, committed as it grows):
 * growing a plain WebAssembly memory detaches its ArrayBuffer, and the first detach of any
 * ArrayBuffer in a process makes V8 check every typed-array access for detachment from then on
 * (a start-up's bulk add measured +15 % CPU, all of it in typed-array loops). A shared memory's
 * growth detaches nothing and moves nothing; where it is not available the heap falls back to a
 * plain memory. Either way nothing outside this heap keeps a view as the truth: a posting list
 * records the byte offsets of its ranges (postings.ts `Postings.slotAt` …) and its views are
 * rebuilt from them after a growth ({@link PostingHeap.onGrow}: the index rebinds its lists and
 * cells), the kernel is given offsets, never views, and code that allocates (reservePostings,
 * TentativeMatches.reserve) re-reads views after the allocation.
 *
 * Allocation: a bump pointer, and freed ranges (a list moved out of its range by an upload, a
 * cell that outgrew its place) kept in free lists by power-of-two size class and reused first.
 * Ranges are 8-byte aligned (the kernel reads descriptors as i64). Free ranges are not merged:
 * uploads after a bulk load leave some of the freed ranges unused.
 */
import { expectSnapshot } from './index-snapshot.js';
import { MAX_PAGES, scanKernel, wasm, WASM_PAGE, type DistancesFunction, type ScanFunction, type WasmMemory } from './scan-kernel.js';

/** Smallest freed range worth keeping for reuse, bytes. */
const MIN_FREE = 64;

/** A growth leaves this share of the needed size as headroom (a growth rebinds every list's views). */
const GROWTH_SHARE = 1 / 32;

/** Bytes rounded up to the heap's alignment (8): what {@link PostingHeap.alloc} takes for `n`. */
export function align8(n: number): number {
  return (n + 7) & ~7;
}

/** One heap: its memory, views of all of it, the scan kernel bound to it, and the allocator. */
export class PostingHeap {
  private readonly memory: WasmMemory;
  /** The scan kernel over this memory (scan-kernel.ts). */
  readonly scan: ScanFunction;
  /** Distances of a descriptor to consecutive descriptors, over this memory (scan-kernel.ts). */
  readonly distances: DistancesFunction;
  /** Views of the whole memory, replaced at every growth. */
  u8: Uint8Array;
  u16: Uint16Array;
  i32: Int32Array;
  u32: Uint32Array;
  /** First byte never allocated. */
  private top = 0;
  /** Freed ranges by size class k (sizes in [2^k, 2^(k+1))): offset, size, offset, size, … */
  private readonly freeLists: number[][] = Array.from({ length: 33 }, () => []);
  private freeTotal = 0;
  private readonly growListeners: (() => void)[] = [];

  /** True when the memory is shared (growth detaches nothing; see the module comment). */
  readonly shared: boolean;

  /**
   * A heap of `initialBytes` (rounded up to whole pages, at least one), in a shared memory unless
   * `shared` is false or the runtime has none.
   */
  constructor(initialBytes = WASM_PAGE, shared = true) {
    const initial = Math.max(1, Math.ceil(initialBytes / WASM_PAGE));
    let memory: WasmMemory | undefined;
    if (shared) {
      try {
        memory = new wasm.Memory({ initial, maximum: MAX_PAGES, shared: true });
      } catch {
        memory = undefined;
      }
    }
    this.shared = memory !== undefined;
    this.memory = memory ?? new wasm.Memory({ initial });
    const kernel = scanKernel(this.memory, this.shared);
    this.scan = kernel.scan;
    this.distances = kernel.distances;
    this.u8 = new Uint8Array(this.memory.buffer);
    this.u16 = new Uint16Array(this.memory.buffer);
    this.i32 = new Int32Array(this.memory.buffer);
    this.u32 = new Uint32Array(this.memory.buffer);
  }

  /** The memory's current buffer (a new one after each growth). */
  get buffer(): ArrayBufferLike {
    return this.memory.buffer;
  }

  /** Bytes the memory holds (allocated or not). */
  get byteLength(): number {
    return this.memory.buffer.byteLength;
  }

  /**
   * Bytes allocated and not freed (ranges of lists, cells and matches at their capacity); the
   * memory itself ({@link byteLength}) adds whole-page rounding, growth headroom (1/32 of the size
   * needed at the last growth; its pages are not resident until written) and the freed ranges.
   */
  get allocatedBytes(): number {
    return this.top - this.freeTotal;
  }

  /** Bytes in freed ranges kept for reuse. */
  get freeBytes(): number {
    return this.freeTotal;
  }

  /** Calls `listener` after every growth, once the heap's own views are current. */
  onGrow(listener: () => void): void {
    this.growListeners.push(listener);
  }

  /**
   * A range of at least `bytes` bytes (8-byte aligned offset; contents undefined), from the free
   * lists when one fits, else from the top, growing the memory when needed (which detaches every
   * view of the old buffer: see the module comment).
   * @throws RangeError when the memory cannot grow (4 GiB).
   */
  alloc(bytes: number): number {
    const size = align8(Math.max(8, bytes));
    // Every range of class ≥ ceil(log2(size)) is large enough.
    for (let k = 32 - Math.clz32(size - 1); k < this.freeLists.length; k++) {
      const list = this.freeLists[k];
      if (!list || list.length === 0) continue;
      const blockSize = list.pop() ?? 0;
      const at = list.pop() ?? 0;
      this.freeTotal -= blockSize;
      if (blockSize - size >= MIN_FREE) this.release(at + size, blockSize - size);
      return at;
    }
    const at = this.top;
    const end = at + size;
    if (end > this.memory.buffer.byteLength) this.grow(end);
    this.top = end;
    return at;
  }

  /**
   * The allocator's state, for a snapshot (index-snapshot.ts): the first byte never allocated and
   * the freed ranges (offset, size, … by size class), with `spare` (allocated ranges as [offset,
   * bytes asked of {@link alloc}] that the snapshot does not need: a query's working memory) counted
   * as freed. The memory's bytes [0, top) are the rest.
   */
  allocatorState(spare: readonly (readonly [number, number])[] = []): { top: number; free: number[][] } {
    const free = this.freeLists.map((list) => [...list]);
    for (const [at, bytes] of spare) {
      // The size alloc() took for `bytes` (a range it took from a free list may be up to MIN_FREE larger: left out).
      const size = align8(Math.max(8, bytes));
      if (size >= MIN_FREE) free[31 - Math.clz32(size)]?.push(at, size);
    }
    return { top: this.top, free };
  }

  /**
   * Makes this empty heap the one a snapshot describes: grows it to hold `state.top` bytes, lets
   * `fill` write them (one call, a view of [0, top) of the memory), and takes the freed ranges.
   * @throws SnapshotError when the heap is not empty or the state is inconsistent (a range beyond
   * the top, unaligned, or in the wrong size class); RangeError when the memory cannot grow.
   */
  restore(state: { top: number; free: number[][] }, fill: (bytes: Uint8Array) => void): void {
    const { top, free } = state;
    expectSnapshot(this.top === 0 && this.freeTotal === 0, 'a heap is restored only while empty');
    expectSnapshot(Number.isInteger(top) && top >= 0 && top % 8 === 0, `heap top ${top} is not an aligned offset`);
    expectSnapshot(free.length === this.freeLists.length, 'heap free lists of another shape');
    let freeTotal = 0;
    free.forEach((list, k) => {
      expectSnapshot(list.length % 2 === 0, 'heap free list of odd length');
      for (let i = 0; i < list.length; i += 2) {
        const at = list[i] ?? -1;
        const size = list[i + 1] ?? 0;
        const aligned = Number.isInteger(at) && at >= 0 && at % 8 === 0 && Number.isInteger(size) && size % 8 === 0;
        expectSnapshot(aligned && at + size <= top && 31 - Math.clz32(size) === k, `heap free range ${at}+${size} is not a range of class ${k} below ${top}`);
        freeTotal += size;
      }
    });
    if (top > this.memory.buffer.byteLength) this.grow(top);
    fill(this.u8.subarray(0, top));
    this.top = top;
    // Element by element: a spread of a long list would overflow the call stack.
    free.forEach((list, k) => {
      const into = this.freeLists[k];
      if (into) for (const v of list) into.push(v);
    });
    this.freeTotal = freeTotal;
  }

  /** Gives range [at, at + bytes) back for reuse (its aligned inside; small ranges are dropped). */
  release(at: number, bytes: number): void {
    const from = align8(at);
    const size = (at + bytes - from) & ~7;
    if (size < MIN_FREE) return;
    const list = this.freeLists[31 - Math.clz32(size)];
    list?.push(from, size);
    this.freeTotal += size;
  }

  /** Grows the memory to hold at least `end` bytes, then refreshes views and tells the listeners. */
  private grow(end: number): void {
    const have = this.memory.buffer.byteLength;
    // Headroom of 1/32 beyond the need: after a bulk load the first query's state and the next
    // uploads fit without another growth (each rebinds every list's views: ~0.1 s at 10,000
    // references). Pages not yet written are not resident.
    const need = Math.ceil((end - have) / WASM_PAGE);
    // The headroom only up to the maximum (the need itself beyond it fails below).
    const pages = Math.max(need, Math.min(Math.ceil((end * (1 + GROWTH_SHARE) - have) / WASM_PAGE), MAX_PAGES - have / WASM_PAGE));
    try {
      this.memory.grow(pages);
    } catch (e) {
      throw new RangeError(`PostingHeap: cannot grow to ${have + pages * WASM_PAGE} bytes (${String(e)})`);
    }
    const buffer = this.memory.buffer;
    this.u8 = new Uint8Array(buffer);
    this.u16 = new Uint16Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.u32 = new Uint32Array(buffer);
    for (const listener of this.growListeners) listener();
  }
}
