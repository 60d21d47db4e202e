import { describe, expect, it } from 'vitest';
import { ALLOWED_INFO_TOKENS, parseImageInfo, POSITION_ROLE_ERROR, priorityOf, validateImagePosition } from './info-tokens.js';
import type { ParsedInfo } from './info-tokens.js';

const ALLOWED = 'allowed tokens: searchable, display, weight=<number>, position=<integer >= 0>';

describe('parseImageInfo: valid info', () => {
  const cases: { info: string; expected: ParsedInfo }[] = [
    { info: 'searchable', expected: { searchable: true, display: false, tokens: ['searchable'] } },
    { info: 'display', expected: { searchable: false, display: true, tokens: ['display'] } },
    { info: 'searchable display', expected: { searchable: true, display: true, tokens: ['searchable', 'display'] } },
    { info: 'display searchable', expected: { searchable: true, display: true, tokens: ['display', 'searchable'] } },
    { info: '  display \t searchable\n', expected: { searchable: true, display: true, tokens: ['display', 'searchable'] } },
    { info: 'display weight=3', expected: { searchable: false, display: true, weight: 3, tokens: ['display', 'weight=3'] } },
    { info: 'display weight=-2.5', expected: { searchable: false, display: true, weight: -2.5, tokens: ['display', 'weight=-2.5'] } },
    { info: 'display weight=+0.25', expected: { searchable: false, display: true, weight: 0.25, tokens: ['display', 'weight=+0.25'] } },
    { info: 'display weight=.5', expected: { searchable: false, display: true, weight: 0.5, tokens: ['display', 'weight=.5'] } },
    { info: 'display weight=7.', expected: { searchable: false, display: true, weight: 7, tokens: ['display', 'weight=7.'] } },
    { info: 'display weight=-0', expected: { searchable: false, display: true, weight: 0, tokens: ['display', 'weight=-0'] } },
    { info: 'display position=0', expected: { searchable: false, display: true, positionToken: 0, tokens: ['display', 'position=0'] } },
    { info: 'display position=012', expected: { searchable: false, display: true, positionToken: 12, tokens: ['display', 'position=012'] } },
    {
      info: 'searchable display position=2 weight=9',
      expected: { searchable: true, display: true, weight: 9, positionToken: 2, tokens: ['searchable', 'display', 'position=2', 'weight=9'] },
    },
    { info: 'weight=1', expected: { searchable: false, display: false, weight: 1, tokens: ['weight=1'] } },
  ];
  it.each(cases)('$info', ({ info, expected }) => {
    const result = parseImageInfo(info);
    expect(result).toEqual({ ok: true, info: expected });
    if (result.ok) expect(Object.is(result.info.weight, -0)).toBe(false);
  });
});

describe('parseImageInfo: invalid info collects every problem', () => {
  const cases: { info: string; messages: string[] }[] = [
    { info: '', messages: [`info must not be empty; ${ALLOWED}`] },
    { info: '   \t ', messages: [`info must not be empty; ${ALLOWED}`] },
    { info: 'thumbnail', messages: [`unknown info token 'thumbnail'; ${ALLOWED}`] },
    { info: 'Display', messages: [`unknown info token 'Display'; ${ALLOWED}`] },
    { info: 'display=1', messages: [`unknown info token 'display=1'; ${ALLOWED}`] },
    { info: 'priority=3', messages: [`unknown info token 'priority=3'; ${ALLOWED}`] },
    { info: 'display weight=abc', messages: ["info token 'weight=abc': weight must be a finite decimal number"] },
    { info: 'display weight=', messages: ["info token 'weight=': weight must be a finite decimal number"] },
    { info: 'display weight=1e3', messages: ["info token 'weight=1e3': weight must be a finite decimal number"] },
    { info: 'display weight=0x10', messages: ["info token 'weight=0x10': weight must be a finite decimal number"] },
    { info: 'display weight=Infinity', messages: ["info token 'weight=Infinity': weight must be a finite decimal number"] },
    { info: 'display weight=NaN', messages: ["info token 'weight=NaN': weight must be a finite decimal number"] },
    { info: `display weight=${'9'.repeat(400)}`, messages: [`info token 'weight=${'9'.repeat(400)}': weight must be a finite decimal number`] },
    { info: 'display weight', messages: ["info token 'weight' needs a value: weight=<number>"] },
    { info: 'display position', messages: ["info token 'position' needs a value: position=<integer >= 0>"] },
    { info: 'display position=-1', messages: ["info token 'position=-1': position must be an integer >= 0"] },
    { info: 'display position=1.5', messages: ["info token 'position=1.5': position must be an integer >= 0"] },
    { info: 'display position=+1', messages: ["info token 'position=+1': position must be an integer >= 0"] },
    { info: 'display position=99999999999999999999', messages: ["info token 'position=99999999999999999999': position must be an integer >= 0"] },
    { info: 'display display', messages: ["duplicate info token 'display'"] },
    { info: 'searchable display searchable', messages: ["duplicate info token 'searchable'"] },
    { info: 'display weight=1 weight=2', messages: ["duplicate info token 'weight=2'"] },
    { info: 'display position=1 position=1', messages: ["duplicate info token 'position=1'"] },
    {
      info: 'display foo weight=x display bar position=-2',
      messages: [
        `unknown info token 'foo'; ${ALLOWED}`,
        "info token 'weight=x': weight must be a finite decimal number",
        "duplicate info token 'display'",
        `unknown info token 'bar'; ${ALLOWED}`,
        "info token 'position=-2': position must be an integer >= 0",
      ],
    },
    { info: 'weight=1 weight=z', messages: ["duplicate info token 'weight=z'", "info token 'weight=z': weight must be a finite decimal number"] },
  ];
  it.each(cases)('$info', ({ info, messages }) => {
    expect(parseImageInfo(info)).toEqual({ ok: false, messages });
  });

  it('reports a non-string info instead of throwing', () => {
    expect(parseImageInfo(42 as unknown as string)).toEqual({ ok: false, messages: ['info must be a string'] });
  });

  it('lists the allowed tokens', () => {
    expect(ALLOWED_INFO_TOKENS).toEqual(['searchable', 'display', 'weight=<number>', 'position=<integer >= 0>']);
  });
});

describe('priorityOf', () => {
  const info = (s: string): ParsedInfo => {
    const r = parseImageInfo(s);
    if (!r.ok) throw new Error(r.messages.join('; '));
    return r.info;
  };
  it.each([
    ['display', undefined],
    ['display weight=4', 4],
    ['display position=2', 2],
    ['display position=2 weight=9', 9],
    ['display weight=9 position=2', 9],
    ['display weight=0 position=2', 0],
  ] as const)('%s → %s', (s, expected) => {
    expect(priorityOf(info(s))).toBe(expected);
  });
});

describe('validateImagePosition', () => {
  const display: ParsedInfo = { searchable: false, display: true, tokens: ['display'] };
  const searchable: ParsedInfo = { searchable: true, display: false, tokens: ['searchable'] };
  const NOT_INT = 'position must be an integer >= 1';
  const NOT_DISPLAY = 'position is only allowed when info contains the token display';
  const cases: { name: string; position: unknown; info: ParsedInfo | undefined; messages: string[] }[] = [
    { name: 'absent', position: undefined, info: searchable, messages: [] },
    { name: 'null', position: null, info: searchable, messages: [] },
    { name: '1 with display', position: 1, info: display, messages: [] },
    { name: 'large with display', position: 1_000_000, info: display, messages: [] },
    { name: '0', position: 0, info: display, messages: [NOT_INT] },
    { name: 'negative', position: -3, info: display, messages: [NOT_INT] },
    { name: 'fraction', position: 1.5, info: display, messages: [NOT_INT] },
    { name: 'string', position: '2', info: display, messages: [NOT_INT] },
    { name: 'NaN', position: Number.NaN, info: display, messages: [NOT_INT] },
    { name: 'unsafe integer', position: 2 ** 60, info: display, messages: [NOT_INT] },
    { name: 'without display', position: 2, info: searchable, messages: [NOT_DISPLAY] },
    { name: 'bad and without display', position: 0, info: searchable, messages: [NOT_INT, NOT_DISPLAY] },
    { name: 'invalid info: number only', position: 2, info: undefined, messages: [] },
    { name: 'invalid info, bad number', position: -1, info: undefined, messages: [NOT_INT] },
  ];
  it.each(cases)('$name', ({ position, info, messages }) => {
    expect(validateImagePosition(position, info)).toEqual(messages);
  });
});

describe('POSITION_ROLE_ERROR', () => {
  it('is the exact spec §7 wording', () => {
    expect(POSITION_ROLE_ERROR('img-1')).toBe("image 'img-1' only authorized roles can set position");
  });
});
