import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { readRecords } from '../import/read-records.js';
import type { OutputFormat } from './format.js';
import { csvRow, installEpipeHandler, renderCell, writeRecords } from './write.js';

/** A writable that collects text; `highWaterMark` small to exercise backpressure. */
function collector(options: { highWaterMark?: number; delayMs?: number } = {}): { out: Writable; text: () => string; drains: () => number } {
  let text = '';
  let drains = 0;
  const out = new Writable({
    highWaterMark: options.highWaterMark ?? 16_384,
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      text += chunk.toString();
      if (options.delayMs === undefined) callback();
      else setTimeout(callback, options.delayMs);
    },
  });
  out.on('drain', () => {
    drains += 1;
  });
  return { out, text: () => text, drains: () => drains };
}

const attributes = [
  { attribute_id: 'color', type: 'enum', name: { en: 'Colour', de: 'Farbe' }, labels: ['sku', 'ean'], searchable: true },
  { attribute_id: 'note', type: 'text', name: { en: 'Note, "quoted"\nsecond line' }, labels: [], searchable: false, display_order: 3 },
];

async function render(format: OutputFormat, records: Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>, fields: string[], extra: { jsonEnvelope?: (items: unknown[]) => unknown } = {}): Promise<string> {
  const { out, text } = collector();
  await writeRecords(out, format, records, { fields, ...extra });
  return text();
}

describe('renderCell', () => {
  it.each<[string, unknown, string]>([
    ['undefined', undefined, ''],
    ['null', null, ''],
    ['string', 'x y', 'x y'],
    ['number', 4.5, '4.5'],
    ['boolean', false, 'false'],
    ['language map', { en: 'Colour', de: 'Farbe' }, 'en: Colour; de: Farbe'],
    ['language map with region', { 'pt-BR': 'Cor' }, 'pt-BR: Cor'],
    ['empty object', {}, ''],
    ['array of strings', ['sku', 'ean'], 'sku|ean'],
    ['empty array', [], ''],
    ['array of objects', [{ a: 1 }, { en: 'x' }], '{"a":1}|en: x'],
    ['nested array', [[1, 2], 'x'], '[1,2]|x'],
    ['other object', { organization: '', value: { en: 'red' } }, '{"organization":"","value":{"en":"red"}}'],
    ['object with non-language keys and strings', { foo_bar: 'x' }, '{"foo_bar":"x"}'],
    ['date', new Date('2026-01-02T03:04:05.000Z'), '2026-01-02T03:04:05.000Z'],
  ])('%s', (_name, value, expected) => {
    expect(renderCell(value)).toBe(expected);
  });
});

describe('writeRecords', () => {
  it('json without envelope is exactly JSON.stringify(items, null, 2), projected onto fields', async () => {
    const text = await render('json', attributes, ['attribute_id', 'name', 'display_order']);
    const expected = attributes.map((a) => ({ attribute_id: a.attribute_id, name: a.name, ...('display_order' in a ? { display_order: a.display_order } : {}) }));
    expect(text).toBe(`${JSON.stringify(expected, null, 2)}\n`);
  });

  it.each<[string, Record<string, unknown>[]]>([['empty', []], ['one', [{ a: 1 }]]])('json of %s list matches JSON.stringify', async (_n, items) => {
    expect(await render('json', items, [])).toBe(`${JSON.stringify(items, null, 2)}\n`);
  });

  it('json with an envelope prints one document', async () => {
    async function* pages(): AsyncGenerator<Record<string, unknown>> {
      yield { id: 'a' };
      yield { id: 'b' };
    }
    const text = await render('json', pages(), ['id'], { jsonEnvelope: (items) => ({ sessionId: 's', page: 1, results: items }) });
    expect(JSON.parse(text)).toEqual({ sessionId: 's', page: 1, results: [{ id: 'a' }, { id: 'b' }] });
  });

  it('ndjson: one compact object per line; empty fields = whole records; dotted fields keep the shape', async () => {
    expect(await render('ndjson', attributes, [])).toBe(attributes.map((a) => `${JSON.stringify(a)}\n`).join(''));
    expect(await render('ndjson', attributes, ['attribute_id', 'name.de'])).toBe('{"attribute_id":"color","name":{"de":"Farbe"}}\n{"attribute_id":"note"}\n');
    expect(await render('ndjson', attributes, ['name', 'name.de'])).toBe(`${JSON.stringify({ name: attributes[0]?.name })}\n${JSON.stringify({ name: attributes[1]?.name })}\n`);
  });

  it('csv: header, RFC 4180 quoting, nested values rendered', async () => {
    const text = await render('csv', attributes, ['attribute_id', 'name', 'labels', 'searchable', 'display_order']);
    expect(text).toBe(
      'attribute_id,name,labels,searchable,display_order\n' +
        'color,en: Colour; de: Farbe,sku|ean,true,\n' +
        'note,"en: Note, ""quoted""\nsecond line",,false,3\n',
    );
  });

  it('csv: header only for no records; first record keys when no fields', async () => {
    expect(await render('csv', [], ['a', 'b'])).toBe('a,b\n');
    expect(await render('csv', [{ x: 1, y: ' padded ' }], [])).toBe('x,y\n1," padded "\n');
  });

  it('tsv: tabs, newlines, CR and backslashes escaped', async () => {
    const text = await render('tsv', [{ a: 'x\ty', b: 'line1\nline2\r', c: 'C:\\dir' }], ['a', 'b', 'c']);
    expect(text).toBe('a\tb\tc\nx\\ty\tline1\\nline2\\r\tC:\\\\dir\n');
  });

  it('table: cli-table3 with the fields as columns, no colour codes by default', async () => {
    const text = await render('table', attributes, ['attribute_id', 'labels']);
    const lines = text.trimEnd().split('\n');
    expect(lines[1]).toMatch(/│ attribute_id │ labels +│/);
    expect(text).toContain('sku|ean');
    expect(text).not.toContain('\u001b[');
  });

  it('csv written here reads back identically (quoting round trip)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'catalog-write-'));
    try {
      const rows = [{ id: 'a', text: 'plain' }, { id: 'b', text: ' lead/trail ' }, { id: 'c', text: 'comma, "quote"\nnewline' }, { id: 'd', text: '' }];
      const path = join(dir, 'out.csv');
      await writeFile(path, await render('csv', rows, ['id', 'text']));
      const back: unknown[] = [];
      for await (const e of readRecords({ path }, 'csv')) back.push('record' in e ? e.record : e);
      expect(back).toEqual(rows);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('ndjson honours backpressure: waits for drain, pulls records lazily', async () => {
    const { out, text, drains } = collector({ highWaterMark: 64, delayMs: 1 });
    let produced = 0;
    let maxAhead = 0;
    function* gen(): Generator<Record<string, unknown>> {
      for (let i = 0; i < 200; i += 1) {
        produced += 1;
        const written = text().split('\n').length - 1;
        maxAhead = Math.max(maxAhead, produced - written);
        yield { i, pad: 'x'.repeat(50) };
      }
    }
    await writeRecords(out, 'ndjson', gen(), { fields: [] });
    await new Promise<void>((resolve) => out.end(resolve));
    expect(text().split('\n').filter(Boolean)).toHaveLength(200);
    expect(drains()).toBeGreaterThan(10);
    expect(maxAhead).toBeLessThan(5);
  });
});

describe('closed pipe (EPIPE)', () => {
  function epipeStream(afterWrites: number): { out: Writable; writes: () => number } {
    let writes = 0;
    const out = new Writable({
      highWaterMark: 1,
      write(_chunk, _encoding, callback) {
        writes += 1;
        if (writes > afterWrites) callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
        else callback();
      },
    });
    return { out, writes: () => writes };
  }

  it('writeRecords stops quietly and stops pulling records', async () => {
    const { out } = epipeStream(3);
    let pulled = 0;
    function* endless(): Generator<Record<string, unknown>> {
      for (;;) {
        pulled += 1;
        yield { n: pulled };
      }
    }
    await expect(writeRecords(out, 'ndjson', endless(), { fields: [] })).resolves.toBeUndefined();
    expect(pulled).toBeLessThan(10);
  });

  it('installEpipeHandler swallows EPIPE and calls onEpipe', async () => {
    const { out } = epipeStream(0);
    const onEpipe = vi.fn();
    const uninstall = installEpipeHandler(out, { onEpipe });
    out.write('x');
    await new Promise((resolve) => setImmediate(resolve));
    expect(onEpipe).toHaveBeenCalledTimes(1);
    uninstall();
    expect(out.listenerCount('error')).toBe(0);
  });

  it('installEpipeHandler rethrows other errors when nobody else listens', () => {
    const { out } = epipeStream(0);
    installEpipeHandler(out, { onEpipe: () => undefined });
    expect(() => out.emit('error', Object.assign(new Error('disk full'), { code: 'ENOSPC' }))).toThrow('disk full');
  });

  it('writeRecords rethrows a stream error that is not EPIPE', async () => {
    const out = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error('disk full'), { code: 'ENOSPC' }));
      },
    });
    function* many(): Generator<Record<string, unknown>> {
      for (let i = 0; i < 100_000; i += 1) yield { i };
    }
    await expect(writeRecords(out, 'ndjson', many(), { fields: [] })).rejects.toThrow('disk full');
  });
});

describe('csvRow', () => {
  it.each<[string[], string]>([
    [['a', 'b'], 'a,b\n'],
    [['a,b', 'c"d'], '"a,b","c""d"\n'],
    [['', 'x\ny'], ',"x\ny"\n'],
  ])('%j', (values, expected) => {
    expect(csvRow(values)).toBe(expected);
  });
});
