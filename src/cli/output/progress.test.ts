import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { colorEnabled, createProgress } from './progress.js';

function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; written: () => string } {
  const pass = new PassThrough();
  let text = '';
  pass.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const stream = Object.assign(pass, { isTTY, columns: 80, rows: 24, cursorTo: () => true, moveCursor: () => true, clearLine: () => true }) as unknown as NodeJS.WriteStream;
  return { stream, written: () => text };
}

describe('createProgress', () => {
  it.each<[string, boolean, boolean, NodeJS.ProcessEnv, boolean]>([
    ['TTY, not CI', true, true, {}, true],
    ['not a TTY', false, true, {}, false],
    ['CI set', true, true, { CI: 'true' }, false],
    ['CI=false counts as unset', true, true, { CI: 'false' }, true],
    ['caller disabled it', true, false, {}, false],
  ])('%s', async (_name, isTTY, enabled, env, expected) => {
    const { stream } = fakeStream(isTTY);
    const progress = await createProgress(stream, enabled, env);
    expect(progress.enabled).toBe(expected);
    progress.stop();
  });

  it('writes nothing when disabled', async () => {
    const { stream, written } = fakeStream(false);
    const progress = await createProgress(stream, true, {});
    progress.update('working');
    progress.succeed('done');
    progress.fail('failed');
    progress.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written()).toBe('');
  });

  it('draws on a TTY and ends with the final text', async () => {
    const { stream, written } = fakeStream(true);
    const progress = await createProgress(stream, true, {});
    progress.update('importing 1');
    progress.update('importing 2');
    progress.succeed('imported 2');
    await new Promise((resolve) => setImmediate(resolve));
    expect(written()).toContain('imported 2');
  });
});

describe('colorEnabled', () => {
  it.each<[string, boolean, { color?: boolean }, NodeJS.ProcessEnv, boolean]>([
    ['TTY', true, {}, {}, true],
    ['no TTY', false, {}, {}, false],
    ['--no-color', true, { color: false }, {}, false],
    ['--color (default true)', true, { color: true }, {}, true],
    ['NO_COLOR=1', true, {}, { NO_COLOR: '1' }, false],
    ['NO_COLOR empty is ignored', true, {}, { NO_COLOR: '' }, true],
    ['TERM=dumb', true, {}, { TERM: 'dumb' }, false],
  ])('%s', (_name, isTTY, flags, env, expected) => {
    expect(colorEnabled({ isTTY }, flags, env)).toBe(expected);
  });
});
