/**
 * The wire contract as code: zod schemas of every request and response of api-spec.md §4, with the
 * open points settled by api-decisions.md. Imported by the core (validation), the HTTP server and
 * both clients, so the local and the remote mode cannot drift.
 *
 * Each schema is built on its first use (`z.lazy`), not when this module loads
 * (start-up): building all of them is zod work every CLI command would pay, and a command uses
 * a few (a local `catalog search` the search request's). Parsing is unchanged: a lazy schema
 * hands every parse to the schema it built, issues, paths and messages included.
 */
import { z } from 'zod';

/**
 * True when the string has a UTF-16 surrogate without its partner. Such a string has no UTF-8 form:
 * SQLite would store replacement bytes, so it could not be read back and two ids would collapse
 * into one. With the `u` flag, `\p{Cs}` matches only unpaired surrogates.
 */
export function hasLoneSurrogate(s: string): boolean {
  return /\p{Cs}/u.test(s);
}
const LONE_SURROGATE_MESSAGE = 'must not contain unpaired UTF-16 surrogates (it must be valid Unicode)';

/**
 * An id as the catalog keeps it: Unicode NFC, so `é` typed as one code point (NFC) and as `e` plus a
 * combining accent (NFD, as macOS file names have it) are the same part, image or attribute
 * (docs/api.md, "Ids"). The core applies it to every id it is given, in a body (through
 * {@link IdSchema}) or in a path.
 */
export function normalizeId(id: string): string {
  return id.normalize('NFC');
}

/**
 * Ids (attribute_id, part_id, image_id, org_id): 1..256 chars, no control characters, no `/`, no
 * unpaired surrogate (decisions §1); parsed to their NFC form ({@link normalizeId}).
 */
export const IdSchema = z.lazy(() =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(256, 'must be at most 256 characters')
    // eslint-disable-next-line no-control-regex
    .refine((s) => !/[\u0000-\u001f\u007f/]/.test(s), 'must not contain control characters or "/"')
    .refine((s) => !hasLoneSurrogate(s), LONE_SURROGATE_MESSAGE)
    .transform(normalizeId),
);

/** Language key such as `en`, `de`, `pt-BR`. */
export const LanguageSchema = z.lazy(() => z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as "en" or "pt-BR"'));

/** A language key -> string map (spec 2.1 `name`, `default_value`, values); texts must be valid Unicode. */
export const LangMapSchema = z.lazy(() => z.record(
  LanguageSchema,
  z.string().max(10_000, 'must be at most 10,000 characters').refine((s) => !hasLoneSurrogate(s), LONE_SURROGATE_MESSAGE),
));

export const ATTRIBUTE_TYPES = ['text', 'enum'] as const;
export const VISIBILITIES = ['factoryWorker', 'admin', 'superAdmin', 'csa'] as const;
export const ORG_VISIBILITIES = ['parent', 'sub'] as const;
/** Allowed `labels` values (decisions §3, from the original service). */
export const ATTRIBUTE_LABELS = [
  'description', 'identifier', 'manufacturer_name', 'manufacturer_part_number', 'oem_name', 'oem_id',
  'upc', 'ean', 'serial_number', 'sku', 'supplier_name', 'supplier_part_number',
] as const;

/** Roles (decisions §2): catalog roles and the app roles named by attribute visibility. */
export const CATALOG_ROLES = ['catalogAdmin', 'dataContributor', 'dataValidator'] as const;
export const APP_ROLES = VISIBILITIES;
export const ROLES = [...CATALOG_ROLES, ...APP_ROLES] as const;
export type Role = (typeof ROLES)[number];
export const RoleSchema = z.lazy(() => z.enum(ROLES));

export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];
export type Visibility = (typeof VISIBILITIES)[number];
export type OrgVisibility = (typeof ORG_VISIBILITIES)[number];
export type AttributeLabel = (typeof ATTRIBUTE_LABELS)[number];
export type LangMap = Record<string, string>;

// ---------------------------------------------------------------------------------------------
// Attributes (spec 2.1, 4.1; decisions §3)

/** One item of POST /1/catalog/attributes. Absent fields keep their stored value on update. */
export const AttributeInputSchema = z.lazy(() => z.strictObject({
  attribute_id: IdSchema,
  type: z.enum(ATTRIBUTE_TYPES).optional(),
  name: LangMapSchema.optional(),
  searchable: z.boolean().optional(),
  filterable: z.boolean().optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  org_visibility: z.enum(ORG_VISIBILITIES).optional(),
  labels: z.array(z.enum(ATTRIBUTE_LABELS)).optional(),
  per_org_values: z.boolean().optional(),
  default_value: LangMapSchema.nullable().optional(),
  display_order: z.number().int().min(0).max(2_147_483_647).nullable().optional(),
}));
export type AttributeInput = z.infer<typeof AttributeInputSchema>;

/** A stored attribute as returned by select/list (all fields). */
export interface Attribute {
  attribute_id: string;
  type: AttributeType;
  name: LangMap;
  searchable: boolean;
  filterable: boolean;
  visibility: Visibility;
  org_visibility: OrgVisibility;
  labels: AttributeLabel[];
  per_org_values: boolean;
  default_value?: LangMap;
  display_order?: number;
}

/**
 * Projection values of attribute list/select (spec 4.1), and our `creation_order` (docs/api.md,
 * "Attributes"): the attribute's rank in creation order (1 = the oldest existing one), the order
 * spec 2.1 puts attributes without display_order in; returned only when projected.
 */
export const ATTRIBUTE_PROJECTION = ['name', 'type', 'searchable', 'filterable', 'visibility', 'org_visibility', 'display_order', 'labels', 'per_org_values', 'default_value', 'creation_order'] as const;
export type AttributeField = (typeof ATTRIBUTE_PROJECTION)[number];

// ---------------------------------------------------------------------------------------------
// Paging (spec 2.4; decisions §1)

export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;

export const PagingSchema = z.lazy(() => z.strictObject({
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).optional(),
  last_object_id: z.string().max(256).optional(),
}));

/** Builds the strict list request schema `{paging?, projection?, ...extra}` for a projection set. */
export function listRequestSchema<const P extends readonly [string, ...string[]]>(projection: P) {
  return z.strictObject({
    paging: PagingSchema.optional(),
    projection: z.array(z.enum(projection, { error: `must be one of: ${projection.join(', ')}` })).optional(),
  });
}

export const AttributeListRequestSchema = z.lazy(() => listRequestSchema(ATTRIBUTE_PROJECTION));
export type AttributeListRequest = z.infer<typeof AttributeListRequestSchema>;

export const AttributeSelectRequestSchema = z.lazy(() => z.strictObject({
  attribute_ids: z.array(z.string().transform(normalizeId)).max(MAX_PAGE_LIMIT),
  projection: z.array(z.enum(ATTRIBUTE_PROJECTION, { error: `must be one of: ${ATTRIBUTE_PROJECTION.join(', ')}` })).optional(),
}));
export type AttributeSelectRequest = z.infer<typeof AttributeSelectRequestSchema>;

/** The paging envelope of every list operation (spec 2.4). */
export interface Page<T> {
  result: T[];
  /** Id of the page's last item; on an empty page, the request's last_object_id (or ""). */
  last_object_id: string;
  more_data: boolean;
}

// ---------------------------------------------------------------------------------------------
// Bulk results (spec 4.1, 4.2; decisions §1: errors map id -> LIST of messages)

export interface BulkWriteResult {
  created: string[];
  updated: string[];
  errors: Record<string, string[]>;
}

export interface BulkDeleteResult {
  deleted: string[];
  errors: Record<string, string[]>;
}

/** Array of ids, the body of every bulk DELETE. */
export const IdListSchema = z.lazy(() => z.array(z.unknown()));

// ---------------------------------------------------------------------------------------------
// Parts and organizations (decisions §5)

export const PartValueSchema = z.lazy(() => z.strictObject({
  organization: z.union([z.literal(''), IdSchema]).default(''),
  value: LangMapSchema,
}));

export const PartAttributeInputSchema = z.lazy(() => z.strictObject({
  attribute_id: IdSchema,
  values: z.array(PartValueSchema).max(1000),
}));

/** One item of POST /1/catalog/parts. On update `name` replaces the names; each given attribute replaces its values. */
export const PartInputSchema = z.lazy(() => z.strictObject({
  part_id: IdSchema,
  name: LangMapSchema.optional(),
  attributes: z.array(PartAttributeInputSchema).max(1000).optional(),
}));
export type PartInput = z.infer<typeof PartInputSchema>;

/**
 * One batch of a call that writes several batches together (CatalogService.upsertPartBatches,
 * CatalogClient.upsertPartBatches): a body as POST /1/catalog/parts takes it (validated by the
 * service), or items the caller validated already with `validateBulkItem(PartInputSchema, item,
 * 'part_id')` (src/core/validation.ts), as upsertValidatedParts takes them. Not a wire type.
 */
export type PartBatch = { items: unknown; validated?: false } | { items: readonly PartInput[]; validated: true };

export interface PartValue {
  organization: string;
  value: LangMap;
  /** Only when resolved for an organization: where the value came from. */
  source?: 'own' | 'inherited' | 'default' | 'global';
}

export interface PartAttribute {
  attribute_id: string;
  values: PartValue[];
}

/** A stored part type as returned by list/select/get. */
export interface Part {
  part_id: string;
  serviceId: string;
  name: LangMap;
  attributes: PartAttribute[];
  createdAt: string;
  modifiedAt: string;
}

export const PART_PROJECTION = ['name', 'attributes', 'serviceId', 'createdAt', 'modifiedAt'] as const;
export type PartField = (typeof PART_PROJECTION)[number];

export const PartListRequestSchema = z.lazy(() => z.strictObject({
  paging: PagingSchema.optional(),
  projection: z.array(z.enum(PART_PROJECTION, { error: `must be one of: ${PART_PROJECTION.join(', ')}` })).optional(),
  organization: z.string().max(256).optional(),
}));
export type PartListRequest = z.infer<typeof PartListRequestSchema>;

export const PartSelectRequestSchema = z.lazy(() => z.strictObject({
  part_ids: z.array(z.string().transform(normalizeId)).max(MAX_PAGE_LIMIT),
  projection: z.array(z.enum(PART_PROJECTION, { error: `must be one of: ${PART_PROJECTION.join(', ')}` })).optional(),
  organization: z.string().max(256).optional(),
}));
export type PartSelectRequest = z.infer<typeof PartSelectRequestSchema>;

export const OrganizationInputSchema = z.lazy(() => z.strictObject({
  org_id: IdSchema,
  parent_id: IdSchema.nullable().optional(),
}));
export type OrganizationInput = z.infer<typeof OrganizationInputSchema>;

export interface Organization {
  org_id: string;
  parent_id: string | null;
}

export const OrganizationListRequestSchema = z.lazy(() => z.strictObject({ paging: PagingSchema.optional() }));

// ---------------------------------------------------------------------------------------------
// Maintenance (decisions §7)

export const MaintenanceSchema = z.lazy(() => z.strictObject({ enabled: z.boolean() }));
export type MaintenanceState = z.infer<typeof MaintenanceSchema>;

// ---------------------------------------------------------------------------------------------
// Tokens (decisions §2; docs/api.md "Tokens": scopes, expiry, rotation, management over HTTP)

/**
 * Scopes narrow what a token's roles allow, never widen it (docs/api.md "Tokens"): one per group of
 * API operations, `<resource>:read` for its reads and `<resource>:write` for its writes. `search`
 * covers text and photo searches, session pages and facet values; `maintenance` switching
 * maintenance mode; `tokens` managing tokens; `metrics` reading `GET /metrics`; `changes` reading
 * the change feed; `webhooks` managing webhooks. A token without
 * scopes (`scopes: null`) may do everything its roles allow. Reading its own description
 * (`GET /1/auth/token`), the catalog's identity and the maintenance state needs no scope.
 */
export const SCOPES = [
  'attributes:read', 'attributes:write',
  'parts:read', 'parts:write',
  'organizations:read', 'organizations:write',
  'synonyms:read', 'synonyms:write',
  'images:read', 'images:write',
  'relations:read', 'relations:write',
  'search',
  'maintenance',
  'tokens',
  'metrics',
  'changes',
  'webhooks',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Longest lifetime a token may be given: ten years, in seconds. */
export const MAX_TOKEN_LIFETIME_SECONDS = 10 * 366 * 86_400;

/** POST /1/auth/tokens (docs/api.md "Tokens"): a new token; `expiresInSeconds` absent = never expires. */
export const TokenCreateSchema = z.lazy(() => z.strictObject({
  name: z.string(),
  roles: z.array(z.string()).max(ROLES.length * 2),
  organization: z.string().nullable().optional(),
  scopes: z.array(z.string()).max(SCOPES.length * 2).nullable().optional(),
  expiresInSeconds: z.number().int('must be a whole number of seconds').min(1, 'must be at least 1').max(MAX_TOKEN_LIFETIME_SECONDS, `must be at most ${MAX_TOKEN_LIFETIME_SECONDS} (ten years)`).nullable().optional(),
}));
export type TokenCreateRequest = z.infer<typeof TokenCreateSchema>;

/** POST /1/auth/tokens/{name}/rotate: a new secret; `expiresInSeconds` sets a new expiry (absent: keep the lifetime the token had). */
export const TokenRotateSchema = z.lazy(() => z.strictObject({
  expiresInSeconds: z.number().int('must be a whole number of seconds').min(1, 'must be at least 1').max(MAX_TOKEN_LIFETIME_SECONDS, `must be at most ${MAX_TOKEN_LIFETIME_SECONDS} (ten years)`).nullable().optional(),
}));

/** A token as listed (never its secret or hash); times ISO 8601 UTC, null when none. */
export interface TokenInfo {
  name: string;
  roles: Role[];
  organization: string | null;
  /** The scopes it is narrowed to, or null: everything its roles allow. */
  scopes: Scope[] | null;
  createdAt: string;
  /** When it stops working, or null: never. */
  expiresAt: string | null;
  /** When it last authenticated a request, to the minute (written at most once a minute), or null. */
  lastUsedAt: string | null;
}

/** The answer of creating or rotating a token: its secret, shown this once, and its description. */
export interface CreatedToken {
  secret: string;
  token: TokenInfo;
}

/** Who is calling: the token's name, roles and organization; local mode is the owner (all roles). */
export interface Principal {
  name: string;
  roles: readonly Role[];
  organization: string | null;
  /** The scopes the token is narrowed to (docs/api.md "Tokens"); null or absent: all its roles allow. */
  scopes?: readonly Scope[] | null;
  /** When the token expires, microseconds since the epoch; null or absent: never. */
  expiresAt?: number | null;
  /**
   * Server-side only, never on the wire: the stable identity that owns this caller's search
   * sessions (a token's secret-hash prefix, `local` for local mode), so a name re-used by
   * another token cannot read them.
   */
  sessionOwner?: string;
}

/** Limits of decisions §9. */
export const MAX_BULK_ITEMS = 1000;

// ---------------------------------------------------------------------------------------------
// Part relations (spec 2.3, 4.3; decisions §6)

export const RELATION_TYPES = ['duplicate', 'substitute', 'equivalent', 'not_related'] as const;
export const RELATION_SOURCES = ['confirmed_by_user', 'ingested'] as const;
/** The role of the OTHER part of a relation, as seen from the part asked about (spec 2.3). */
export const PART_ROLES = ['anchor_part', 'related_part'] as const;
export type RelationType = (typeof RELATION_TYPES)[number];
export type RelationSource = (typeof RELATION_SOURCES)[number];
export type PartRole = (typeof PART_ROLES)[number];

/** Enum error: "required" when absent, else the allowed values. */
function relationEnumError(values: readonly string[]) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? 'required' : `must be one of: ${values.join(', ')}`);
}

export const RelationTypeSchema = z.enum(RELATION_TYPES, { error: relationEnumError(RELATION_TYPES) });
export const RelationSourceSchema = z.lazy(() => z.enum(RELATION_SOURCES, { error: relationEnumError(RELATION_SOURCES) }));

/** One item of POST /v1/parts/relations; `source` defaults to ingested (spec 4.3). */
export const RelationInputSchema = z.lazy(() => z.strictObject({
  anchor_part_id: IdSchema,
  related_part_id: IdSchema,
  type: RelationTypeSchema,
  source: RelationSourceSchema.default('ingested'),
}));
export type RelationInput = z.infer<typeof RelationInputSchema>;

/**
 * A relation as returned by GET /v1/parts/{part_id}/relations[/{type}] (spec 2.3): `part_id` is the
 * OTHER part and `part_role` that part's role; `created` is ISO 8601 UTC with microseconds.
 */
export interface Relation {
  part_id: string;
  part_role: PartRole;
  type: RelationType;
  source: RelationSource;
  /** Name of the token that wrote the relation ("local" in local mode). */
  user_id?: string;
  created: string;
}

/** Answer of POST /v1/parts/relations (decisions §6): how many relations (distinct pairs) were written. */
export interface RelationCreateResult {
  created: number;
}

/** Longest cursor of the relations listing: a JSON array of two ids (`["<anchor>","<related>"]`). */
export const MAX_RELATION_CURSOR = 2048;

/**
 * The request of POST /v1/parts/relations/list (our addition, docs/api.md): every relation of the
 * catalog, paged (spec 2.4) in (anchor_part_id, related_part_id) order; `last_object_id` is the
 * previous page's cursor.
 */
export const RelationListRequestSchema = z.lazy(() => z.strictObject({
  paging: z
    .strictObject({
      limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).optional(),
      last_object_id: z.string().max(MAX_RELATION_CURSOR).optional(),
    })
    .optional(),
}));
export type RelationListRequest = z.infer<typeof RelationListRequestSchema>;

/**
 * A relation as listed by POST /v1/parts/relations/list: in its import columns (the item shape of
 * POST /v1/parts/relations) plus the read-only `user_id` and `created` (ISO 8601 UTC, microseconds).
 */
export interface RelationRecord {
  anchor_part_id: string;
  related_part_id: string;
  type: RelationType;
  source: RelationSource;
  user_id?: string;
  created: string;
}

/**
 * GET /1/auth/token (our addition, docs/api.md "Authentication"): the token making the request as
 * the service sees it — never its secret — and what its roles allow, so a client (the web page)
 * shows only what the token may do. Decisions §2 for the role rules.
 */
export interface CurrentToken {
  /** The token's name (`local` in local mode). */
  name: string;
  roles: Role[];
  /** The organization the token is bound to, or null. */
  organization: string | null;
  /** The scopes the token is narrowed to, or null (everything its roles allow; local mode). */
  scopes: Scope[] | null;
  /** When the token expires (ISO 8601 UTC), or null: never. */
  expiresAt: string | null;
  permissions: {
    /** May create, change and delete attributes, parts, images, relations and organizations. */
    writeCatalog: boolean;
    /** May set or change an image's `position` (spec 2.2: dataContributor or dataValidator). */
    setImagePosition: boolean;
    /** May switch maintenance mode (catalogAdmin). */
    maintenance: boolean;
  };
}

/** GET /1/catalog/info (our addition, docs/api.md): which catalog this is, and the software's version. */
export interface CatalogInfo {
  /** A UUID stored in the catalog when it is first used; never changes, differs between catalogs. */
  catalogId: string;
  /** Version of the catalog software serving it. */
  version: string;
}

/** The software version reported by GET /1/catalog/info. */
export { CATALOG_VERSION } from './version.js';

// ---------------------------------------------------------------------------------------------
// Synonyms (docs/api.md "Synonyms", docs/search.md "Synonyms")

/** Most synonym sets a catalog holds; a write that would pass it is an item error. */
export const MAX_SYNONYM_SETS = 10_000;
/** Most terms in one set (`input` included). */
export const MAX_SYNONYM_TERMS = 20;
/** Most search words (tokens, as search splits text) in one term. */
export const MAX_SYNONYM_TERM_WORDS = 4;
/** Longest term, in characters. */
export const MAX_SYNONYM_TERM_LENGTH = 100;

const SynonymTermSchema = z.lazy(() => z
  .string()
  .max(MAX_SYNONYM_TERM_LENGTH, `must be at most ${MAX_SYNONYM_TERM_LENGTH} characters`)
  .refine((s) => !hasLoneSurrogate(s), LONE_SURROGATE_MESSAGE));

/**
 * One item of POST /1/catalog/synonyms: creates the set or replaces it whole. Without `input` a
 * multi-way set: each of `synonyms` finds every other (`bolt, screw`); with `input` one-way:
 * searching `input` also finds each of `synonyms`, not the reverse (`hex → hexagon`). A term may
 * be several words (`usb stick`); terms compare as search words do (case and diacritics folded).
 */
export const SynonymInputSchema = z.lazy(() => z.strictObject({
  synonym_id: IdSchema,
  input: SynonymTermSchema.optional(),
  synonyms: z.array(SynonymTermSchema).min(1, 'must list at least one term').max(MAX_SYNONYM_TERMS, `must list at most ${MAX_SYNONYM_TERMS} terms`),
}));

/** A stored synonym set as list returns it (terms as written, trimmed). */
export interface SynonymSet {
  synonym_id: string;
  /** One-way sets only: the term whose search also finds `synonyms`. */
  input?: string;
  synonyms: string[];
}

export const SynonymListRequestSchema = z.lazy(() => z.strictObject({ paging: PagingSchema.optional() }));

// ---------------------------------------------------------------------------------------------
// Ranking settings (our addition: docs/api.md "Ranking settings", docs/search.md "Ranking")

/**
 * PUT /1/catalog/ranking: the catalog's ranking settings, replaced whole. `customRanking`: a
 * number attribute (filterable, not per-organization, every stored value a number) whose value
 * breaks the ties of the ranking rules before BM25, `desc` (default: the largest first) or `asc`;
 * null or absent: none. `identifierAttributes`: searchable, not per-organization attributes whose
 * values are identifiers (manufacturer part numbers): a part with such a value equal to the query,
 * separators and case aside, ranks with the exact name level; absent: none. `attributeOrder`:
 * searchable, not per-organization attributes in order of importance (at most
 * {@link MAX_ATTRIBUTE_ORDER}): the attribute rule ranks a part holding a word in an earlier one
 * above a part holding it only in a later or unlisted one (names first); absent: none.
 */
export const RankingSettingsSchema = z.lazy(() => z.strictObject({
  customRanking: z.strictObject({
    attribute_id: IdSchema,
    order: z.enum(SORT_ORDERS, { error: `must be one of: ${SORT_ORDERS.join(', ')}` }).optional(),
  }).nullable().optional(),
  identifierAttributes: z.array(IdSchema).max(MAX_IDENTIFIER_ATTRIBUTES, { error: `at most ${MAX_IDENTIFIER_ATTRIBUTES} identifier attributes` }).optional(),
  attributeOrder: z.array(IdSchema).max(MAX_ATTRIBUTE_ORDER, { error: `at most ${MAX_ATTRIBUTE_ORDER} attributes in the attribute order` }).optional(),
}));

/** Most attributes an attribute order lists (the index marks each word with one bit per position). */
export const MAX_ATTRIBUTE_ORDER = 8;

/** Most identifier attributes a catalog may name (each is one more term looked up per search). */
export const MAX_IDENTIFIER_ATTRIBUTES = 8;

/** The catalog's ranking settings as stored and answered (GET/PUT /1/catalog/ranking). */
export interface RankingSettings {
  /** The attribute that breaks the rules' ties (its values as numbers, in `order`), or null. */
  customRanking: { attribute_id: string; order: SortOrder } | null;
  /** The identifier attributes, in the order set (none: []). */
  identifierAttributes: string[];
  /** The attribute order, most important first (none: []). */
  attributeOrder: string[];
}

// ---------------------------------------------------------------------------------------------
// Search (spec 2.5, 4.4; decisions §8)

/**
 * Projection values of search and search state (decisions §8). None given = the first six
 * ({@link DEFAULT_SEARCH_PROJECTION}); `results.images` and `results.attributes` (richer
 * hits) are read only when asked for; `results.score` is an image search's similarity
 * confidence in [0, 1] (null in a text search).
 */
export const SEARCH_PROJECTION = [
  'results.id', 'results.serviceId', 'results.name', 'results.nameLanguage', 'results.createdAt', 'results.modifiedAt',
  'results.images', 'results.attributes', 'results.highlights', 'results.score',
] as const;
export type SearchProjection = (typeof SEARCH_PROJECTION)[number];
/** The projection of a search that names none: the six fields of spec 2.5. */
export const DEFAULT_SEARCH_PROJECTION: readonly SearchProjection[] = SEARCH_PROJECTION.slice(0, 6);

/** Facets asked for per search, and the default and largest number of values per facet. */
export const MAX_SEARCH_FACETS = 20;
export const DEFAULT_FACET_VALUES = 10;
export const MAX_FACET_VALUES = 1000;

export const DEFAULT_SEARCH_LIMIT = 25;
/** Longest search text, in characters. */
export const MAX_SEARCH_TEXT = 1000;
/** Largest search request body (decisions §8, §9): 5.5 MiB, more is a 413. */
export const MAX_SEARCH_BODY_BYTES = Math.floor(5.5 * 1024 * 1024);

/** One filter: `label` is an attribute id (filterable); a part passes when its value equals one of `values`, ignoring case. */
export const SearchFilterSchema = z.lazy(() => z.strictObject({
  label: IdSchema,
  values: z.array(z.string().max(10_000)).min(1, 'must list at least one value').max(MAX_PAGE_LIMIT),
}));

/** Directions of `sort` and of the custom ranking attribute. */
export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/**
 * One key of a search's `sort` (our extension of spec §8's request, docs/api.md "Search"): an
 * attribute (`attribute_id`: filterable, not per-organization, one the caller may read) or the
 * part id (`field: "part_id"`), `order` asc (default) or desc. Hits are then in that order
 * (parts without a value last), ties by part id, instead of the ranking rules.
 */
export const SearchSortSchema = z.lazy(() => z.strictObject({
  attribute_id: IdSchema.optional(),
  field: z.enum(['part_id'], { error: 'must be "part_id" (or give attribute_id instead)' }).optional(),
  order: z.enum(SORT_ORDERS, { error: `must be one of: ${SORT_ORDERS.join(', ')}` }).optional(),
}).refine((s) => (s.attribute_id === undefined) !== (s.field === undefined), 'give either attribute_id (an attribute) or field: "part_id", not both'));
export type SearchSort = z.infer<typeof SearchSortSchema>;

/** The request of POST /1/find/search (the JSON body, or the multipart part `input`). */
export const SearchRequestSchema = z.lazy(() => z.strictObject({
  language: LanguageSchema.optional(),
  projection: z.array(z.enum(SEARCH_PROJECTION, { error: `must be one of: ${SEARCH_PROJECTION.join(', ')}` })).optional(),
  matches: z
    .strictObject({
      organization: z.string().max(256).optional(),
      text: z.string().max(MAX_SEARCH_TEXT, `must be at most ${MAX_SEARCH_TEXT} characters`).optional(),
      filters: z.array(SearchFilterSchema).max(100).optional(),
      /** Attribute ids (filterable) whose value counts over every hit the answer carries in `facets`. */
      facets: z.array(IdSchema).max(MAX_SEARCH_FACETS).optional(),
    })
    .optional(),
  /** Our extension (docs/api.md "Search"): one sort key; without it the ranking rules order the hits. */
  sort: z.array(SearchSortSchema).max(1, 'one sort key at most (ties are broken by part id)').optional(),
  resultOptions: z.strictObject({
    limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).optional(),
    /** Values per facet, most frequent first (default 10). */
    maxValuesPerFacet: z.number().int().min(1).max(MAX_FACET_VALUES).optional(),
    /**
     * Image searches only: keep only hits whose score is at least this, in [0, 1];
     * CONFIDENT_IMAGE_SCORE (0.5) keeps the confident ones. Default 0: every part with a
     * reference image, most similar first.
     */
    minScore: z.number().min(0).max(1).optional(),
  }).optional(),
}));
export type SearchRequest = z.infer<typeof SearchRequestSchema>;

/** One search result; the fields present follow the projection. Timestamps: ISO 8601 UTC with microseconds. */
export interface SearchResult {
  id?: string;
  serviceId?: string;
  name?: string;
  nameLanguage?: string;
  createdAt?: string;
  modifiedAt?: string;
  /**
   * `results.images`: the part's shown display images in UI order (decisions §4, at most
   * max_display_images), each with the path of its original (GET it with the same token).
   */
  images?: SearchResultImage[];
  /** `results.attributes`: the part's values the caller may see, as a part read shows them. */
  attributes?: PartAttribute[];
  /** `results.highlights`: the fields the query words matched, with the matched spans. */
  highlights?: SearchHighlight[];
  /**
   * `results.score`: an image search's confidence, in [0, 1] to 4 decimals, that the
   * hit shows the part in the photo (at or above {@link CONFIDENT_IMAGE_SCORE}: a confident hit);
   * null in a search without an image.
   */
  score?: number | null;
}

/**
 * The documented threshold of `results.score` (docs/search.md, "Photo search"): at or above it a
 * hit is confident; on the photo-search benchmark at most 5 % of photos of things not in the
 * catalog reach it, and the true part of at least 90 % of photo-like queries does.
 */
export const CONFIDENT_IMAGE_SCORE = 0.5;

/**
 * One field of a hit that query words matched: the part id, a name (with its language) or a value
 * of a searchable attribute the caller sees (with its attribute id); `text` is the field's text
 * (Unicode NFC) and `matches` the matched spans in it.
 */
export interface SearchHighlight {
  field: 'id' | 'name' | 'value';
  language?: string;
  attribute_id?: string;
  text: string;
  matches: SearchHighlightMatch[];
}

/**
 * A matched span of a highlight: `text.slice(start, end)` (UTF-16 code units, as JavaScript
 * strings index), `word` the index of the query word (0-based, in the order typed, punctuation-only
 * words dropped), `how` it matched: `exact`, `prefix` (the last word; only the typed part is
 * marked), `typo` (one edit away) or `synonym` (a term of a synonym set of the word, or of the
 * run of words starting at `word`).
 */
export interface SearchHighlightMatch {
  word: number;
  start: number;
  end: number;
  how: 'exact' | 'prefix' | 'typo' | 'synonym';
}

/** A display image of a search hit. */
export interface SearchResultImage {
  image_id: string;
  /** Path of the original, e.g. `/1/catalog/images/img-1/original`. */
  path: string;
}

/** One value of a facet and how many hits hold it. */
export interface FacetValue {
  value: string;
  count: number;
}

/** Facet counts by attribute id: the most frequent values first (ties by value), at most maxValuesPerFacet. */
export type SearchFacets = Record<string, FacetValue[]>;

/**
 * The request of POST /1/find/facet-values: values of the filterable attribute
 * `attribute_id` beginning with `prefix` (ignoring case; "" or absent = every value), counted over
 * the hits of `matches` (as a search's; absent = every part), at most `maxValues` (1..1000).
 */
export const FacetValuesRequestSchema = z.lazy(() => z.strictObject({
  attribute_id: IdSchema,
  prefix: z.string().max(1000).optional(),
  matches: z
    .strictObject({
      organization: z.string().max(256).optional(),
      text: z.string().max(MAX_SEARCH_TEXT, `must be at most ${MAX_SEARCH_TEXT} characters`).optional(),
      filters: z.array(SearchFilterSchema).max(100).optional(),
    })
    .optional(),
  maxValues: z.number().int().min(1).max(MAX_FACET_VALUES).optional(),
}));

/** A POST /1/find/facet-values request body, as {@link FacetValuesRequestSchema} accepts it. */
export type FacetValuesRequest = z.infer<typeof FacetValuesRequestSchema>;

/** Answer of POST /1/find/facet-values: the attribute and its values, most frequent first. */
export interface FacetValuesResponse {
  attribute_id: string;
  values: FacetValue[];
}

/** Answer of POST /1/find/search and GET /1/find/search/state/{sessionId} (spec 2.5). */
export interface SearchResponse {
  sessionId: string;
  /** Id of the stored query image; null for a text search. */
  imageId: string | null;
  results: SearchResult[];
  /** Every hit before skip and limit: the true total, also when the session keeps fewer. */
  resultsTotalCount: number;
  /**
   * How many of them can be paged: the first `resultsPageableCount` hits in rank order are kept in
   * the session (at most `maxSessionHits`, 10,000 by default; docs/api.md, Search). A page starting
   * at or past it is a 400 when hits were left out (`resultsPageableCount < resultsTotalCount`).
   */
  resultsPageableCount: number;
  /** Value counts over every hit for each attribute of `matches.facets`; absent when none was asked. */
  facets?: SearchFacets;
}

/** Paging of GET /1/find/search/state/{sessionId}: skip (default 0), limit (default 25, 1..1000), projection. */
export interface SearchStateOptions {
  skip?: number;
  limit?: number;
  projection?: string[];
}
