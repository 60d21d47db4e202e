/**
 * The heap of a bulk job (src/cli/bulk/streaming-heap.ts, issue 12): the main thread's young
 * generation grows to STREAMING_NEW_SPACE_BYTES and stops there, where V8 alone would grow it to
 * twice that. Runs in a child process:
 * V8 flags are process-wide. Uses the built module (dist/: `npm test` builds first).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { STREAMING_NEW_SPACE_BYTES } from '../../src/cli/bulk/streaming-heap.js';

const MODULE = pathToFileURL(join(process.cwd(), 'dist', 'cli', 'bulk', 'streaming-heap.js')).href;

/** New-space bytes after batches that allocate a lot and keep a part of it alive for a while, as an import's writer does. */
function newSpaceAfterBatches(tune: boolean): number {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { setTimeout as sleep } from 'node:timers/promises';
    const { tuneHeapForStreaming } = await import(${JSON.stringify(MODULE)});
    if (${tune}) tuneHeapForStreaming();
    let kept = [];
    for (let batch = 0; batch < 150; batch++) {
      const live = [];
      for (let i = 0; i < 40000; i++) {
        const row = { id: 'p' + batch + ':' + i, values: [i, i + 1, i + 2] };
        if (i % 4 === 0) live.push(row);
      }
      kept = live;
      await sleep(2);
    }
    const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(space.space_size + kept.length * 0));
  `;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('streaming heap (issue 12)', () => {
  it('a bulk job grows the young generation to STREAMING_NEW_SPACE_BYTES and no further (V8 alone grows it beyond)', () => {
    expect(newSpaceAfterBatches(true)).toBe(STREAMING_NEW_SPACE_BYTES);
    expect(newSpaceAfterBatches(false)).toBeGreaterThan(STREAMING_NEW_SPACE_BYTES);
  });
});
