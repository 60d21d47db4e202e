/**
 * Pure mapping between flat CSV/TSV rows and API items (cli.md, Bulk import), both ways, so that what
 * `list -o csv|tsv` prints can be imported again unchanged. Column grammar (docs/import-formats.md):
 * - language maps as one column per language: `name.en`, `name.de`, `default_value.fr`;
 * - list columns separated by `|` (`labels`: `sku|ean`; labels are a fixed vocabulary, so spaces around them are dropped);
 * - booleans `true/false/1/0/yes/no` (any case); integers as decimal digits;
 * - a cell is data exactly as written (spaces, tabs, NBSP included); an empty cell = the field is
 *   absent (on update the stored value stays), so an empty text can only be written in JSON/NDJSON;
 * - part values as `attr:<attribute_id>.<lang>` (organization "") and
 *   `attr:<attribute_id>@<organization>.<lang>`; the language is split off at the LAST dot (attribute
 *   and organization ids may contain dots), the organization at the FIRST `@` that is not written
 *   `\@`: an attribute id containing `@` or `\` is written with `\@`, `\\` (`attr:a\@b.en`).
 * Columns `_line`, `_error`, `_raw` (added by the errors file) and the read-only fields that listings
 * print (`serviceId`, `createdAt`, `modifiedAt`; `user_id`, `created` of relations) are ignored.
 *
 * Every mapper collects ALL problems of a row, then validates the item with the API's zod schemas
 * (src/api/schemas.ts); each problem is `<column or field path>: <message>`.
 */
import { basename, extname } from 'node:path';
import { z } from 'zod';
import {
  AttributeInputSchema, IdSchema, LanguageSchema, OrganizationInputSchema, PartInputSchema, SynonymInputSchema,
} from '../../api/schemas.js';
import type { Attribute, AttributeInput, Organization, Part, PartInput, SynonymSet } from '../../api/schemas.js';
import type { ImportFormat } from './read-records.js';

/** A mapped item, or every problem found in the row. */
export type MapResult<T> = { item: T } | { problems: string[] };

/** Options of the row mappers. */
export interface MapOptions {
  /**
   * false: only map (structural problems such as unknown columns are still reported) and leave the
   * schema check to the service, which validates every item anyway. The import loop uses this on
   * its fast path and maps a REJECTED row again with validation to name the offending columns.
   */
  validate?: boolean;
}

/** A record as read: CSV values are strings; other values are converted with String(). */
export type FlatRow = Record<string, unknown>;

/** Relation types (spec 2.3). */
export const RELATION_TYPES = ['duplicate', 'substitute', 'equivalent', 'not_related'] as const;
/** Relation sources (spec 2.3); the API's default is `ingested`. */
export const RELATION_SOURCES = ['confirmed_by_user', 'ingested'] as const;

/** One item of POST /v1/parts/relations (spec 4.3). */
export interface RelationItem {
  anchor_part_id: string;
  related_part_id: string;
  type: (typeof RELATION_TYPES)[number];
  source?: (typeof RELATION_SOURCES)[number];
}

/** One row of an image manifest (cli.md `images upload <manifest>`): an image definition plus its file. */
export interface ImageManifestItem {
  /** Defaults to the file name without its extension (`img/p1-front.jpg` → `p1-front`). */
  image_id: string;
  part_id: string;
  /** Space-separated tokens (spec 2.2), e.g. `display weight=2`. */
  info: string;
  /** Integer ≥ 1 (spec 2.2). */
  position?: number;
  /** Path of the image file, relative to `--dir` (or the manifest's directory). */
  file: string;
}

/** The relation schema (api-spec 4.3, decisions §6); the API validates the same rules. */
export const RelationItemSchema = z
  .strictObject({
    anchor_part_id: IdSchema,
    related_part_id: IdSchema,
    type: z.enum(RELATION_TYPES),
    source: z.enum(RELATION_SOURCES).optional(),
  })
  .refine((r) => r.anchor_part_id !== r.related_part_id, { message: 'anchor_part_id and related_part_id must differ', path: ['related_part_id'] });

/** The image manifest item schema (spec 2.2: position integer ≥ 1). */
export const ImageManifestItemSchema = z.strictObject({
  image_id: IdSchema,
  part_id: IdSchema,
  info: z.string().max(10_000),
  position: z.number().int().min(1).max(2_147_483_647).optional(),
  file: z.string().min(1, 'must not be empty'),
});

const META = new Set(['_line', '_error', '_raw']);
/** Part columns that list output may carry but an import ignores (the service sets them). */
const PART_READ_ONLY = ['serviceId', 'createdAt', 'modifiedAt'] as const;

/**
 * Fields that listings print but imports do not take (the service sets them), per resource: accepted
 * and ignored on import in every format, so a listing imports again.
 */
export const READ_ONLY_FIELDS: Readonly<Record<'attributes' | 'parts' | 'relations' | 'images' | 'synonyms' | 'organizations', readonly string[]>> = {
  attributes: PART_READ_ONLY,
  parts: PART_READ_ONLY,
  relations: ['user_id', 'created'],
  images: [],
  synonyms: [],
  organizations: [],
};

/** A record without the read-only fields of its resource (JSON/NDJSON imports). */
export function stripReadOnly(record: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  if (!fields.some((f) => Object.hasOwn(record, f))) return record;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (!fields.includes(k)) out[k] = v;
  return out;
}

// ---------------------------------------------------------------------------------------------
// helpers

/** The text of a cell exactly as written (whitespace is data), or undefined when empty or missing. */
function cell(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : String(value);
  return text === '' ? undefined : text;
}

/**
 * A cell of a closed vocabulary (booleans, integers, types, visibilities, relation types): outer
 * whitespace is not part of such a value, so `" true"` reads as `true`. Undefined when blank.
 */
function word(value: unknown): string | undefined {
  const text = cell(value)?.trim();
  return text === '' ? undefined : text;
}

function parseBool(column: string, text: string, problems: string[]): boolean | undefined {
  switch (text.toLowerCase()) {
    case 'true':
    case '1':
    case 'yes':
      return true;
    case 'false':
    case '0':
    case 'no':
      return false;
    default:
      problems.push(`${column}: expected true/false/1/0/yes/no, got '${text}'`);
      return undefined;
  }
}

function parseInt10(column: string, text: string, problems: string[]): number | undefined {
  const n = Number(text);
  if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(n)) {
    problems.push(`${column}: expected an integer, got '${text}'`);
    return undefined;
  }
  return n;
}

/** Splits a list cell of vocabulary words (`labels`) at `|`; spaces around a word are not part of it. */
function splitList(text: string): string[] {
  return text.split('|').map((item) => item.trim()).filter((item) => item !== '');
}

/** An attribute id as written in an `attr:` column: `\` and `@` escaped (`a@b` → `a\@b`). */
export function escapeAttrId(id: string): string {
  return id.replace(/[\\@]/g, (c) => `\\${c}`);
}

function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const p of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[p];
  }
  return current;
}

/** zod issues as `<where>: <message>`, friendlier than zod's defaults for the common cases. */
function schemaProblems(
  result: { success: true } | { success: false; error: z.ZodError },
  value: unknown,
  rename: (path: readonly PropertyKey[]) => string = pathText,
  skipTopLevel: ReadonlySet<string> = new Set(),
): string[] {
  if (result.success) return [];
  const problems: string[] = [];
  for (const issue of result.error.issues) {
    const top = issue.path[0];
    if (typeof top === 'string' && skipTopLevel.has(top)) continue;
    const where = issue.path.length === 0 ? 'item' : rename(issue.path);
    let message = issue.message;
    if (issue.code === 'invalid_key') {
      const inner = issue.issues[0]?.message ?? message;
      message = `'${String(issue.path[issue.path.length - 1])}' ${inner}`;
    } else if (issue.code === 'invalid_value') {
      const got = valueAt(value, issue.path);
      message = `must be one of ${issue.values.map(String).join(', ')}${got === undefined ? '' : `, got '${String(got)}'`}`;
    } else if (issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined) {
      message = 'required';
    } else if (issue.code === 'unrecognized_keys') {
      message = `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
    }
    problems.push(`${where}: ${message}`);
  }
  return problems;
}

function done<T>(item: T, problems: string[]): MapResult<T> {
  return problems.length > 0 ? { problems } : { item };
}

function unknownColumns(unknown: string[], valid: string): string[] {
  if (unknown.length === 0) return [];
  const list = unknown.map((c) => `'${c}'`).join(', ');
  return [`unknown column${unknown.length > 1 ? 's' : ''} ${list}; valid columns: ${valid}`];
}

/** Removes the errors-file columns `_line`, `_error`, `_raw` from a record (for re-imports). */
export function stripMetaColumns(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (!META.has(k)) out[k] = v;
  return out;
}

// ---------------------------------------------------------------------------------------------
// attributes

const ATTRIBUTE_COLUMNS_TEXT =
  'attribute_id, type, name.<lang>, searchable, filterable, visibility, org_visibility, labels, per_org_values, default_value.<lang>, display_order';

/**
 * Validates an attribute item (JSON/NDJSON record, already API shaped) with AttributeInputSchema.
 * @returns the parsed item, or every problem (`<field path>: <message>`).
 */
export function validateAttributeItem(value: unknown): MapResult<AttributeInput> {
  const result = AttributeInputSchema.safeParse(value);
  return result.success ? { item: result.data } : { problems: schemaProblems(result, value) };
}

/**
 * Maps a CSV row to an attribute item (spec 2.1, decisions §3). Columns: `attribute_id`, `type`,
 * `name.<lang>`, `searchable`, `filterable`, `visibility`, `org_visibility`, `labels` (`|`-separated),
 * `per_org_values`, `default_value.<lang>`, `display_order` (integer). Empty cells are absent fields.
 * @returns `{item}` (validated with AttributeInputSchema) or `{problems}`: bad booleans/integers,
 *   a missing attribute_id, unknown columns (one problem naming them all), schema violations.
 */
export function mapAttributeRow(row: FlatRow): MapResult<AttributeInput> {
  const problems: string[] = [];
  const unknown: string[] = [];
  const reported = new Set<string>();
  const item: Record<string, unknown> = {};
  const name: Record<string, string> = {};
  const defaultValue: Record<string, string> = {};
  for (const [column, raw] of Object.entries(row)) {
    if (META.has(column) || (PART_READ_ONLY as readonly string[]).includes(column)) continue;
    const text = cell(raw);
    const dot = column.indexOf('.');
    const base = dot === -1 ? column : column.slice(0, dot);
    if (base === 'name' || base === 'default_value') {
      const lang = dot === -1 ? '' : column.slice(dot + 1);
      if (lang === '') {
        problems.push(`${column}: needs a language suffix, e.g. ${base}.en`);
        reported.add(base);
        continue;
      }
      if (text !== undefined) (base === 'name' ? name : defaultValue)[lang] = text;
      continue;
    }
    switch (column) {
      case 'attribute_id':
        if (text !== undefined) item[column] = text;
        break;
      case 'type':
      case 'visibility':
      case 'org_visibility': {
        const w = word(raw);
        if (w !== undefined) item[column] = w;
        break;
      }
      case 'searchable':
      case 'filterable':
      case 'per_org_values': {
        const w = word(raw);
        if (w !== undefined) {
          const b = parseBool(column, w, problems);
          if (b === undefined) reported.add(column);
          else item[column] = b;
        }
        break;
      }
      case 'labels':
        if (text !== undefined) item.labels = splitList(text);
        break;
      case 'display_order': {
        const w = word(raw);
        if (w !== undefined) {
          const n = parseInt10(column, w, problems);
          if (n === undefined) reported.add(column);
          else item.display_order = n;
        }
        break;
      }
      default:
        unknown.push(column);
    }
  }
  if (Object.keys(name).length > 0) item.name = name;
  if (Object.keys(defaultValue).length > 0) item.default_value = defaultValue;
  problems.push(...unknownColumns(unknown, ATTRIBUTE_COLUMNS_TEXT));
  const result = AttributeInputSchema.safeParse(item);
  problems.push(...schemaProblems(result, item, pathText, reported));
  return result.success ? done(result.data, problems) : { problems };
}

/**
 * The inverse of {@link mapAttributeRow}, for `attributes list -o csv`: an attribute (or a projection
 * of one) as a flat row of strings. Absent fields give no column; booleans `true`/`false`; labels
 * joined by `|`; language maps spread into `name.<lang>` / `default_value.<lang>`.
 */
export function attributeToRow(attribute: Partial<Attribute> & { attribute_id: string }): Record<string, string> {
  const row: Record<string, string> = { attribute_id: attribute.attribute_id };
  if (attribute.type !== undefined) row.type = attribute.type;
  for (const [lang, text] of Object.entries(attribute.name ?? {})) row[`name.${lang}`] = text;
  if (attribute.searchable !== undefined) row.searchable = String(attribute.searchable);
  if (attribute.filterable !== undefined) row.filterable = String(attribute.filterable);
  if (attribute.visibility !== undefined) row.visibility = attribute.visibility;
  if (attribute.org_visibility !== undefined) row.org_visibility = attribute.org_visibility;
  if (attribute.labels !== undefined) row.labels = attribute.labels.join('|');
  if (attribute.per_org_values !== undefined) row.per_org_values = String(attribute.per_org_values);
  for (const [lang, text] of Object.entries(attribute.default_value ?? {})) row[`default_value.${lang}`] = text;
  if (attribute.display_order !== undefined && attribute.display_order !== null) row.display_order = String(attribute.display_order);
  return row;
}

/**
 * The CSV header for attribute rows: every fixed column in the order of {@link mapAttributeRow}'s doc,
 * with `name.<lang>` / `default_value.<lang>` expanded to the languages present in `rows` (sorted).
 * Needs all rows before the header (collect them, or pass a first page).
 */
export function attributeRowColumns(rows: Iterable<Record<string, string>>): string[] {
  const names = new Set<string>();
  const defaults = new Set<string>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (key.startsWith('name.')) names.add(key);
      else if (key.startsWith('default_value.')) defaults.add(key);
    }
  }
  return [
    'attribute_id', 'type', ...[...names].sort(), 'searchable', 'filterable', 'visibility', 'org_visibility',
    'labels', 'per_org_values', ...[...defaults].sort(), 'display_order',
  ];
}

// ---------------------------------------------------------------------------------------------
// parts

const PART_COLUMNS_TEXT = 'part_id, name.<lang>, attr:<attribute_id>.<lang>, attr:<attribute_id>@<organization>.<lang>';

/** A parsed `attr:<attribute_id>[@<organization>].<lang>` column; organization "" when absent. */
export interface AttrColumn {
  attributeId: string;
  organization: string;
  lang: string;
}

/**
 * Parses an `attr:<attribute_id>[@<organization>].<lang>` column name.
 * @returns the parts, or a problem text when the name is malformed.
 */
export function parseAttrColumn(column: string): AttrColumn | { problem: string } {
  // Every row of a file has the same columns: parse each column name once.
  let parsed = attrColumnCache.get(column);
  if (parsed === undefined) {
    parsed = parseAttrColumnUncached(column);
    if (attrColumnCache.size >= 10_000) attrColumnCache.clear();
    attrColumnCache.set(column, parsed);
  }
  return parsed;
}

const attrColumnCache = new Map<string, AttrColumn | { problem: string }>();

function parseAttrColumnUncached(column: string): AttrColumn | { problem: string } {
  const body = column.slice('attr:'.length);
  const dot = body.lastIndexOf('.');
  if (dot <= 0 || dot === body.length - 1) {
    return { problem: `${column}: expected attr:<attribute_id>.<lang> or attr:<attribute_id>@<organization>.<lang>` };
  }
  const lang = body.slice(dot + 1);
  const target = body.slice(0, dot);
  // The attribute id ends at the first `@` not written `\@`; in it `\@` and `\\` stand for `@` and `\`.
  let attributeId = '';
  let at = -1;
  for (let i = 0; i < target.length; i++) {
    const c = target[i];
    const next = target[i + 1];
    if (c === '\\' && (next === '@' || next === '\\')) {
      attributeId += next;
      i++;
    } else if (c === '@') {
      at = i;
      break;
    } else {
      attributeId += c;
    }
  }
  const organization = at === -1 ? '' : target.slice(at + 1);
  const problems: string[] = [];
  if (!LanguageSchema.safeParse(lang).success) problems.push(`'${lang}' is not a language tag (the part after the last dot)`);
  const id = IdSchema.safeParse(attributeId);
  if (!id.success) problems.push(`attribute id ${id.error.issues[0]?.message ?? 'is invalid'}`);
  if (at !== -1) {
    const org = IdSchema.safeParse(organization);
    if (!org.success) problems.push(`organization ${org.error.issues[0]?.message ?? 'is invalid'}`);
  }
  return problems.length > 0 ? { problem: `${column}: ${problems.join('; ')}` } : { attributeId, organization, lang };
}

/**
 * Validates a part item (JSON/NDJSON record, already API shaped) with PartInputSchema.
 * @returns the parsed item (organization defaults to ""), or every problem.
 */
function validatePartItem(value: unknown): MapResult<PartInput> {
  const result = PartInputSchema.safeParse(value);
  return result.success ? { item: result.data } : { problems: schemaProblems(result, value) };
}

/**
 * Maps a CSV row to a part item (decisions §5): `{part_id, name?, attributes?: [{attribute_id,
 * values: [{organization, value: {lang: text}}]}]}` from columns `part_id`, `name.<lang>`,
 * `attr:<attribute_id>.<lang>` (organization "") and `attr:<attribute_id>@<organization>.<lang>`.
 * Values are grouped by (attribute_id, organization) in column order; an attribute whose cells are
 * all empty is absent (left as stored). `serviceId`, `createdAt`, `modifiedAt` are ignored.
 * @returns `{item}` (validated with PartInputSchema) or `{problems}` naming the columns.
 */
export function mapPartRow(row: FlatRow, options: MapOptions = {}): MapResult<PartInput> {
  const problems: string[] = [];
  const unknown: string[] = [];
  const name: Record<string, string> = {};
  const attributes = new Map<string, { attribute_id: string; values: Map<string, Record<string, string>> }>();
  const columnOf = new Map<string, string>(); // schema path text -> column, for schema messages
  let partId: string | undefined;
  for (const [column, raw] of Object.entries(row)) {
    if (META.has(column) || (PART_READ_ONLY as readonly string[]).includes(column)) continue;
    const text = cell(raw);
    if (column === 'part_id') {
      partId = text;
    } else if (column === 'name' || column.startsWith('name.')) {
      const lang = column.slice('name.'.length);
      if (column === 'name' || lang === '') problems.push(`${column}: needs a language suffix, e.g. name.en`);
      else if (text !== undefined) name[lang] = text;
    } else if (column.startsWith('attr:')) {
      const parsed = parseAttrColumn(column);
      if ('problem' in parsed) {
        problems.push(parsed.problem);
        continue;
      }
      if (text === undefined) continue;
      let attribute = attributes.get(parsed.attributeId);
      if (attribute === undefined) {
        attribute = { attribute_id: parsed.attributeId, values: new Map() };
        attributes.set(parsed.attributeId, attribute);
      }
      let value = attribute.values.get(parsed.organization);
      if (value === undefined) {
        value = {};
        attribute.values.set(parsed.organization, value);
      }
      value[parsed.lang] = text;
    } else {
      unknown.push(column);
    }
  }
  problems.push(...unknownColumns(unknown, PART_COLUMNS_TEXT));

  const item: Record<string, unknown> = {};
  if (partId !== undefined) item.part_id = partId;
  // Column names for schema messages are only needed when validating (the fast path skips them).
  const explain = options.validate !== false;
  if (Object.keys(name).length > 0) {
    item.name = name;
    if (explain) for (const lang of Object.keys(name)) columnOf.set(`name.${lang}`, `name.${lang}`);
  }
  if (attributes.size > 0) {
    item.attributes = [...attributes.values()].map((a, i) => ({
      attribute_id: a.attribute_id,
      values: [...a.values.entries()].map(([organization, value], j) => {
        if (explain) {
          for (const lang of Object.keys(value)) {
            const column = `attr:${escapeAttrId(a.attribute_id)}${organization === '' ? '' : `@${organization}`}.${lang}`;
            columnOf.set(pathText(['attributes', i, 'values', j, 'value', lang]), column);
          }
        }
        return { organization, value };
      }),
    }));
  }
  if (!explain) return done(item as PartInput, problems);
  const result = PartInputSchema.safeParse(item);
  const rename = (path: readonly PropertyKey[]): string => columnOf.get(pathText(path)) ?? pathText(path);
  problems.push(...schemaProblems(result, item, rename));
  return result.success ? done(result.data, problems) : { problems };
}

/**
 * The inverse of {@link mapPartRow}, for `parts list -o csv`: `part_id`, `name.<lang>`,
 * `attr:<id>.<lang>` / `attr:<id>@<org>.<lang>` (`@` and `\` in the id escaped, see
 * {@link escapeAttrId}), plus `serviceId`, `createdAt`, `modifiedAt` when present (ignored on
 * import). Value `source` (resolved views) is dropped.
 */
export function partToRow(part: Partial<Part> & { part_id: string }): Record<string, string> {
  const row: Record<string, string> = { part_id: part.part_id };
  for (const [lang, text] of Object.entries(part.name ?? {})) row[`name.${lang}`] = text;
  for (const attribute of part.attributes ?? []) {
    const id = escapeAttrId(attribute.attribute_id);
    for (const value of attribute.values) {
      const org = value.organization === '' ? '' : `@${value.organization}`;
      for (const [lang, text] of Object.entries(value.value)) row[`attr:${id}${org}.${lang}`] = text;
    }
  }
  if (part.serviceId !== undefined) row.serviceId = part.serviceId;
  if (part.createdAt !== undefined) row.createdAt = part.createdAt;
  if (part.modifiedAt !== undefined) row.modifiedAt = part.modifiedAt;
  return row;
}

/**
 * The CSV header for part rows: `part_id`, `name.<lang>` (sorted), `attr:` columns (sorted), then
 * `serviceId`, `createdAt`, `modifiedAt` when any row has them.
 */
export function partRowColumns(rows: Iterable<Record<string, string>>): string[] {
  const names = new Set<string>();
  const attrs = new Set<string>();
  const readOnly = new Set<string>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (key.startsWith('name.')) names.add(key);
      else if (key.startsWith('attr:')) attrs.add(key);
      else if ((PART_READ_ONLY as readonly string[]).includes(key)) readOnly.add(key);
    }
  }
  return ['part_id', ...[...names].sort(), ...[...attrs].sort(), ...PART_READ_ONLY.filter((c) => readOnly.has(c))];
}

// ---------------------------------------------------------------------------------------------
// relations

/**
 * Validates a relation item (JSON/NDJSON record) with {@link RelationItemSchema}.
 * @returns the parsed item, or every problem.
 */
function validateRelationItem(value: unknown): MapResult<RelationItem> {
  const result = RelationItemSchema.safeParse(value);
  return result.success ? { item: result.data } : { problems: schemaProblems(result, value) };
}

/**
 * Maps a CSV row with columns `anchor_part_id`, `related_part_id`, `type`, `source` (optional) to a
 * relation item. @returns `{item}` or `{problems}` (unknown columns, schema violations).
 */
export function mapRelationRow(row: FlatRow): MapResult<RelationItem> {
  const item: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [column, raw] of Object.entries(row)) {
    if (META.has(column) || READ_ONLY_FIELDS.relations.includes(column)) continue;
    if (column === 'anchor_part_id' || column === 'related_part_id') {
      const text = cell(raw);
      if (text !== undefined) item[column] = text;
    } else if (column === 'type' || column === 'source') {
      const text = word(raw);
      if (text !== undefined) item[column] = text;
    } else {
      unknown.push(column);
    }
  }
  const problems = unknownColumns(unknown, 'anchor_part_id, related_part_id, type, source');
  const result = RelationItemSchema.safeParse(item);
  problems.push(...schemaProblems(result, item));
  return result.success ? done(result.data, problems) : { problems };
}

// ---------------------------------------------------------------------------------------------
// image manifests

/** The default image_id for a file: its name without the last extension (`a/b/p1.front.jpg` → `p1.front`). */
export function imageIdFromFile(file: string): string {
  const name = basename(file.replace(/\\/g, '/'));
  return basename(name, extname(name));
}

/**
 * Validates an image manifest item (JSON/NDJSON record); `image_id` defaults to
 * {@link imageIdFromFile}(file). @returns the parsed item, or every problem.
 */
export function validateImageManifestItem(value: unknown): MapResult<ImageManifestItem> {
  let input = value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (record.image_id === undefined && typeof record.file === 'string' && record.file !== '') {
      input = { ...record, image_id: imageIdFromFile(record.file) };
    }
  }
  const result = ImageManifestItemSchema.safeParse(input);
  return result.success ? { item: result.data } : { problems: schemaProblems(result, input) };
}

/**
 * Maps a manifest CSV row with columns `image_id` (optional), `part_id`, `info`, `position`
 * (optional integer ≥ 1), `file` to `{image_id, part_id, info, position?, file}`.
 * @returns `{item}` or `{problems}` (bad integer, unknown columns, schema violations).
 */
export function mapImageManifestRow(row: FlatRow): MapResult<ImageManifestItem> {
  const problems: string[] = [];
  const unknown: string[] = [];
  const reported = new Set<string>();
  const item: Record<string, unknown> = {};
  for (const [column, raw] of Object.entries(row)) {
    if (META.has(column)) continue;
    const text = cell(raw);
    switch (column) {
      case 'image_id':
      case 'part_id':
      case 'info':
      case 'file':
        if (text !== undefined) item[column] = text;
        break;
      case 'position':
        if (word(raw) !== undefined) {
          const n = parseInt10(column, word(raw) ?? '', problems);
          if (n === undefined) reported.add(column);
          else item.position = n;
        }
        break;
      default:
        unknown.push(column);
    }
  }
  if (item.image_id === undefined && typeof item.file === 'string') item.image_id = imageIdFromFile(item.file);
  problems.push(...unknownColumns(unknown, 'image_id, part_id, info, position, file'));
  const result = ImageManifestItemSchema.safeParse(item);
  problems.push(...schemaProblems(result, item, pathText, reported));
  return result.success ? done(result.data, problems) : { problems };
}

// ---------------------------------------------------------------------------------------------
// dispatch

/** The resources that can be imported. */
export type ImportKind = 'attributes' | 'parts' | 'relations' | 'images';

/** The item type each import kind produces. */
export interface ImportItemTypes {
  attributes: AttributeInput;
  parts: PartInput;
  relations: RelationItem;
  images: ImageManifestItem;
}

/**
 * Maps one record as read by readRecords: CSV/TSV rows through the row mapper of `kind`; JSON/NDJSON
 * records (already API shaped) pass through unchanged except that `_line/_error/_raw` and the
 * resource's read-only fields ({@link READ_ONLY_FIELDS}) are removed, and are validated with the
 * same schema.
 * @returns `{item}` or `{problems}` (all problems of the record).
 */
export function mapRecord<K extends ImportKind>(kind: K, format: ImportFormat, record: FlatRow): MapResult<ImportItemTypes[K]> {
  const csv = format === 'csv' || format === 'tsv';
  const input = csv ? record : stripReadOnly(stripMetaColumns(record), READ_ONLY_FIELDS[kind]);
  let result: MapResult<ImportItemTypes[ImportKind]>;
  switch (kind) {
    case 'attributes':
      result = csv ? mapAttributeRow(input) : validateAttributeItem(input);
      break;
    case 'parts':
      result = csv ? mapPartRow(input) : validatePartItem(input);
      break;
    case 'relations':
      result = csv ? mapRelationRow(input) : validateRelationItem(input);
      break;
    default:
      result = csv ? mapImageManifestRow(input) : validateImageManifestItem(input);
  }
  return result as MapResult<ImportItemTypes[K]>;
}

// ---------------------------------------------------------------------------------------------
// synonyms

/**
 * A CSV/TSV row of `synonyms import`: `synonym_id`, `input` (one-way sets only; empty = multi-way),
 * `synonyms` (terms separated by `|`, each trimmed: `usb stick|flash drive`).
 */
export function mapSynonymRow(row: FlatRow): MapResult<Record<string, unknown>> {
  const item: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [column, raw] of Object.entries(row)) {
    if (META.has(column)) continue;
    if (column === 'synonym_id') {
      const text = cell(raw);
      if (text !== undefined) item.synonym_id = text;
    } else if (column === 'input') {
      const text = word(raw);
      if (text !== undefined) item.input = text;
    } else if (column === 'synonyms') {
      const text = cell(raw);
      if (text !== undefined) item.synonyms = text.split('|').map((t) => t.trim()).filter((t) => t !== '');
    } else {
      unknown.push(column);
    }
  }
  const problems = unknownColumns(unknown, 'synonym_id, input, synonyms');
  const result = SynonymInputSchema.safeParse(item);
  problems.push(...schemaProblems(result, item));
  return result.success ? done(result.data as Record<string, unknown>, problems) : { problems };
}

/** A synonym set as a CSV row that `synonyms import` reads back (terms joined by `|`). */
export function synonymToRow(set: Partial<SynonymSet> & { synonym_id: string }): Record<string, string> {
  return { synonym_id: set.synonym_id, input: set.input ?? '', synonyms: (set.synonyms ?? []).join('|') };
}

// ---------------------------------------------------------------------------------------------
// organizations (decisions §5)

/** A CSV/TSV row of `organizations import`: `org_id`, `parent_id` (empty: a root organization). */
export function mapOrganizationRow(row: FlatRow): MapResult<Record<string, unknown>> {
  const item: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [column, raw] of Object.entries(row)) {
    if (META.has(column)) continue;
    if (column === 'org_id' || column === 'parent_id') {
      const text = cell(raw);
      if (text !== undefined) item[column] = text;
    } else {
      unknown.push(column);
    }
  }
  const problems = unknownColumns(unknown, 'org_id, parent_id');
  const result = OrganizationInputSchema.safeParse(item);
  problems.push(...schemaProblems(result, item));
  return result.success ? done(result.data as Record<string, unknown>, problems) : { problems };
}

/** An organization as a CSV row that `organizations import` reads back (a root's parent_id empty). */
export function organizationToRow(org: Partial<Organization> & { org_id: string }): Record<string, string> {
  return { org_id: org.org_id, parent_id: org.parent_id ?? '' };
}
