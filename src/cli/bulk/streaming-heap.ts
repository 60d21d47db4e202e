/**
 * Heap settings for long streaming jobs (imports, uploads, migrate). A streaming import allocates a
 * little per row and keeps almost nothing, so V8's defaults (a young generation growing to 3 × 16 MB,
 * an old generation allowed to grow well past what is live) let peak RSS climb for no gain: on
 * 100,000 CSV rows ~228 MB with the defaults, ~146 MB with these two flags, at the same CPU time.
 *
 * Why at run time and not on the command line: any V8 flag given at launch (the shebang of
 * bin/catalog.js had them) makes Node's embedded code cache of its own modules mismatch, and every
 * command then compiles them from source: ~20 ms more for `catalog search x`, whose start-up is a
 * goal of issue 12. These two flags are read while the heap runs, so setting them when a bulk job
 * starts has the launch flags' effect (measured: 146 MB vs 149 MB with `--max-semi-space-size=4
 * --heap-growing-percent=100` at launch).
 */
import { createRequire } from 'node:module';
import { noteV8FlagsChanged } from '../compile-cache.js';

/**
 * V8's flags, set through node:v8, which loads only here: it is ~1.5 ms of every command's
 * start-up otherwise, and only bulk jobs use it. The CLI's code cache is told: code it would
 * cache from now on would not match the flags of the next run (src/cli/compile-cache.ts).
 */
function v8(): typeof import('node:v8') {
  return createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
}

function setFlagsFromString(flags: string): void {
  noteV8FlagsChanged();
  v8().setFlagsFromString(flags);
}

/**
 * The young generation a bulk job's main thread grows to (V8's new space: two semi-spaces of half
 * this). At V8's initial 4 MB (2 × 2 MB) an import's writer scavenged every ~2 MB allocated, ~15
 * times per 1,000-part batch, each time copying the batch's live rows, documents and gathered
 * postings again: ~25 % of its CPU in scavenges. At 16 MB, 200,000 parts: the writer's CPU −7 to
 * −18 %, peak RSS +10 to +15 MB (bench/results.md, issue 12, session of 2026-11-26 afternoon).
 */
export const STREAMING_NEW_SPACE_BYTES = 16 * 1024 * 1024;
/**
 * How often the young generation's size is checked while it grows (between batches: the timer runs
 * when the event loop does). Often, so that a loaded machine's late timer does not let one more
 * scavenge double it past the mark (seen once in a full `npm test`: 32 MB); it stops at the mark,
 * within a second or two of the job's start, and a check costs ~10 µs.
 */
const NEW_SPACE_CHECK_MS = 5;

let tuned = false;
/** The young generation may still grow (see {@link tuneHeapForStreaming}). */
let growing = false;

function newSpaceBytes(): number {
  return v8().getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Lets the young generation grow to {@link STREAMING_NEW_SPACE_BYTES} and no further, and collects
 * the old generation once it has doubled. V8 sizes the young generation when the heap is set up
 * (a launch flag would cost every command's start-up, see above), so it is grown at run time
 * instead: growth doubles it whenever a scavenge finds enough survivors, and a timer turns growth
 * off (`--semi-space-growth-factor=1`) once it is large enough. Without this the young generation
 * would grow to V8's maximum (32 MB: +20 MB RSS), or with growth off stay at 4 MB.
 */
export function tuneHeapForStreaming(): void {
  if (tuned) return;
  tuned = true;
  setFlagsFromString('--heap-growing-percent=100');
  if (newSpaceBytes() >= STREAMING_NEW_SPACE_BYTES) {
    setFlagsFromString('--semi-space-growth-factor=1');
    return;
  }
  growing = true;
  setFlagsFromString('--semi-space-growth-factor=2');
  const timer = setInterval(() => {
    if (newSpaceBytes() < STREAMING_NEW_SPACE_BYTES) return;
    growing = false;
    setFlagsFromString('--semi-space-growth-factor=1');
    clearInterval(timer);
  }, NEW_SPACE_CHECK_MS);
  timer.unref();
}

/**
 * Sets the flags of {@link tuneHeapForStreaming} again if it ran, for a job that started a worker
 * thread (which resets V8's flags to the command line's: measured, this thread's young generation
 * grew to 32 MB again). The old generation is collected once it grew by 30 % instead of 100 %:
 * the worker's isolate takes ~20 MB of its own, and with 100 % a 1,000,000-part import peaked at
 * 211 MB RSS, with 30 % at 181 MB, the main thread's CPU unchanged (81–84 s; the extra marking,
 * ~5 % more CPU in all, runs on V8's helper threads). bench/results.md, "Import on two threads".
 */
export function reapplyStreamingHeap(): void {
  if (!tuned) return;
  setFlagsFromString(`--semi-space-growth-factor=${growing ? 2 : 1}`);
  setFlagsFromString('--heap-growing-percent=30');
}
