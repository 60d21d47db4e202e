/**
 * The page's only way to the catalog: the public HTTP API (docs/api.md) with the user's token as the
 * bearer header. The token lives in sessionStorage (gone when the tab closes), or in localStorage
 * when the user asks to be remembered on this device, and never in a URL.
 */

const TOKEN_KEY = 'catalog.token';

/** A problem+json answer (docs/api.md, "Wire"). */
export interface Problem {
  status: number;
  code?: string;
  title?: string;
  detail?: string;
  errors?: Array<{ path: string; message: string }>;
}

/** An API error with the problem the server sent. */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title ?? `HTTP ${problem.status}`);
  }
  get status(): number {
    return this.problem.status;
  }
}

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY) ?? localStorage.getItem(TOKEN_KEY);
}

/** Keeps the token for this tab; `remember`: also for new tabs on this device (localStorage). */
export function setToken(token: string, remember = false): void {
  sessionStorage.setItem(TOKEN_KEY, token);
  if (remember) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

/**
 * Forgets the token (this tab and the device) and everything the session kept of its searches;
 * listeners of `catalog:signed-out` show the sign-in form again.
 */
export function signOut(reason?: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(TOKEN_KEY);
  for (const key of Object.keys(sessionStorage)) if (key.startsWith('catalog.search')) sessionStorage.removeItem(key);
  window.dispatchEvent(new CustomEvent('catalog:signed-out', { detail: reason }));
}

/** What a person reads when the server cannot be reached at all (fetch's "Failed to fetch"). */
export const UNREACHABLE = 'The catalog server cannot be reached: check the connection, then try again.';

async function problemOf(response: Response): Promise<Problem> {
  try {
    const body = (await response.json()) as Problem;
    return { ...body, status: response.status };
  } catch {
    return { status: response.status, detail: `${response.status} ${response.statusText}` };
  }
}

/** One request with the bearer token. A 401 signs out (the token is revoked or wrong). */
export async function request(method: string, path: string, body?: unknown, token: string | null = getToken(), signal?: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, { method, headers, ...(payload !== undefined ? { body: payload } : {}), ...(signal ? { signal } : {}) });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new Error(UNREACHABLE);
  }
  if (!response.ok) {
    const problem = await problemOf(response);
    if (response.status === 401 && token === getToken()) signOut(problem.detail);
    throw new ApiError(problem);
  }
  return response;
}

/** A JSON call. */
export async function api<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  return (await (await request(method, path, body, getToken(), signal)).json()) as T;
}

/** Checks a token before keeping it: GET /1/catalog/info answers any valid token. */
export async function checkToken(token: string): Promise<void> {
  await request('GET', '/1/catalog/info', undefined, token);
}

export const enc = encodeURIComponent;

// ------------------------------------------------------------------------------------------------
// Wire shapes the page reads (src/api/schemas.ts, src/api/image-schemas.ts).

export type LangMap = Record<string, string>;

export interface Attribute {
  attribute_id: string;
  type: string;
  name: LangMap;
  filterable: boolean;
  searchable: boolean;
  visibility: string;
  display_order?: number | null;
  /** Rank in creation order (1 = oldest), docs/api.md "Attributes". */
  creation_order?: number;
  /** Values per organization: such an attribute cannot order a search (docs/api.md, `sort`). */
  per_org_values?: boolean;
}

export interface PartValue {
  organization: string;
  value: LangMap;
  source?: string;
}

export interface Part {
  part_id: string;
  name: LangMap;
  attributes: Array<{ attribute_id: string; values: PartValue[] }>;
  createdAt: string;
  modifiedAt: string;
}

export interface SearchResult {
  id: string;
  name?: string;
  nameLanguage?: string;
  /** `results.score`: an image search's similarity confidence in [0, 1]; null in a text search. */
  score?: number | null;
  /** `results.images`: the hit's shown display images in UI order. */
  images?: Array<{ image_id: string; path: string }>;
  /** `results.highlights`: every field a query word matched, with the matched spans. */
  highlights?: Highlight[];
  /** `results.attributes`: the part's values the caller may see. */
  attributes?: Part['attributes'];
}

/** One highlighted field of a hit (docs/api.md "Highlights"): `text.slice(start, end)` matched. */
export interface Highlight {
  field: 'id' | 'name' | 'value';
  language?: string;
  attribute_id?: string;
  text: string;
  matches: Array<{ word: number; start: number; end: number; how: string }>;
}

/** `facets` of a search answer: per attribute, its most frequent values among all hits. */
export type Facets = Record<string, Array<{ value: string; count: number }>>;

/** The documented threshold of `results.score` (docs/api.md, "Score"): at or above it a photo hit is confident. */
export const CONFIDENT_IMAGE_SCORE = 0.5;

/**
 * The projection every search page asks for: the card fields, the display images (one request
 * fills the page's thumbnails) and the score of a photo search.
 */
export const RESULT_PROJECTION = ['results.id', 'results.name', 'results.nameLanguage', 'results.images', 'results.score', 'results.highlights', 'results.attributes'];

export interface SearchResponse {
  sessionId: string;
  imageId: string | null;
  results: SearchResult[];
  resultsTotalCount: number;
  facets?: Facets;
}

export interface ImageDescription {
  image_id: string;
  part_id: string;
  info: string;
  position?: number;
}

export interface DisplayImages {
  part_id: string;
  max_display_images: number;
  ordered: string[];
  shown: string[];
}

export interface Relation {
  part_id: string;
  part_role: 'anchor_part' | 'related_part';
  type: string;
  source: string;
  created: string;
}

export interface BulkWriteResult {
  created: string[];
  updated: string[];
  errors: Record<string, string[]>;
}

interface Page<T> {
  result: T[];
  last_object_id: string;
  more_data: boolean;
}

let attributesOnce: Promise<Attribute[]> | undefined;

/** Every attribute definition the token may read (paged through, kept for the session). */
/** GET /1/auth/token: the signed-in token's roles and what they allow (docs/api.md, "Authentication"). */
export interface CurrentToken {
  name: string;
  roles: string[];
  organization: string | null;
  permissions: { writeCatalog: boolean; setImagePosition: boolean; maintenance: boolean };
}

const tokenInfo = new Map<string, Promise<CurrentToken>>();

/** The signed-in token's permissions, asked once per token (pages show only what it may do). */
export function currentToken(): Promise<CurrentToken> {
  const token = getToken() ?? '';
  let info = tokenInfo.get(token);
  if (!info) {
    info = api<CurrentToken>('GET', '/1/auth/token');
    info.catch(() => tokenInfo.delete(token));
    tokenInfo.set(token, info);
  }
  return info;
}

/** The attribute fields the pages use; `creation_order` orders attributes without display_order (spec 2.1). */
const ATTRIBUTE_FIELDS = ['name', 'type', 'searchable', 'filterable', 'visibility', 'display_order', 'creation_order'];

export function allAttributes(): Promise<Attribute[]> {
  attributesOnce ??= (async () => {
    const all: Attribute[] = [];
    let last = '';
    for (;;) {
      const page = await api<Page<Attribute>>('POST', '/1/catalog/attributes/list', { paging: { limit: 1000, ...(last ? { last_object_id: last } : {}) }, projection: ATTRIBUTE_FIELDS });
      all.push(...page.result);
      if (!page.more_data || page.result.length === 0) return all;
      last = page.last_object_id;
    }
  })();
  attributesOnce.catch(() => (attributesOnce = undefined));
  return attributesOnce;
}

/** Names of parts by id (POST /1/catalog/parts/select, names only); unknown ids are absent. */
export async function partNames(ids: string[]): Promise<Map<string, LangMap>> {
  const out = new Map<string, LangMap>();
  if (ids.length === 0) return out;
  const parts = await api<Array<{ part_id: string; name: LangMap }>>('POST', '/1/catalog/parts/select', { part_ids: [...new Set(ids)], projection: ['name'] });
  for (const part of parts) out.set(part.part_id, part.name);
  return out;
}

/** Images of one part (POST /1/catalog/images/list). */
export async function imagesOfPart(partId: string): Promise<ImageDescription[]> {
  const all: ImageDescription[] = [];
  let last = '';
  for (;;) {
    const page = await api<Page<ImageDescription>>('POST', '/1/catalog/images/list', { query: { part_ids: [partId] }, paging: { limit: 1000, ...(last ? { last_object_id: last } : {}) } });
    all.push(...page.result);
    if (!page.more_data || page.result.length === 0) return all;
    last = page.last_object_id;
  }
}

export function displayImages(partId: string): Promise<DisplayImages> {
  return api<DisplayImages>('GET', `/1/catalog/parts/${enc(partId)}/display-images`);
}

/** The text in `language`, else the same language ignoring case, else the first language in sorted order (as search names). */
export function inLanguage(map: LangMap | undefined, language: string): { text: string; lang: string } {
  if (!map) return { text: '', lang: language };
  if (map[language] !== undefined) return { text: map[language], lang: language };
  const lower = language.toLowerCase();
  const keys = Object.keys(map).sort();
  const same = keys.find((k) => k.toLowerCase() === lower);
  const key = same ?? keys[0];
  return key === undefined ? { text: '', lang: language } : { text: map[key] ?? '', lang: key };
}
