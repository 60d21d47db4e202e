import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../output/usage-error.js';
import { formatFromPath, locationLabel, readRecords } from './read-records.js';
import type { ImportFormat, ReadEntry } from './read-records.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalog-read-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fileWith(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text, 'utf8');
  return path;
}

async function collect(entries: AsyncIterable<ReadEntry>): Promise<ReadEntry[]> {
  const out: ReadEntry[] = [];
  for await (const e of entries) out.push(e);
  return out;
}

/** `{line, record}` → `[line, record]`, `{line, error}` → `[line, 'ERR: <error>']` for compact expectations. */
function compact(entries: ReadEntry[]): [number, unknown][] {
  return entries.map((e) => ('error' in e ? [e.line, `ERR: ${e.error}`] : [e.line, e.record]));
}

describe('readRecords: csv', () => {
  const cases: { name: string; text: string; expected: [number, unknown][] }[] = [
    {
      name: 'header names trimmed, values kept exactly: spaces, tabs, NBSP are data',
      text: 'a, b\n1, two \n" ",\t\u00a0x\u00a0\n',
      expected: [[2, { a: '1', b: ' two ' }], [3, { a: ' ', b: '\t\u00a0x\u00a0' }]],
    },
    {
      name: 'BOM and CRLF',
      text: '\uFEFFa,b\r\n1,2\r\n3,4\r\n',
      expected: [[2, { a: '1', b: '2' }], [3, { a: '3', b: '4' }]],
    },
    {
      name: 'blank lines are skipped, line numbers stay true',
      text: 'a,b\n\n1,2\n   \n3,4\n',
      expected: [[3, { a: '1', b: '2' }], [5, { a: '3', b: '4' }]],
    },
    {
      name: 'quoted multi-line value: the line where the record starts',
      text: 'a,b\n1,"x\ny"\n3,4\n',
      expected: [[2, { a: '1', b: 'x\ny' }], [4, { a: '3', b: '4' }]],
    },
    {
      name: 'quoted multi-line value with CRLF, then a broken row: lines stay true',
      text: 'a,b\r\n1,"x\r\ny"\r\n3,"4\r\n5,6\r\n',
      expected: [[2, { a: '1', b: 'x\r\ny' }], [4, expect.stringMatching(/this line is the broken row; reading goes on at line 5/)], [5, { a: '5', b: '6' }]],
    },
    {
      name: 'wrong column count (too few, too many) reports the line and continues',
      text: 'a,b\n1,2\n3\n4,5,6\n7,8\n',
      expected: [
        [2, { a: '1', b: '2' }],
        [3, 'ERR: Invalid Record Length: columns length is 2, got 1'],
        [4, 'ERR: Invalid Record Length: columns length is 2, got 3'],
        [5, { a: '7', b: '8' }],
      ],
    },
    {
      name: 'bad quote inside an unquoted field: one error for the row, then continues',
      text: 'a,b\n1,x"y"\n3,4\n',
      expected: [[2, expect.stringMatching(/^ERR: Invalid Opening Quote/)], [3, { a: '3', b: '4' }]],
    },
    {
      name: 'a quote that a later quote closes: the row where it opened is broken, the rows after it are read',
      text: 'a,b\n1,2\n3,"4\n5,6\n7,"8"\n9,10\n',
      expected: [[2, { a: '1', b: '2' }], [3, expect.stringMatching(/^ERR: Invalid Closing Quote.*this line is the broken row; reading goes on at line 4\)$/)], [4, { a: '5', b: '6' }], [5, { a: '7', b: '8' }], [6, { a: '9', b: '10' }]],
    },
    {
      name: 'an unclosed quote to the end of the input: only its own row is broken',
      text: 'a,b\n1,2\n3,"4\n5,6\n',
      expected: [[2, { a: '1', b: '2' }], [3, expect.stringMatching(/^ERR: Quote Not Closed.*this line is the broken row; reading goes on at line 4\)$/)], [4, { a: '5', b: '6' }]],
    },
    {
      name: 'lines that do not read as a row on their own belong to the broken row',
      text: 'a,b\n1,"multi\nline "with" quotes\n\n2,"x"y\n3,4\n',
      expected: [[2, expect.stringMatching(/lines 2-5 are this broken row; reading goes on at line 6\)$/)], [6, { a: '3', b: '4' }]],
    },
    {
      name: 'duplicate header column stops at line 1',
      text: 'a,a\n1,2\n',
      expected: [[1, "ERR: column 'a' appears twice in the header"]],
    },
    {
      name: 'empty header column stops at line 1',
      text: 'a,\n1,2\n',
      expected: [[1, 'ERR: column 2 of the header has no name']],
    },
    { name: 'header only', text: 'a,b\n', expected: [] },
    { name: 'empty file', text: '', expected: [] },
  ];
  it.each(cases)('$name', async ({ name, text, expected }) => {
    const path = await fileWith(`${name.replace(/\W+/g, '_')}.csv`, text);
    expect(compact(await collect(readRecords({ path }, 'csv')))).toEqual(expected);
  });

  it('a record over maxRecordBytes (a runaway quote) is one broken row; the rows after it are read', async () => {
    const path = await fileWith('runaway.csv', `a,b\n1,2\n3,"4${'x'.repeat(200)}\n${'5,6\n'.repeat(200)}`);
    const entries = await collect(readRecords({ path }, 'csv', { maxRecordBytes: 100 }));
    expect(compact(entries.slice(0, 3))).toEqual([[2, { a: '1', b: '2' }], [3, expect.stringMatching(/^ERR: record larger than 100 characters.*its text cut; reading goes on at line 4/)], [4, { a: '5', b: '6' }]]);
    expect(entries).toHaveLength(202);
    expect(entries[1]).toMatchObject({ raw: `3,"4${'x'.repeat(96)}` });
  });

  it.each<[string, string, string, ImportFormat]>([
    ['too many cells', 'a,b\n1,2,3\n4,5\n', '1,2,3', 'csv'],
    ['a bad quote in an unquoted field (csv-parse reports the text up to the quote)', 'a,b\r\n1,x"y",z\r\n4,5\r\n', '1,x"y",z', 'csv'],
    ['an unclosed quote', 'a,b\n1,"2\n4,5\n', '1,"2', 'csv'],
    ['too many cells, tsv', 'a\tb\n1\t2\t3\n4\t5\n', '1\t2\t3', 'tsv'],
  ])('keeps the whole text of a broken row: %s', async (_name, text, raw, format) => {
    const path = await fileWith(`raw-${_name.replace(/\W+/g, '_')}.${format}`, text);
    const entries = await collect(readRecords({ path }, format));
    expect(entries[0]).toMatchObject({ line: 2, raw });
    expect(entries[1]).toMatchObject({ line: 3, record: { a: '4', b: '5' } });
  });

  it('recovers from an unclosed quote whatever the chunks: one byte at a time from stdin', async () => {
    const text = 'a,b\n1,2\n\n3,"open\n4,four\n5,"five, quoted"\n6,"x\ny"\n7,"unclosed\n';
    const stdin = Readable.from([...Buffer.from(text)].map((b) => Buffer.from([b])));
    expect(compact(await collect(readRecords({ stdin }, 'csv')))).toEqual([
      [2, { a: '1', b: '2' }],
      [4, expect.stringMatching(/^ERR: (Invalid Closing Quote|Quote Not Closed)/)],
      [5, { a: '4', b: 'four' }],
      [6, { a: '5', b: 'five, quoted' }],
      [7, { a: '6', b: 'x\ny' }],
      [9, expect.stringMatching(/^ERR: Quote Not Closed.*no row follows\)$/)],
    ]);
  });

  it('reads stdin', async () => {
    const stdin = Readable.from([Buffer.from('\uFEFFid,na'), Buffer.from('me\nx,y\n')]);
    expect(compact(await collect(readRecords({ stdin }, 'csv')))).toEqual([[2, { id: 'x', name: 'y' }]]);
  });

  it('throws for a missing file', async () => {
    await expect(collect(readRecords({ path: join(dir, 'nope.csv') }, 'csv'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('stops reading when the consumer breaks out', async () => {
    const path = await fileWith('many.csv', `a\n${'x\n'.repeat(10_000)}`);
    let n = 0;
    for await (const _ of readRecords({ path }, 'csv')) if (++n === 3) break;
    expect(n).toBe(3);
  });
});

describe('readRecords: ndjson', () => {
  const cases: { name: string; text: string; expected: [number, unknown][] }[] = [
    {
      name: 'objects, blank lines skipped, BOM, CRLF',
      text: '\uFEFF{"a":1}\r\n\r\n{"a":2}\n',
      expected: [[1, { a: 1 }], [3, { a: 2 }]],
    },
    {
      name: 'a bad line is reported and reading continues',
      text: '{"a":1}\n{"a":\n{"a":3}\n',
      expected: [[1, { a: 1 }], [2, expect.stringMatching(/^ERR: invalid JSON: /)], [3, { a: 3 }]],
    },
    {
      name: 'non-objects are errors',
      text: '[1]\n5\nnull\n"x"\n',
      expected: [
        [1, 'ERR: expected a JSON object, got an array'],
        [2, 'ERR: expected a JSON object, got a number'],
        [3, 'ERR: expected a JSON object, got null'],
        [4, 'ERR: expected a JSON object, got a string'],
      ],
    },
    { name: 'no final newline', text: '{"a":1}', expected: [[1, { a: 1 }]] },
  ];
  it.each(cases)('$name', async ({ name, text, expected }) => {
    const path = await fileWith(`${name.replace(/\W+/g, '_')}.ndjson`, text);
    expect(compact(await collect(readRecords({ path }, 'ndjson')))).toEqual(expected);
  });

  it('reads stdin and keeps the raw text of a bad line', async () => {
    const stdin = new PassThrough();
    stdin.end('{"a":1}\nnot json\n');
    const entries = await collect(readRecords({ stdin }, 'ndjson'));
    expect(entries[1]).toMatchObject({ line: 2, raw: 'not json' });
  });
});

describe('readRecords: json', () => {
  const cases: { name: string; text: string; expected: [number, unknown][] }[] = [
    {
      name: 'an array of objects; strings with brackets, commas and escapes',
      text: '\uFEFF [ {"a": "x,]}\\"["}, {"b": [1, {"c": 2}]} ]\n',
      expected: [[1, { a: 'x,]}"[' }], [2, { b: [1, { c: 2 }] }]],
    },
    { name: 'empty array', text: '[]', expected: [] },
    { name: 'empty input', text: '', expected: [] },
    {
      name: 'bad item is reported as its index, reading continues',
      text: '[{"a":1}, {"a":}, 7, {"a":3}]',
      expected: [[1, { a: 1 }], [2, expect.stringMatching(/^ERR: invalid JSON/)], [3, 'ERR: expected a JSON object, got a number'], [4, { a: 3 }]],
    },
    { name: 'not an array', text: '{"a":1}', expected: [[0, expect.stringMatching(/^ERR: a JSON input must be one array/)]] },
    { name: 'cut off', text: '[{"a":1}, {"a":', expected: [[1, { a: 1 }], [2, expect.stringMatching(/^ERR: unexpected end of input/)]] },
    { name: 'content after the array', text: '[{"a":1}] x', expected: [[1, { a: 1 }], [2, expect.stringMatching(/^ERR: unexpected content/)]] },
  ];
  it.each(cases)('$name', async ({ name, text, expected }) => {
    const path = await fileWith(`${name.replace(/\W+/g, '_')}.json`, text);
    expect(compact(await collect(readRecords({ path }, 'json')))).toEqual(expected);
  });

  it('splits multi-byte characters and items across chunks', async () => {
    const text = JSON.stringify([{ name: 'Größe ✓ 日本' }, { name: 'b' }]);
    const bytes = Buffer.from(text, 'utf8');
    const stdin = Readable.from([...bytes].map((b) => Buffer.from([b])));
    expect(compact(await collect(readRecords({ stdin }, 'json')))).toEqual([[1, { name: 'Größe ✓ 日本' }], [2, { name: 'b' }]]);
  });
});

describe('streaming', () => {
  it('reads a 200,000-row CSV file', async () => {
    const path = join(dir, 'big.csv');
    const rows: string[] = ['part_id,name.en,attr:color.en\n'];
    for (let i = 0; i < 200_000; i += 1) rows.push(`p-${i},Part ${i},red\n`);
    await writeFile(path, rows.join(''));
    rows.length = 0;
    const started = performance.now();
    let count = 0;
    let last = 0;
    for await (const entry of readRecords({ path }, 'csv')) {
      if ('error' in entry) throw new Error(entry.error);
      count += 1;
      last = entry.line;
    }
    expect(count).toBe(200_000);
    expect(last).toBe(200_001);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  /** A stdin that produces rows on demand and counts how many it produced. */
  function lazyInput(header: string, row: (i: number) => string, total: number): { stdin: Readable; produced: () => number } {
    let i = 0;
    const stdin = new Readable({
      read() {
        if (i === 0 && header !== '') this.push(header);
        if (i >= total) {
          this.push(null);
          return;
        }
        let chunk = '';
        for (let k = 0; k < 100 && i < total; k += 1, i += 1) chunk += row(i);
        this.push(chunk);
      },
    });
    return { stdin, produced: () => i };
  }

  it.each<[ImportFormat, string, (i: number) => string]>([
    ['csv', 'id,name\n', (i) => `p-${i},Part ${i}\n`],
    ['ndjson', '', (i) => `{"id":"p-${i}","name":"Part ${i}"}\n`],
    ['json', '[', (i) => `${i === 0 ? '' : ','}{"id":"p-${i}"}`],
  ])('%s: the first record arrives long before the input is consumed', async (format, header, row) => {
    const total = 200_000;
    const input = lazyInput(header, row, total);
    const entries = readRecords({ stdin: input.stdin }, format);
    const first = await entries.next();
    expect(first.value).toMatchObject({ line: format === 'csv' ? 2 : 1 });
    expect(input.produced()).toBeLessThan(total / 10);
    await entries.return();
  });
});

describe('formatFromPath', () => {
  it.each<[string, string | undefined, ImportFormat]>([
    ['a.csv', undefined, 'csv'],
    ['A.CSV', undefined, 'csv'],
    ['x/y.json', undefined, 'json'],
    ['y.ndjson', undefined, 'ndjson'],
    ['y.jsonl', undefined, 'ndjson'],
    ['y.txt', 'csv', 'csv'],
    ['-', 'NDJSON', 'ndjson'],
    ['-', 'jsonl', 'ndjson'],
    ['a.csv', 'json', 'json'],
  ])('%s with --format %s → %s', (path, flag, expected) => {
    expect(formatFromPath(path, flag)).toBe(expected);
  });

  it.each<[string, string | undefined, RegExp]>([
    ['y.txt', undefined, /cannot tell the format of 'y.txt'.*--format csv\|tsv\|json\|ndjson/],
    ['noext', undefined, /cannot tell the format/],
    ['-', undefined, /stdin \(-\) needs --format/],
    ['a.csv', 'xml', /invalid --format 'xml'; valid formats: csv, tsv, json, ndjson/],
  ])('%s with --format %s is a usage error', (path, flag, message) => {
    expect(() => formatFromPath(path, flag)).toThrow(UsageError);
    expect(() => formatFromPath(path, flag)).toThrow(message);
  });

  it('labels positions', () => {
    expect([locationLabel('csv', 3), locationLabel('ndjson', 4), locationLabel('json', 2), locationLabel('json', 0)]).toEqual(['line 3', 'line 4', 'item 2', 'input']);
  });
});
