/**
 * Highlights (projection `results.highlights`): which query words matched which field of
 * a hit (the id, a name per language, a value of an attribute) and where, by the same rules as the
 * search (decisions §8; docs/search.md, "Highlights"): a word matches a token exactly, the last
 * word as a prefix, a punctuated word as its tokens in sequence, and a typo-eligible word within
 * one edit, the typo only when the word matches nothing exactly in the part (as the index tries
 * typo neighbours only when needed); a synonym of a word or of a run of words is marked
 * `synonym` where the word (or a word of the run) matches nothing exactly. Pure: the service computes it at page time.
 */
import type { LangMap, PartAttribute, SearchHighlight, SearchHighlightMatch } from '../../api/schemas.js';
import type { Alternative, QueryWord } from '../model.js';
import { foldToken, langTexts } from './text.js';
import { editDistance, withinOneEdit } from './typo.js';

const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

/** A token of a text with its place: `start`/`end` in UTF-16 code units of the NFC text. */
interface TokenSpan {
  token: string;
  start: number;
  end: number;
}

/** The folded tokens of `text` (NFC) with their offsets, as tokenize() splits it. */
export function tokenSpans(text: string): TokenSpan[] {
  const out: TokenSpan[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const token = foldToken(m[0]);
    if (token !== '') out.push({ token, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

type How = SearchHighlightMatch['how'];

/** `got` is within `max` edits of `want`; for a prefix word, some beginning of `got` is. */
function typoMatch(want: string, got: string, prefix: boolean, max: 1 | 2): boolean {
  const near = (t: string) => (max === 1 ? withinOneEdit(want, t) : editDistance(want, t, 2) <= 2);
  if (near(got)) return true;
  if (!prefix) return false;
  const chars = [...got];
  const n = [...want].length;
  for (let len = n - max; len <= n + max; len++) if (len > 0 && len < chars.length && near(chars.slice(0, len).join(''))) return true;
  return false;
}

/** Where `word` (index `w` of the query) matches in `spans`: exact/prefix, or typo when `typo`. */
function matchesIn(spans: readonly TokenSpan[], word: QueryWord, w: number, typo: boolean): SearchHighlightMatch[] {
  const out: SearchHighlightMatch[] = [];
  const n = word.tokens.length;
  for (let i = 0; i + n <= spans.length; i++) {
    let how: How | undefined = 'exact';
    for (let j = 0; j < n && how !== undefined; j++) {
      const want = word.tokens[j] ?? '';
      const got = (spans[i + j] as TokenSpan).token;
      const last = j === n - 1;
      if (got === want) continue;
      if (last && word.prefix && got.startsWith(want)) how = how === 'exact' ? 'prefix' : how;
      else if (typo && n === 1 && word.typo && typoMatch(want, got, word.prefix, word.maxTypos ?? 1)) how = 'typo';
      else how = undefined;
    }
    if (how === undefined || (how === 'typo') !== typo) continue;
    const first = spans[i] as TokenSpan;
    const lastSpan = spans[i + n - 1] as TokenSpan;
    // A prefix marks only the typed part of the token.
    const end = how === 'prefix' && n === 1 ? first.start + Math.min(first.end - first.start, (word.tokens[0] ?? '').length) : lastSpan.end;
    out.push({ word: w, start: first.start, end, how });
  }
  return out;
}

/** One field of a hit to highlight. */
export interface HighlightField {
  field: SearchHighlight['field'];
  language?: string;
  attribute_id?: string;
  text: string;
}

/** The fields of a hit: its id, each name (by language), each value the caller sees of a searchable attribute. */
export function highlightFields(partId: string, names: LangMap, attributes: readonly PartAttribute[], searchable: (attributeId: string) => boolean): HighlightField[] {
  const fields: HighlightField[] = [{ field: 'id', text: partId }];
  for (const language of Object.keys(names).sort()) fields.push({ field: 'name', language, text: names[language] ?? '' });
  for (const entry of attributes) {
    if (!searchable(entry.attribute_id)) continue;
    for (const value of entry.values) for (const text of langTexts(value.value)) fields.push({ field: 'value', attribute_id: entry.attribute_id, text });
  }
  return fields;
}

/**
 * The highlights of one hit: every field where some query word matched, its text (NFC) and the
 * matched spans (offsets in UTF-16 code units, `word` the index of the query word), in field order.
 * A word that matches nowhere exactly is looked for with one typo.
 */
export function highlight(fields: readonly HighlightField[], words: readonly QueryWord[]): SearchHighlight[] {
  const prepared = fields.map((f) => {
    const text = f.text.normalize('NFC');
    return { field: f, text, spans: tokenSpans(text), matches: [] as SearchHighlightMatch[] };
  });
  const foundExactly = words.map(() => false);
  /** Marks where any of `alternatives` (a synonym's words) occurs, as `how: 'synonym'` of word `w`; whether any did. */
  const markSynonyms = (alternatives: readonly Alternative[], w: number): boolean => {
    let found = false;
    for (const a of alternatives) {
      const phrase: QueryWord = { tokens: a.tokens, prefix: false, typo: false };
      // Synonyms apply to names and values, never to the part id (as in the index).
      for (const p of prepared.filter((q) => q.field.field !== 'id')) {
        const m = matchesIn(p.spans, phrase, w, false).map((x) => ({ word: x.word, start: x.start, end: x.end, how: 'synonym' as const }));
        if (m.length > 0) found = true;
        p.matches.push(...m);
      }
    }
    return found;
  };
  words.forEach((word, w) => {
    let found = false;
    for (const p of prepared) {
      const m = matchesIn(p.spans, word, w, false);
      if (m.length > 0) found = true;
      p.matches.push(...m);
    }
    foundExactly[w] = found;
    // Not found as typed: a synonym of the word, else a typo, as the index ranks them.
    if (!found && word.synonyms) found = markSynonyms(word.synonyms, w);
    if (!found && word.typo) for (const p of prepared) p.matches.push(...matchesIn(p.spans, word, w, true));
  });
  // A run of words with a multi-word synonym (`usb stick` ↔ `flash drive`) not all found as typed: its synonyms, marked as the run's first word.
  words.forEach((word, w) => {
    const span = word.synonymSpan;
    if (span && foundExactly.slice(w, w + span.count).some((f) => !f)) markSynonyms(span.alternatives, w);
  });
  return prepared
    .filter((p) => p.matches.length > 0)
    .map((p) => ({
      field: p.field.field,
      ...(p.field.language !== undefined ? { language: p.field.language } : {}),
      ...(p.field.attribute_id !== undefined ? { attribute_id: p.field.attribute_id } : {}),
      text: p.text,
      matches: p.matches.sort((a, b) => a.start - b.start || a.word - b.word),
    }));
}

/** The text with its matched spans wrapped in `open`/`close` (overlaps merged), e.g. `[Intel] Ethernet`. */
export function markSpans(h: Pick<SearchHighlight, 'text' | 'matches'>, open = '[', close = ']'): string {
  const ranges = [...h.matches].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (let i = 0; i < ranges.length; i++) {
    const r = ranges[i] as SearchHighlightMatch;
    let end = r.end;
    while (i + 1 < ranges.length && (ranges[i + 1] as SearchHighlightMatch).start <= end) end = Math.max(end, (ranges[++i] as SearchHighlightMatch).end);
    if (r.start < at) continue;
    out += h.text.slice(at, r.start) + open + h.text.slice(r.start, end) + close;
    at = end;
  }
  return out + h.text.slice(at);
}
