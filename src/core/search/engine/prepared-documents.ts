/**
 * A new part's search documents (./document.ts buildEngineDocument, ./org-document.ts
 * buildOrgDocument) built ahead of its write, on another thread (issue 12: an import's reader
 * thread has idle time; the writing thread is the bottleneck). Both builders are pure functions
 * of the stored part and of the attribute definitions, and the stored form of a NEW part is a pure
 * function of its input (core/catalog/parts.ts decidePartUpsert with no existing part), so the
 * reader can build exactly what the writer would, provided the definitions it used are those the
 * write sees. It records them as a {@link definitionsKey}; the store compares it with the key of
 * the definitions its transaction reads and builds the documents itself when they differ (another
 * process changed an attribute meanwhile), when the part exists already (a merge), or when the
 * item carries nothing. So what is stored never depends on whether documents were prepared.
 *
 * Prepared documents travel as plain JSON-able arrays ({@link PackedPartDocuments}: a block of
 * them crosses the thread as one string) and are attached to the item itself, under
 * {@link PREPARED_DOCUMENTS}: a symbol key, which JSON (an HTTP body) and schema parsing drop, so
 * only in-process callers can supply them.
 */
import type { Attribute, PartInput } from '../../../api/schemas.js';
import { decidePartUpsert } from '../../catalog/parts.js';
import { buildEngineDocument, type EngineDocument } from './document.js';
import { buildOrgDocument, type OrgDocument } from './org-document.js';
import { GROUPS } from './postings.js';

/** Where an item carries its {@link PreparedPartDocuments}. */
export const PREPARED_DOCUMENTS: unique symbol = Symbol.for('catalog.preparedPartDocuments') as never;

/** What an item carries: the packed documents and the {@link definitionsKey} they were built with. */
export interface PreparedPartDocuments {
  definitions: string;
  packed: PackedPartDocuments;
}

/** A part input that may carry prepared documents. */
export type PreparedPartInput = PartInput & { [PREPARED_DOCUMENTS]?: PreparedPartDocuments };

/**
 * `[holder (0|1), lengths[0..4] (5 numbers), orgValues (4 strings) | 0, T = number of engine
 * terms, then T pairs (term, frequencies), then the vocabulary words]`. Frequencies are one number
 * `group * TF_SPAN + count` when a single group counts (nearly always), else the GROUPS array. A
 * vocabulary word that is also an engine term (most are: the words of names and values) is that
 * term's index k among the T terms (a number: no second copy of the string to ship and parse),
 * else the word itself. Both orders are the documents' own (the writer sorts engine terms before
 * writing them, and the vocabulary tables are keyed by word, so neither order reaches storage; they
 * are kept anyway, so the writer runs the same statements in the same order either way).
 */
export type PackedPartDocuments = (number | string | number[] | string[])[];

/** Frequencies below this fit the one-number form. */
const TF_SPAN = 65_536;
/** Index of the engine term count in a packed array. */
const TERMS_AT = 7;

/**
 * The attribute definitions as far as the documents depend on them (id, searchable, filterable,
 * visibility, per_org_values: every field buildEngineDocument, buildOrgDocument and
 * decidePartUpsert's validity checks read), as one string: equal keys build equal documents.
 */
export function definitionsKey(attributes: Iterable<Pick<Attribute, 'attribute_id' | 'searchable' | 'filterable' | 'visibility' | 'per_org_values'>>): string {
  const fields = [...attributes].map((a) => [a.attribute_id, a.searchable === true, a.filterable === true, a.visibility ?? null, a.per_org_values === true] as const);
  fields.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  return JSON.stringify(fields);
}

/**
 * The packed documents `input` gets when it creates a part under `attributes`, or undefined when
 * the part rules refuse it (the writer refuses it then too, and writes nothing).
 */
export function preparePartDocuments(input: PartInput, attributes: ReadonlyMap<string, Attribute>): PackedPartDocuments | undefined {
  const decision = decidePartUpsert(input, undefined, attributes, 0, () => '');
  if (decision.kind !== 'write') return undefined;
  const part = decision.value;
  return packPartDocuments(buildEngineDocument(part, attributes), buildOrgDocument(part, attributes));
}

/** See {@link PackedPartDocuments}. */
export function packPartDocuments(engine: EngineDocument, org: OrgDocument): PackedPartDocuments {
  const out: PackedPartDocuments = [engine.holder ? 1 : 0, ...engine.lengths, org.orgValues ?? 0, engine.terms.size];
  for (const [term, tf] of engine.terms) {
    let group = -1;
    for (let g = 0; g < GROUPS; g++) {
      if ((tf[g] ?? 0) === 0) continue;
      group = group === -1 ? g : -2;
    }
    const count = group >= 0 ? (tf[group] ?? 0) : 0;
    out.push(term, group >= 0 && count < TF_SPAN ? group * TF_SPAN + count : [...tf]);
  }
  const end = out.length;
  for (const word of org.terms) {
    // A part has a dozen terms or so: a scan costs less than a Map built per part.
    let k = -1;
    for (let i = TERMS_AT + 1; i < end; i += 2) {
      if (out[i] === word) {
        k = (i - TERMS_AT - 1) / 2;
        break;
      }
    }
    out.push(k >= 0 ? k : word);
  }
  return out;
}

/**
 * Replaces each engine term of `packed` in place by `replace(term)`: a transport may ship terms as
 * numbers of a dictionary both sides keep (the import's reader thread does, so repeated words
 * cross as small numbers and arrive as the one string the writer holds already) and put the
 * strings back before use.
 */
export function replacePackedTerms<T extends string | number>(packed: PackedPartDocuments, replace: (term: string | number) => T): void {
  const end = TERMS_AT + 1 + 2 * (packed[TERMS_AT] as number);
  for (let i = TERMS_AT + 1; i < end; i += 2) packed[i] = replace(packed[i] as string | number);
}

/** Whether the part has per-organization values (EngineDocument.holder = OrgDocument.holder). */
export function packedHolder(packed: PackedPartDocuments): boolean {
  return packed[0] === 1;
}

/** EngineDocument.lengths. */
export function packedLengths(packed: PackedPartDocuments): EngineDocument['lengths'] {
  return packed.slice(1, 6) as EngineDocument['lengths'];
}

/** OrgDocument.orgValues. */
export function packedOrgValues(packed: PackedPartDocuments): OrgDocument['orgValues'] {
  const values = packed[6];
  return values === 0 ? null : (values as OrgDocument['orgValues']);
}

/** Calls `each` with every engine term and its frequencies: `group` counts `count`, or `tf` (GROUPS counts) when more than one group does. */
export function forEachPackedTerm(packed: PackedPartDocuments, each: (term: string, group: number, count: number, tf: readonly number[] | undefined) => void): void {
  const end = TERMS_AT + 1 + 2 * (packed[TERMS_AT] as number);
  for (let i = TERMS_AT + 1; i < end; i += 2) {
    const tf = packed[i + 1] as number | number[];
    if (typeof tf === 'number') each(packed[i] as string, Math.floor(tf / TF_SPAN), tf % TF_SPAN, undefined);
    else each(packed[i] as string, -1, 0, tf);
  }
}

/** OrgDocument.terms, in order. */
export function packedVocabulary(packed: PackedPartDocuments): string[] {
  const first = TERMS_AT + 1;
  const end = first + 2 * (packed[TERMS_AT] as number);
  const words: string[] = [];
  for (let i = end; i < packed.length; i++) {
    const word = packed[i] as number | string;
    words.push(typeof word === 'number' ? (packed[first + 2 * word] as string) : word);
  }
  return words;
}

/** The documents of a {@link PackedPartDocuments} (packPartDocuments' inverse). */
export function unpackPartDocuments(packed: PackedPartDocuments): { engine: EngineDocument; org: OrgDocument } {
  const terms = new Map<string, number[]>();
  forEachPackedTerm(packed, (term, group, count, tf) => {
    const counts = tf ? [...tf] : new Array<number>(GROUPS).fill(0);
    if (!tf) counts[group] = count;
    terms.set(term, counts);
  });
  const holder = packedHolder(packed);
  return {
    engine: { terms, lengths: packedLengths(packed), holder },
    org: { holder, orgValues: packedOrgValues(packed), terms: packedVocabulary(packed) },
  };
}

/**
 * The documents `item` carries for the definitions whose {@link definitionsKey} is `definitions`,
 * or undefined (none, or built with other definitions). Only for an item that creates its part.
 */
export function preparedDocuments(item: object, definitions: string): PackedPartDocuments | undefined {
  const prepared = (item as PreparedPartInput)[PREPARED_DOCUMENTS];
  if (prepared === undefined || prepared.definitions !== definitions) return undefined;
  return prepared.packed;
}
