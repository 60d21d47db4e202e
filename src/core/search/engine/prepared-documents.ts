/**
 * A new part's search documents (./document.ts buildEngineDocument, ./org-document.ts
 * buildOrgDocument) built ahead of its write, on another thread (an import's reader
 * thread has idle time; the writing thread is the bottleneck). Both builders are pure functions
 * of the stored part and of the attribute definitions, and the stored form of a NEW part is a pure
 * function of its input (core/catalog/parts.ts decidePartUpsert with no existing part), so the
 * reader can build exactly what the writer would, provided the definitions it used are those the
 * write sees. It records them as a {@link definitionsKey}; the store compares it with the key of
 * the definitions its transaction reads and builds the documents itself when they differ (another
 * process changed an attribute meanwhile), when the part exists already (a merge), or when the
 * item carries nothing. So what is stored never depends on whether documents were prepared.
 *
 * Transport: the documents of a block of parts are packed into one Int32Array (moved, not copied,
 * to the writing thread) whose words are numbers of a dictionary both sides keep
 * ({@link PreparedDocumentsPacker}, {@link PreparedDictionary}): a word crosses once, and the
 * writer's one string of it (its hash computed once) serves every later part; nothing per part is
 * parsed or allocated on the writer but the small {@link PreparedPartDocuments} handle. Each item
 * carries its handle under {@link PREPARED_DOCUMENTS}: a symbol key, which JSON (an HTTP body) and
 * schema parsing drop, so only in-process callers can supply documents.
 */
import type { Attribute, PartInput } from '../../../api/schemas.js';
import { decidePartUpsert } from '../../catalog/parts.js';
import { buildEngineDocument, type EngineDocument } from './document.js';
import { buildOrgDocument, type OrgDocument } from './org-document.js';
import { GROUPS } from './postings.js';

/** Where an item carries its {@link PreparedPartDocuments} (Symbol.for: one key whatever bundle chunk asks). */
export const PREPARED_DOCUMENTS: unique symbol = Symbol.for('catalog.preparedPartDocuments') as never;

/**
 * Layout of one part in a block's Int32Array, from offset `at`: holder (0|1), lengths[0..4], the
 * index of its 4 per-organization texts in the block's `orgTexts` (-1: none), T = number of engine
 * terms, where its vocabulary starts (offset from `at`), then per term its word number and frequencies — one number `group * TF_SPAN + count` when
 * a single group counts (nearly always), else -1 followed by the GROUPS counts — then V = number of
 * vocabulary words and their word numbers, in the document's order. Engine term order is the
 * document's too (the writer sorts terms before writing them, so it does not reach storage).
 */
const HEADER = 9;
/** Frequencies below this fit the one-number form. */
const TF_SPAN = 65_536;

/** The documents of one part: a place in a block. */
export interface PreparedPartDocuments {
  /** The {@link definitionsKey} they were built with. */
  definitions: string;
  block: PreparedBlock;
  at: number;
}

/** A part input that may carry prepared documents. */
export type PreparedPartInput = PartInput & { [PREPARED_DOCUMENTS]?: PreparedPartDocuments };

/** The two documents of a part, as the builders give them. */
export interface PartDocuments {
  engine: EngineDocument;
  org: OrgDocument;
}

/** A block's packed documents, with the dictionary generation and texts its numbers refer to. */
export class PreparedBlock {
  constructor(
    readonly ints: Int32Array,
    /** The dictionary's words by number (this block's generation: see PreparedDictionary). */
    readonly words: readonly string[],
    readonly orgTexts: readonly string[],
  ) {}
}

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
 * The documents `input` gets when it creates a part under `attributes`, or undefined when the
 * part rules refuse it (the writer refuses it then too, and writes nothing).
 */
export function preparePartDocuments(input: PartInput, attributes: ReadonlyMap<string, Attribute>): PartDocuments | undefined {
  const decision = decidePartUpsert(input, undefined, attributes, 0, () => '');
  if (decision.kind !== 'write') return undefined;
  const part = decision.value;
  return { engine: buildEngineDocument(part, attributes), org: buildOrgDocument(part, attributes) };
}

/** What a packer hands over per block (PreparedDictionary.block takes it on the other side). */
export interface PackedBlock {
  ints: Int32Array;
  /** Words new in this block, numbered on from the dictionary's length ... */
  words: string[];
  /** ... after emptying it first. */
  reset: boolean;
  orgTexts: string[];
}

/**
 * The sending side: packs documents into the current block and numbers their words. The
 * dictionary is emptied, between blocks only, once it holds `maxWords` (memory stays bounded on
 * both sides; the frequent words come back at most once per reset).
 */
export class PreparedDocumentsPacker {
  private readonly numbers = new Map<string, number>();
  private ints = new Int32Array(16_384);
  private length = 0;
  private words: string[] = [];
  private reset = false;
  private orgTexts: string[] = [];

  constructor(private readonly maxWords: number) {}

  /** Bytes packed into the current block so far. */
  get packedBytes(): number {
    return this.length * Int32Array.BYTES_PER_ELEMENT;
  }

  /** Packs one part's documents into the current block; returns their offset in it. */
  add(documents: PartDocuments): number {
    const { engine, org } = documents;
    const at = this.length;
    this.push(engine.holder ? 1 : 0);
    for (const n of engine.lengths) this.push(n);
    if (org.orgValues) {
      this.push(this.orgTexts.length);
      this.orgTexts.push(...org.orgValues);
    } else this.push(-1);
    this.push(engine.terms.size);
    this.push(0); // the vocabulary's offset, set below
    for (const [term, tf] of engine.terms) {
      this.push(this.word(term));
      let group = -1;
      for (let g = 0; g < GROUPS; g++) {
        if ((tf[g] ?? 0) === 0) continue;
        group = group === -1 ? g : -2;
      }
      const count = group >= 0 ? (tf[group] ?? 0) : 0;
      if (group >= 0 && count < TF_SPAN) this.push(group * TF_SPAN + count);
      else {
        this.push(-1);
        for (let g = 0; g < GROUPS; g++) this.push(tf[g] ?? 0);
      }
    }
    this.ints[at + HEADER - 1] = this.length - at;
    this.push(org.terms.length);
    for (const word of org.terms) this.push(this.word(word));
    return at;
  }

  /** The block packed since the last call (its array is the caller's now, e.g. to transfer it). */
  take(): PackedBlock {
    const block: PackedBlock = { ints: this.ints.slice(0, this.length), words: this.words, reset: this.reset, orgTexts: this.orgTexts };
    this.length = 0;
    this.words = [];
    this.orgTexts = [];
    this.reset = this.numbers.size >= this.maxWords;
    if (this.reset) this.numbers.clear();
    return block;
  }

  private word(word: string): number {
    let n = this.numbers.get(word);
    if (n === undefined) {
      n = this.numbers.size;
      this.numbers.set(word, n);
      this.words.push(word);
    }
    return n;
  }

  private push(n: number): void {
    if (this.length === this.ints.length) {
      const grown = new Int32Array(this.ints.length * 2);
      grown.set(this.ints);
      this.ints = grown;
    }
    this.ints[this.length++] = n;
  }
}

/** The receiving side: the dictionary's words by number, kept across blocks. */
export class PreparedDictionary {
  /** A reset starts a new array: blocks taken before keep the words their numbers meant. */
  private words: string[] = [];

  /** The block of a packer's {@link PackedBlock}. Blocks must be taken in the order they were packed. */
  block(packed: PackedBlock): PreparedBlock {
    if (packed.reset) this.words = [];
    for (const word of packed.words) this.words.push(word);
    return new PreparedBlock(packed.ints, this.words, packed.orgTexts);
  }
}

/** Whether the part has per-organization values (EngineDocument.holder = OrgDocument.holder). */
export function preparedHolder(p: PreparedPartDocuments): boolean {
  return p.block.ints[p.at] === 1;
}

/** EngineDocument.lengths. */
export function preparedLengths(p: PreparedPartDocuments): EngineDocument['lengths'] {
  const ints = p.block.ints;
  const at = p.at;
  return [ints[at + 1] ?? 0, ints[at + 2] ?? 0, ints[at + 3] ?? 0, ints[at + 4] ?? 0, ints[at + 5] ?? 0];
}

/** OrgDocument.orgValues. */
export function preparedOrgValues(p: PreparedPartDocuments): OrgDocument['orgValues'] {
  const i = p.block.ints[p.at + 6] ?? -1;
  if (i < 0) return null;
  const texts = p.block.orgTexts;
  return [texts[i] ?? '', texts[i + 1] ?? '', texts[i + 2] ?? '', texts[i + 3] ?? ''];
}

/**
 * Calls `each` with every engine term and its frequencies: `group` counts `count`, or `tf` (GROUPS
 * counts) when more than one group does.
 */
export function forEachPreparedTerm(p: PreparedPartDocuments, each: (term: string, group: number, count: number, tf: readonly number[] | undefined) => void): void {
  const { ints, words } = p.block;
  const terms = ints[p.at + 7] ?? 0;
  let i = p.at + HEADER;
  for (let t = 0; t < terms; t++) {
    const term = words[ints[i] ?? 0] ?? '';
    const code = ints[i + 1] ?? 0;
    if (code >= 0) {
      each(term, Math.floor(code / TF_SPAN), code % TF_SPAN, undefined);
      i += 2;
    } else {
      each(term, -1, 0, Array.from(ints.subarray(i + 2, i + 2 + GROUPS)));
      i += 2 + GROUPS;
    }
  }
}

/** OrgDocument.terms, in order. */
export function preparedVocabulary(p: PreparedPartDocuments): string[] {
  const { ints, words } = p.block;
  const start = p.at + (ints[p.at + HEADER - 1] ?? 0);
  const count = ints[start] ?? 0;
  const out = new Array<string>(count);
  for (let k = 0; k < count; k++) out[k] = words[ints[start + 1 + k] ?? 0] ?? '';
  return out;
}

/** The org document of a {@link PreparedPartDocuments}, as buildOrgDocument gives it (the writer's card rows). */
export function preparedOrgDocument(p: PreparedPartDocuments): OrgDocument {
  return { holder: preparedHolder(p), orgValues: preparedOrgValues(p), terms: preparedVocabulary(p) };
}

/** The documents of a {@link PreparedPartDocuments} as the builders give them (tests; the writer reads the engine's in place). */
export function unpackPreparedDocuments(p: PreparedPartDocuments): PartDocuments {
  const terms = new Map<string, number[]>();
  forEachPreparedTerm(p, (term, group, count, tf) => {
    const counts = tf ? [...tf] : new Array<number>(GROUPS).fill(0);
    if (!tf) counts[group] = count;
    terms.set(term, counts);
  });
  const org = preparedOrgDocument(p);
  return { engine: { terms, lengths: preparedLengths(p), holder: org.holder }, org };
}

/**
 * The documents `item` carries for the definitions whose {@link definitionsKey} is `definitions`,
 * or undefined (none, or built with other definitions). Only for an item that creates its part.
 */
export function preparedDocuments(item: object, definitions: string): PreparedPartDocuments | undefined {
  const prepared = (item as PreparedPartInput)[PREPARED_DOCUMENTS];
  if (prepared === undefined || prepared.definitions !== definitions) return undefined;
  return prepared;
}
