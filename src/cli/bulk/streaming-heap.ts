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
function setFlagsFromString(flags: string): void {
  noteV8FlagsChanged();
  (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString(flags);
}

let tuned = false;

/** Keeps the young generation at its initial size and collects the old one once it has doubled. */
export function tuneHeapForStreaming(): void {
  if (tuned) return;
  tuned = true;
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=100');
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
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=30');
}
