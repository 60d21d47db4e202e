/**
 * The posting scan of a photo query as a WebAssembly function (
 * docs/search.md): the loop of {@link TentativeMatches.scan} — Hamming distance of
 * a query descriptor to every posting of a list with i64.popcnt, the 128-bit first test, the
 * alive check and the one-match-per-(image, query keypoint) bookkeeping — over postings held in a
 * WebAssembly.Memory (posting-heap.ts). The module is assembled here from its bytes (about 400):
 * no toolchain, no native addon, no file to load. Pure code.
 *
 * Why: at 10,000 references a scene query compares ~1 M postings and ~370,000 of them pass the
 * 40-bit test (most are then dropped by the burst rule); the JavaScript loop spent ~50 ns a
 * posting (SWAR popcount on 8 uint32 words, bounds-checked array reads, then the match
 * bookkeeping), the same work here ~10–15 ns (decisions/0007).
 *
 * Exported function `scan(ctx, desc, slots, kps, n, qi, idf, maxHalf, maxD, count) → count`, all
 * pointers byte offsets into the memory:
 * - `ctx` points to a {@link ScanContextLayout} block: the query descriptor (32 bytes) and the
 *   addresses of the per-slot and per-match arrays;
 * - `desc`, `slots`, `kps`: the list's descriptors (32 bytes a posting, 8-byte aligned), image slots
 *   (int32) and keypoint numbers (uint16); `n` postings;
 * - a posting within `maxHalf` bits on its first 128 and `maxD` on all 256 of a live slot becomes
 *   match number `count` (slot, query keypoint `qi`, keypoint, distance, `idf` as float32) unless
 *   that slot already matched `qi`, whose match then takes the nearer posting;
 * - returns the new match count. The caller guarantees room for `count + n` matches.
 */

/** Byte offsets inside the scan context block read by the kernel (all int32 but the descriptor). */
export const ScanContextLayout = {
  /** The query descriptor, 8 little-endian uint32 (4 × i64 for the kernel). */
  query: 0,
  /** int32 a slot: the last query keypoint that matched the slot (−1: none yet). */
  lastQ: 32,
  /** int32 a slot: that match's number. */
  lastMatch: 36,
  /** uint8 a slot: 1 while the image is live. */
  alive: 40,
  /** int32 a match: image slot. */
  matchSlot: 44,
  /** int32 a match: query keypoint. */
  matchQ: 48,
  /** int32 a match: reference keypoint number. */
  matchKp: 52,
  /** uint16 a match: Hamming distance. */
  matchDist: 56,
  /** float32 a match: idf of the word. */
  matchIdf: 60,
  /** Size of the block. */
  bytes: 64,
} as const;

/** The kernel's signature (see the module comment). */
export type ScanFunction = (ctx: number, desc: number, slots: number, kps: number, n: number, qi: number, idf: number, maxHalf: number, maxD: number, count: number) => number;

/** The parts of the WebAssembly JavaScript API used here (the project's lib settings have no DOM types). */
export interface WasmMemory {
  readonly buffer: ArrayBufferLike;
  grow(pages: number): number;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
}

/** The global WebAssembly object (Node.js ≥ 20 has it). */
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Bytes of a WebAssembly page: memory grows by whole pages. */
export const WASM_PAGE = 65536;

/** Most pages of a heap (4 GiB, memory32's limit): a shared memory declares its maximum. */
export const MAX_PAGES = 65536;

// --- Assembly helpers: LEB128, vectors, sections, opcodes. ---
const uleb = (value: number): number[] => {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
};
const sleb = (value: number): number[] => {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, bytes: number[]): number[] => [id, ...uleb(bytes.length), ...bytes];
const name = (text: string): number[] => vec([...text].map((c) => [c.charCodeAt(0)]));
const I32 = 0x7f;
const I64 = 0x7e;
const F32 = 0x7d;
const get = (i: number): number[] => [0x20, ...uleb(i)];
const set = (i: number): number[] => [0x21, ...uleb(i)];
const tee = (i: number): number[] => [0x22, ...uleb(i)];
const i32c = (v: number): number[] => [0x41, ...sleb(v)];
// Loads and stores: opcode, alignment (log2), offset.
const i32load = (off: number): number[] => [0x28, 2, ...uleb(off)];
const i64load = (off: number): number[] => [0x29, 3, ...uleb(off)];
const i32load8u = [0x2d, 0, 0];
const i32load16u = [0x2f, 1, 0];
const i32store = [0x36, 2, 0];
const i32store16 = [0x3b, 1, 0];
const f32store = [0x38, 2, 0];
const I32_EQ = 0x46;
const I32_LT_S = 0x48;
const I32_LE_S = 0x4c;
const I32_GE_S = 0x4e;
const I32_ADD = 0x6a;
const I32_SHL = 0x74;
const I64_POPCNT = 0x7b;
const I64_ADD = 0x7c;
const I64_XOR = 0x85;
const I32_WRAP_I64 = 0xa7;
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const IF = [0x04, 0x40];
const ELSE = 0x05;
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;

/** The scan function's body (locals and code). */
function scanBody(): number[] {
  // Parameters.
  const ctx = 0, desc = 1, slots = 2, kps = 3, n = 4, qi = 5, idf = 6, maxHalf = 7, maxD = 8, count = 9;
  // Locals: the query as 4 × i64, then int32s.
  const q = [10, 11, 12, 13];
  const j = 14, d = 15, slot = 16, at = 17, lastQ = 18, lastMatch = 19, alive = 20;
  const mSlot = 21, mQ = 22, mKp = 23, mDist = 24, mIdf = 25;
  const L = ScanContextLayout;
  /** popcount(desc[off..off+16) ^ (qa, qb)) as i32. */
  const half = (off: number, qa: number, qb: number): number[] => [
    ...get(desc), ...i64load(off), ...get(qa), I64_XOR, I64_POPCNT,
    ...get(desc), ...i64load(off + 8), ...get(qb), I64_XOR, I64_POPCNT,
    I64_ADD, I32_WRAP_I64,
  ];
  /** base + (index << shift). */
  const addr = (base: number, index: number, shift: number): number[] => [...get(base), ...get(index), ...i32c(shift), I32_SHL, I32_ADD];
  const code = [
    ...get(ctx), ...i64load(L.query), ...set(q[0] ?? 0),
    ...get(ctx), ...i64load(L.query + 8), ...set(q[1] ?? 0),
    ...get(ctx), ...i64load(L.query + 16), ...set(q[2] ?? 0),
    ...get(ctx), ...i64load(L.query + 24), ...set(q[3] ?? 0),
    ...get(ctx), ...i32load(L.lastQ), ...set(lastQ),
    ...get(ctx), ...i32load(L.lastMatch), ...set(lastMatch),
    ...get(ctx), ...i32load(L.alive), ...set(alive),
    ...get(ctx), ...i32load(L.matchSlot), ...set(mSlot),
    ...get(ctx), ...i32load(L.matchQ), ...set(mQ),
    ...get(ctx), ...i32load(L.matchKp), ...set(mKp),
    ...get(ctx), ...i32load(L.matchDist), ...set(mDist),
    ...get(ctx), ...i32load(L.matchIdf), ...set(mIdf),
    ...BLOCK, ...LOOP,
    ...get(j), ...get(n), I32_GE_S, BR_IF, 1,
    // First 128 bits, then (only when within maxHalf) the other 128.
    ...half(0, q[0] ?? 0, q[1] ?? 0), ...tee(d), ...get(maxHalf), I32_LE_S, ...IF,
    ...get(d), ...half(16, q[2] ?? 0, q[3] ?? 0), I32_ADD, ...tee(d), ...get(maxD), I32_LE_S, ...IF,
    ...addr(slots, j, 2), ...i32load(0), ...tee(slot),
    ...get(alive), I32_ADD, ...i32load8u, ...IF,
    ...addr(lastQ, slot, 2), ...i32load(0), ...get(qi), I32_EQ, ...IF,
    // The slot already matched this query keypoint: keep the nearer posting.
    ...addr(lastMatch, slot, 2), ...i32load(0), ...set(at),
    ...get(d), ...addr(mDist, at, 1), ...i32load16u, I32_LT_S, ...IF,
    ...addr(mDist, at, 1), ...get(d), ...i32store16,
    ...addr(mKp, at, 2), ...addr(kps, j, 1), ...i32load16u, ...i32store,
    END,
    ELSE,
    // A new match.
    ...get(count), ...set(at),
    ...get(count), ...i32c(1), I32_ADD, ...set(count),
    ...addr(mSlot, at, 2), ...get(slot), ...i32store,
    ...addr(mQ, at, 2), ...get(qi), ...i32store,
    ...addr(mKp, at, 2), ...addr(kps, j, 1), ...i32load16u, ...i32store,
    ...addr(mDist, at, 1), ...get(d), ...i32store16,
    ...addr(mIdf, at, 2), ...get(idf), ...f32store,
    ...addr(lastQ, slot, 2), ...get(qi), ...i32store,
    ...addr(lastMatch, slot, 2), ...get(at), ...i32store,
    END,
    END, END, END,
    ...get(desc), ...i32c(32), I32_ADD, ...set(desc),
    ...get(j), ...i32c(1), I32_ADD, ...set(j),
    BR, 0,
    END, END,
    ...get(count), END,
  ];
  return [...vec([[4, I64], [12, I32]]), ...code];
}

/** The distances function's body: out[c] = Hamming distance of the query to centre c. */
function distancesBody(): number[] {
  const query = 0, centres = 1, count = 2, out = 3;
  const q = [4, 5, 6, 7];
  const c = 8;
  const word = (i: number): number[] => [...get(centres), ...i64load(8 * i), ...get(q[i] ?? 0), I64_XOR, I64_POPCNT];
  const code = [
    ...get(query), ...i64load(0), ...set(q[0] ?? 0),
    ...get(query), ...i64load(8), ...set(q[1] ?? 0),
    ...get(query), ...i64load(16), ...set(q[2] ?? 0),
    ...get(query), ...i64load(24), ...set(q[3] ?? 0),
    ...BLOCK, ...LOOP,
    ...get(c), ...get(count), I32_GE_S, BR_IF, 1,
    ...get(out), ...get(c), ...i32c(2), I32_SHL, I32_ADD,
    ...word(0), ...word(1), I64_ADD, ...word(2), I64_ADD, ...word(3), I64_ADD, I32_WRAP_I64,
    ...i32store,
    ...get(centres), ...i32c(32), I32_ADD, ...set(centres),
    ...get(c), ...i32c(1), I32_ADD, ...set(c),
    BR, 0,
    END, END, END,
  ];
  return [...vec([[4, I64], [1, I32]]), ...code];
}

/**
 * The module's bytes: imports `env.memory` (a shared memory of at most {@link MAX_PAGES} pages
 * when `shared`, posting-heap.ts says why), exports `scan` (above) and
 * `distances(query, centres, count, out)`: the Hamming distance of the descriptor at `query` to
 * each of `count` consecutive descriptors at `centres`, as int32 at `out` (word assignment of
 * query descriptors against the vocabulary's centres).
 */
export function scanModuleBytes(shared: boolean): Uint8Array {
  const memoryLimits = shared ? [0x03, ...uleb(0), ...uleb(MAX_PAGES)] : [0x00, ...uleb(0)];
  const scanType = [0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32], [F32], [I32], [I32], [I32]]), ...vec([[I32]])];
  const distancesType = [0x60, ...vec([[I32], [I32], [I32], [I32]]), ...vec([])];
  const bodies = [scanBody(), distancesBody()];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([scanType, distancesType])),
    ...section(2, vec([[...name('env'), ...name('memory'), 0x02, ...memoryLimits]])),
    ...section(3, vec([[0], [1]])),
    ...section(7, vec([[...name('scan'), 0x00, 0], [...name('distances'), 0x00, 1]])),
    ...section(10, vec(bodies.map((body) => [...uleb(body.length), ...body]))),
  ]);
}

/** The distances function's signature (see {@link scanModuleBytes}). */
export type DistancesFunction = (query: number, centres: number, count: number, out: number) => void;

/** The compiled module, for shared and for plain memories. */
const compiled = new Map<boolean, object>();

/**
 * The module's functions bound to `memory`, shared or not (the module is compiled once a process
 * and kind, ~0.1 ms).
 */
export function scanKernel(memory: WasmMemory, shared: boolean): { scan: ScanFunction; distances: DistancesFunction } {
  let module = compiled.get(shared);
  if (!module) {
    module = new wasm.Module(scanModuleBytes(shared));
    compiled.set(shared, module);
  }
  const instance = new wasm.Instance(module, { env: { memory } });
  return { scan: instance.exports.scan as ScanFunction, distances: instance.exports.distances as DistancesFunction };
}
