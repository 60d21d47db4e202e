import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErrorsFile, defaultErrorsPath } from './errors-file.js';
import type { ImportFormat } from '../import/read-records.js';
import { readRecords } from '../import/read-records.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalog-errors-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('defaultErrorsPath', () => {
  it.each<[string | null, ImportFormat | undefined, string]>([
    ['data/parts.csv', undefined, join('data', 'parts.errors.csv')],
    ['parts.jsonl', undefined, 'parts.errors.jsonl'],
    ['parts.jsonl', 'ndjson', 'parts.errors.jsonl'],
    ['/abs/parts.txt', 'csv', '/abs/parts.errors.csv'],
    ['parts.csv', 'json', 'parts.errors.json'],
    ['noext', undefined, 'noext.errors.ndjson'],
    ['-', undefined, 'import.errors.ndjson'],
    ['-', 'csv', 'import.errors.csv'],
    [null, undefined, 'import.errors.ndjson'],
  ])('%s (%s) → %s', (input, format, expected) => {
    expect(defaultErrorsPath(input, format)).toBe(expected);
  });
});

describe('createErrorsFile', () => {
  it('creates no file when nothing failed', async () => {
    const path = join(dir, 'none.errors.csv');
    const file = createErrorsFile(path, 'csv', ['a']);
    await file.close();
    expect(file.count).toBe(0);
    await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('csv: original columns + _line + _error + _raw; unreadable rows carry their text in _raw; re-readable', async () => {
    const path = join(dir, 'parts.errors.csv');
    const file = createErrorsFile(path, 'csv', ['part_id', 'name.en', '_line', '_error']);
    await file.write({ line: 3, error: ['name.en: too long', 'attr:x.en: unknown'], record: { part_id: 'P,1', 'name.en': 'Bolt "big"', _line: '9', _error: 'old' } });
    await file.write({ line: 7, error: 'Invalid Record Length: columns length is 2, got 3', raw: 'a,b,c\n' });
    await file.close();
    expect(file.count).toBe(2);
    expect(await readFile(path, 'utf8')).toBe(
      'part_id,name.en,_line,_error,_raw\n' +
        '"P,1","Bolt ""big""",3,name.en: too long; attr:x.en: unknown,\n' +
        ',,7,"Invalid Record Length: columns length is 2, got 3","a,b,c"\n',
    );
    const back: unknown[] = [];
    for await (const e of readRecords({ path }, 'csv')) back.push('record' in e ? e.record : e);
    expect(back).toEqual([
      { part_id: 'P,1', 'name.en': 'Bolt "big"', _line: '3', _error: 'name.en: too long; attr:x.en: unknown', _raw: '' },
      { part_id: '', 'name.en': '', _line: '7', _error: 'Invalid Record Length: columns length is 2, got 3', _raw: 'a,b,c' },
    ]);
  });

  it('csv without columns uses the first record keys', async () => {
    const path = join(dir, 'nocols.errors.csv');
    const file = createErrorsFile(path, 'csv');
    await file.write({ line: 2, error: 'x', record: { a: '1', b: '2' } });
    await file.close();
    expect(await readFile(path, 'utf8')).toBe('a,b,_line,_error,_raw\n1,2,2,x,\n');
  });

  it('csv without columns: an unreadable first row waits for a record to give the header', async () => {
    const path = join(dir, 'held.errors.csv');
    const file = createErrorsFile(path, 'csv');
    await file.write({ line: 2, error: 'broken', raw: 'x,"y' });
    await file.write({ line: 3, error: 'bad', record: { a: '1', b: '2' } });
    await file.close();
    expect(await readFile(path, 'utf8')).toBe('a,b,_line,_error,_raw\n,,2,broken,"x,""y"\n1,2,3,bad,\n');
  });

  it('csv without columns and only unreadable rows still writes them at close', async () => {
    const path = join(dir, 'onlyraw.errors.csv');
    const file = createErrorsFile(path, 'csv');
    await file.write({ line: 2, error: 'broken', raw: 'x' });
    await file.close();
    expect(await readFile(path, 'utf8')).toBe('_line,_error,_raw\n2,broken,x\n');
  });

  it.each<[ImportFormat]>([['ndjson'], ['json']])('%s: the original object plus _line and _error; readable again', async (format) => {
    const path = join(dir, `x.errors.${format}`);
    const file = createErrorsFile(path, format);
    await file.write({ line: 1, error: 'bad', record: { part_id: 'P', name: { en: 'x' }, _error: 'stale' } });
    await file.write({ line: 2, error: 'invalid JSON: Unexpected token', raw: '{"part_id":' });
    await file.write({ line: 3, error: 'bad too', record: { part_id: 'Q' } });
    await file.close();
    const back: unknown[] = [];
    for await (const e of readRecords({ path }, format)) back.push('record' in e ? e.record : e);
    expect(back).toEqual([
      { part_id: 'P', name: { en: 'x' }, _line: 1, _error: 'bad' },
      { _line: 2, _error: 'invalid JSON: Unexpected token', _raw: '{"part_id":' },
      { part_id: 'Q', _line: 3, _error: 'bad too' },
    ]);
  });

  it.each<[ImportFormat]>([['csv'], ['tsv'], ['ndjson']])('%s: a row read from an earlier errors file and rejected again keeps its _raw', async (format) => {
    const path = join(dir, `again.errors.${format}`);
    const file = createErrorsFile(path, format, ['part_id', '_line', '_error', '_raw']);
    await file.write({ line: 2, error: 'part_id: required', record: { part_id: '', _line: '7', _error: 'old', _raw: 'p\t1,"x' } });
    await file.close();
    const back: unknown[] = [];
    for await (const e of readRecords({ path }, format)) back.push('record' in e ? e.record : e);
    expect(back).toEqual([{ part_id: '', _line: format === 'ndjson' ? 2 : '2', _error: 'part_id: required', _raw: 'p\t1,"x' }]);
  });

  it('json with one row is still a valid array; close twice is harmless; write after close throws', async () => {
    const path = join(dir, 'one.errors.json');
    const file = createErrorsFile(path, 'json');
    await file.write({ line: 5, error: 'e', record: { a: 1 } });
    await file.close();
    await file.close();
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual([{ a: 1, _line: 5, _error: 'e' }]);
    await expect(file.write({ line: 6, error: 'e' })).rejects.toThrow(/closed/);
  });

  it('concurrent writes keep every row intact', async () => {
    const path = join(dir, 'many.errors.ndjson');
    const file = createErrorsFile(path, 'ndjson');
    await Promise.all(Array.from({ length: 2000 }, (_, i) => file.write({ line: i + 1, error: 'e', record: { pad: 'x'.repeat(100) } })));
    await file.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(2000);
    expect(lines.map((l) => (JSON.parse(l) as { _line: number })._line)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
  });

  it('reports an I/O error (missing directory)', async () => {
    const file = createErrorsFile(join(dir, 'missing', 'x.errors.ndjson'), 'ndjson');
    await file.write({ line: 1, error: 'e' }).catch(() => undefined);
    await expect(file.close()).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
