/**
 * Contract: the ranking rules of text search (docs/search.md, "Ranking rules"): the part whose id
 * or name equals the query first, whatever separators were typed; a completion of the last word
 * below the word itself; a typo neighbour considered even when the misspelling is in the catalog,
 * ranked below the correct spelling; words typed next to each other found next to each other
 * first (proximity); part numbers found with or without their separators. Both
 * clients (and PostgreSQL through the contract-postgres project).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SearchResult } from '../../src/api/schemas.js';
import { createHarness, MODES, type Harness } from '../helpers/harness.js';

const attributes = [{ attribute_id: 'summary', type: 'text', name: { en: 'Summary' }, searchable: true }];

const ids = (results: SearchResult[]) => results.map((r) => r.id);
const summary = (text: string) => [{ attribute_id: 'summary', values: [{ organization: '', value: { en: text } }] }];

describe.each(MODES)('ranking rules (%s client)', (mode) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness(mode);
    expect((await h.admin.upsertAttributes(attributes)).errors).toEqual({});
  });
  afterEach(async () => {
    await h.close();
  });

  it('the part named exactly as the query comes first among 1,000 parts containing the word', async () => {
    const parts = Array.from({ length: 1000 }, (_, i) => ({
      part_id: `debug-${String(i).padStart(4, '0')}`,
      // Short names that repeat the word: BM25 alone prefers them to the exact name.
      name: { en: i % 2 === 0 ? `debug debug ${i}` : `debug-tools ${i}` },
      attributes: summary('debug debug debug'),
    }));
    parts.push({ part_id: 'npm-debug', name: { en: 'debug' }, attributes: summary('small debugging utility for node') });
    for (let i = 0; i < parts.length; i += 500) expect((await h.admin.upsertParts(parts.slice(i, i + 500))).errors).toEqual({});
    for (const text of ['debug', 'debug ', 'Debug ']) {
      const found = await h.admin.search({ matches: { text }, resultOptions: { limit: 3 } });
      expect(found.resultsTotalCount, text).toBe(1001);
      expect(ids(found.results)[0], text).toBe('npm-debug');
    }
    // The part id typed as it is also names the part.
    expect(ids((await h.admin.search({ matches: { text: 'npm-debug' }, resultOptions: { limit: 3 } })).results)[0]).toBe('npm-debug');
  });

  it('a completion of the last word ranks below the word itself, however rare the completion', async () => {
    expect((await h.admin.upsertParts([
      { part_id: 'p-debuggo', name: { en: 'debuggo' } },
      { part_id: 'p-debuggler', name: { en: 'debuggler' } },
      { part_id: 'p-debug-kit', name: { en: 'debug kit for embedded boards with many words' } },
      { part_id: 'p-other', name: { en: 'debug' } },
    ])).errors).toEqual({});
    const typed = await h.admin.search({ matches: { text: 'debug' } });
    // The exact name, then the part holding the word itself, then the completions.
    expect(ids(typed.results)).toEqual(['p-other', 'p-debug-kit', expect.any(String), expect.any(String)]);
    expect(ids(typed.results).slice(2).sort()).toEqual(['p-debuggler', 'p-debuggo']);
  });

  it('words typed next to each other rank the part holding them next to each other first, as typed and as a prefix', async () => {
    expect((await h.admin.upsertParts([
      // Both words in a short name, apart: BM25 alone puts it first.
      { part_id: 'p-apart', name: { en: 'Bearing with ball' } },
      { part_id: 'p-near', name: { en: 'Radial ball bearing, deep groove, sealed both sides' } },
      { part_id: 'p-summary', name: { en: 'Ball' }, attributes: summary('bearing housing') },
    ])).errors).toEqual({});
    for (const text of ['ball bearing', 'ball bearing ', 'ball bear']) {
      const found = await h.admin.search({ matches: { text } });
      expect(ids(found.results), text).toEqual(['p-near', 'p-apart', 'p-summary']);
    }
    // The order typed counts: `bearing ball` holds neither part's words in that order.
    expect(ids((await h.admin.search({ matches: { text: 'bearing ball' } })).results)[0]).toBe('p-apart');
  });

  it('a typo finds the correct spelling first even when the misspelling is in the catalog', async () => {
    expect((await h.admin.upsertParts([
      { part_id: 'p-typescript', name: { en: 'typescript' }, attributes: summary('a language for application scale javascript') },
      { part_id: 'p-typscript-a', name: { en: 'typscript helper' } },
      { part_id: 'p-ts-node', name: { en: 'ts-node' }, attributes: summary('typescript execution for node') },
    ])).errors).toEqual({});
    // The part named like a typo neighbour of the query comes first; the misspelling typed follows.
    const found = await h.admin.search({ matches: { text: 'typscript ' } });
    expect(ids(found.results).slice(0, 2)).toEqual(['p-typescript', 'p-typscript-a']);
    expect(ids(found.results)).toContain('p-ts-node');
    const correct = await h.admin.search({ matches: { text: 'typescript ' } });
    expect(ids(correct.results)[0]).toBe('p-typescript');
    // A typo that is no word of the catalog: the correct spelling first.
    expect(ids((await h.admin.search({ matches: { text: 'typescrpt ' } })).results)[0]).toBe('p-typescript');
  });

  it('a name typed exactly comes before the names of its typo neighbours and the names it begins', async () => {
    const long = 'higher-order functions and other utilities for working with asynchronous javascript code in node and browsers, with many more words';
    expect((await h.admin.upsertParts([
      { part_id: 'npm-async', name: { en: 'async' }, attributes: summary(long) },
      { part_id: 'npm-asyncc', name: { en: 'asyncc' }, attributes: summary('async') },
      { part_id: 'npm-async-p', name: { en: 'async-p' }, attributes: summary('async') },
      { part_id: 'npm-asynk', name: { en: 'asynk' }, attributes: summary('async') },
    ])).errors).toEqual({});
    for (const text of ['async', 'async ']) expect(ids((await h.admin.search({ matches: { text } })).results)[0], text).toBe('npm-async');
  });

  it('the first letters of a name find the parts whose name begins with them, the shortest name first', async () => {
    const long = (what: string) => `${what}, with a long description of many words that makes this part longer than the others in the catalog`;
    expect((await h.admin.upsertParts([
      { part_id: 'npm-react', name: { en: 'react' }, attributes: summary(long('a library for user interfaces')) },
      { part_id: 'npm-react-dom', name: { en: 'react-dom' }, attributes: summary(long('the entry point to the dom for react')) },
      { part_id: 'npm-reactivity-kit', name: { en: 'reactivity-kit' }, attributes: summary('signals') },
      { part_id: 'npm-scope-reactor', name: { en: '@scope/reactor' }, attributes: summary('reactor') },
      { part_id: 'npm-preact', name: { en: 'preact' }, attributes: summary('reacts quickly') },
      { part_id: 'npm-express', name: { en: 'express' }, attributes: summary(long('a web framework')) },
      { part_id: 'npm-expression-eval', name: { en: 'expression-eval' }, attributes: summary('expressions') },
      { part_id: 'npm-my-express', name: { en: 'my-express' }, attributes: summary('express') },
    ])).errors).toEqual({});
    // Names that begin with the letters typed, shortest first; then names holding a completion elsewhere; then descriptions.
    expect(ids((await h.admin.search({ matches: { text: 'reac' } })).results)).toEqual(['npm-react', 'npm-react-dom', 'npm-reactivity-kit', 'npm-scope-reactor', 'npm-preact']);
    expect(ids((await h.admin.search({ matches: { text: 'expre' } })).results).slice(0, 2)).toEqual(['npm-express', 'npm-expression-eval']);
    // Typed as a whole word (a space after it), the word is not a prefix: no name is completed.
    expect(ids((await h.admin.search({ matches: { text: 'react ' } })).results)[0]).toBe('npm-react');
  });

  it('a long word the catalog holds is matched within one typo; one it does not hold within two', async () => {
    expect((await h.admin.upsertParts([
      { part_id: 'p-calibrator', name: { en: 'calibrator' } },
      { part_id: 'p-calibrtr', name: { en: 'calibrtr' } },
    ])).errors).toEqual({});
    // `calibrtr` is `calibrator` without two letters: two edits, so the word typed finds only itself.
    expect(ids((await h.admin.search({ matches: { text: 'calibrator ' } })).results)).toEqual(['p-calibrator']);
    // No part holds `calibratxr`: one edit from `calibrator`, two from `calibrtr`.
    expect(ids((await h.admin.search({ matches: { text: 'calibratxr ' } })).results).sort()).toEqual(['p-calibrator', 'p-calibrtr']);
  });

  it('a part number is found first with its separators, with others, and without any', async () => {
    expect((await h.admin.upsertParts([
      { part_id: 'skf-6204-2rs', name: { en: '6204-2RS' }, attributes: summary('deep groove ball bearing, sealed') },
      { part_id: 'skf-6204', name: { en: '6204' }, attributes: summary('deep groove ball bearing, open, 2RS seal available') },
      { part_id: 'skf-6204-zz', name: { en: '6204-ZZ' }, attributes: summary('deep groove ball bearing, shielded') },
      { part_id: 'npm-react-dom', name: { en: 'react-dom' }, attributes: summary('React package for working with the DOM') },
      { part_id: 'npm-react', name: { en: 'react' }, attributes: summary('React is a JavaScript library') },
      { part_id: 'npm-types-react', name: { en: '@types/react' }, attributes: summary('TypeScript definitions for react') },
      { part_id: 'npm-form-data', name: { en: 'form-data' }, attributes: summary('A library to create readable multipart/form-data streams') },
    ])).errors).toEqual({});
    for (const text of ['6204-2RS', '6204 2RS', '62042rs', '6204_2rs', '6204/2RS ']) {
      expect(ids((await h.admin.search({ matches: { text } })).results)[0], text).toBe('skf-6204-2rs');
    }
    for (const text of ['react-dom', 'react dom', 'reactdom', 'react.dom']) {
      expect(ids((await h.admin.search({ matches: { text } })).results)[0], text).toBe('npm-react-dom');
    }
    for (const text of ['@types/react', 'types/react', 'types react']) {
      expect(ids((await h.admin.search({ matches: { text } })).results)[0], text).toBe('npm-types-react');
    }
    for (const text of ['form-data', 'formdata', 'form data']) {
      expect(ids((await h.admin.search({ matches: { text } })).results)[0], text).toBe('npm-form-data');
    }
    expect(ids((await h.admin.search({ matches: { text: 'react' } })).results)[0]).toBe('npm-react');
  });
});
