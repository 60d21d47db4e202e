/**
 * The ports the core depends on (docs/architecture.md). Adapters implement them; the core never
 * imports a driver. Store methods are async so that a networked database could implement them, but
 * each one is a coarse unit of work that the SQLite adapter runs inside ONE synchronous transaction.
 */
import type {
  Attribute, LangMap, Organization, Page, Part, PartAttribute, Role, TokenInfo,
} from '../api/schemas.js';
import type { RelationSource, RelationType } from '../api/schemas.js';
import type { PartViewContext } from './catalog/parts.js';
import type { SearchFilter } from './search/match.js';
import type { QueryWord } from './search/query.js';
import type { ResultCard } from './search/result.js';

/** Time source: integer microseconds since the Unix epoch (decisions §1 timestamps). */
export interface Clock {
  nowMicros(): number;
}

/** Identifier and secret source. */
export interface Ids {
  /** A random RFC 4122 v4 UUID (serviceId, sessionId). */
  uuid(): string;
  /** A random secret of at least 32 bytes of entropy, URL-safe text (tokens, decisions §2). */
  secret(): string;
}

/** Keyset paging request as the store sees it: ids strictly greater than `after`, at most `limit` + 1 read. */
export interface KeysetPage {
  after: string | undefined;
  limit: number;
}

/**
 * The decision the core makes for one item of a bulk write, given what is stored. Pure: computed
 * inside the store's transaction so the check and the write cannot be separated by another writer.
 */
export type Decision<T> = { kind: 'write'; value: T; created: boolean } | { kind: 'error'; messages: string[] } | { kind: 'skip' };

/** Stored form of a part (timestamps in microseconds). */
export interface StoredPart {
  part_id: string;
  serviceId: string;
  name: LangMap;
  attributes: PartAttribute[];
  createdAt: number;
  modifiedAt: number;
}

/** Stored form of a token: only the SHA-256 hash of its secret. */
export interface StoredToken {
  name: string;
  secretHash: string;
  roles: Role[];
  organization: string | null;
  createdAt: number;
}

/** Attributes, parts, organizations, tokens and settings: the catalog's persistent state. */
export interface CatalogStore {
  /** Runs `decide` for each attribute id against its stored version inside one transaction and applies writes. */
  upsertAttributes<I extends { attribute_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: Attribute | undefined, referencedBy: number) => Decision<Attribute>,
  ): Promise<Decision<Attribute>[]>;
  /** Deletes each id unless `decide` says otherwise; one transaction. */
  deleteAttributes(
    ids: readonly string[],
    decide: (id: string, existing: Attribute | undefined, referencedBy: number) => Decision<null>,
  ): Promise<Decision<null>[]>;
  listAttributes(page: KeysetPage): Promise<Attribute[]>;
  getAttributes(ids: readonly string[]): Promise<Attribute[]>;
  /** Every attribute (small: the ontology, not the parts). */
  allAttributes(): Promise<Attribute[]>;

  /**
   * Upserts parts; `decide` sees the stored part and every attribute, in one transaction. Organizations
   * named in written values that do not exist yet are created as roots (decisions §5).
   */
  upsertParts<I extends { part_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: StoredPart | undefined, attributes: ReadonlyMap<string, Attribute>) => Decision<StoredPart>,
  ): Promise<Decision<StoredPart>[]>;
  deleteParts(
    ids: readonly string[],
    decide: (id: string, existing: StoredPart | undefined, dependents: { images: number }) => Decision<null>,
  ): Promise<Decision<null>[]>;
  listParts(page: KeysetPage): Promise<StoredPart[]>;
  getParts(ids: readonly string[]): Promise<StoredPart[]>;

  upsertOrganizations(items: readonly Organization[], decide: (item: Organization, existing: Organization | undefined, all: ReadonlyMap<string, Organization>) => Decision<Organization>): Promise<Decision<Organization>[]>;
  listOrganizations(page: KeysetPage): Promise<Organization[]>;
  /** Creates each named organization that does not exist yet, as a root (decisions §5). */
  ensureOrganizations(ids: readonly string[]): Promise<void>;
  allOrganizations(): Promise<Map<string, Organization>>;

  createToken(token: StoredToken): Promise<void>;
  findTokenByHash(secretHash: string): Promise<StoredToken | undefined>;
  listTokens(): Promise<StoredToken[]>;
  revokeToken(name: string): Promise<boolean>;
  countTokens(): Promise<number>;

  getSetting(key: string): Promise<string | undefined>;
  setSetting(key: string, value: string): Promise<void>;

  close(): Promise<void>;
}

export type { Attribute, Organization, Page, Part, TokenInfo };

/**
 * A stored part relation (spec 2.3), direction as last written: for substitute the anchor is the
 * predecessor and the related part the successor. `created` in microseconds since the epoch.
 */
export interface StoredRelation {
  anchor_part_id: string;
  related_part_id: string;
  type: RelationType;
  source: RelationSource;
  user_id: string | null;
  created: number;
}

/** Part relations (spec 2.3, 4.3; decisions §6): one relation per unordered pair of parts. */
export interface RelationStore {
  /** The ids among `partIds` that name no part. */
  missingParts(partIds: readonly string[]): Promise<Set<string>>;
  /**
   * All or nothing, in one transaction: when a part named by any relation does not exist, writes
   * nothing and returns those ids in `missing`; otherwise writes every relation, replacing the one
   * stored for the same unordered pair (latest write wins), and returns how many were written.
   * `relations` must hold each unordered pair at most once.
   */
  writeRelations(relations: readonly StoredRelation[]): Promise<{ written: number; missing: string[] }>;
  /** Every relation involving `partId` (of `type` when given); undefined when the part does not exist. */
  relationsOf(partId: string, type: RelationType | undefined): Promise<StoredRelation[] | undefined>;
}

/**
 * A stored part image (spec 2.2; decisions §4): the description plus where its original lives.
 * `sha256` is the blob key of the original (content address), `size` its length in bytes, `mime` the
 * type detected from its bytes; `position` null when not set; times in microseconds.
 */
export interface StoredImage {
  image_id: string;
  part_id: string;
  sha256: string;
  size: number;
  mime: string;
  info: string;
  position: number | null;
  createdAt: number;
  modifiedAt: number;
}

/**
 * What an image write stores: the image, and its search features (`features BLOB`): bytes to store,
 * `null` to clear them, `undefined` to keep what is stored.
 */
export interface ImageWrite {
  image: StoredImage;
  features: Uint8Array | null | undefined;
}

/**
 * Part images' metadata (migration 2, table images). Like CatalogStore, each write is one
 * transaction running the core's pure `decide` against the stored state. An image references its
 * part WITHOUT cascade: deleting a part that still has images is an item error (decisions §4).
 */
export interface ImageStore {
  /**
   * Runs `decide` for each item with the stored image (by image_id) and whether `item.part_id`
   * names an existing part, and writes `kind: 'write'` outcomes; one transaction.
   */
  upsertImages<I extends { image_id: string; part_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: StoredImage | undefined, partExists: boolean) => Decision<ImageWrite>,
  ): Promise<Decision<ImageWrite>[]>;
  /** Deletes each id unless `decide` says otherwise; one transaction. */
  deleteImages(ids: readonly string[], decide: (id: string, existing: StoredImage | undefined) => Decision<null>): Promise<Decision<null>[]>;
  /** Images by image_id (keyset), only of these parts when `partIds` is given. */
  listImages(page: KeysetPage, partIds: readonly string[] | undefined): Promise<StoredImage[]>;
  getImages(ids: readonly string[]): Promise<StoredImage[]>;
  /** Every image of a part; undefined when the part does not exist. */
  imagesOfPart(partId: string): Promise<StoredImage[] | undefined>;
  /** Whether any image references the blob `sha256`. */
  isBlobReferenced(sha256: string): Promise<boolean>;
  /** Every blob key referenced by an image (for the start-up sweep of orphans). */
  referencedBlobs(): Promise<Set<string>>;
}

/**
 * Hook for image search (the follow-up feature): computes the search features of a searchable
 * image (info has `searchable`). The ImageService calls `index` after the image's bytes are stored
 * and BEFORE its metadata commits, and stores the returned bytes in the same metadata transaction
 * (`images.features`); `undefined` stores none. It calls `remove` after an image was deleted or
 * stopped being searchable, and for an image it indexed whose write was then rejected. Throwing from
 * `index` makes that image an item error. Unset (undefined) for now.
 */
/** One part found by image similarity: its best reference image and the score (higher is closer, at most 1). */
export interface ImageMatch {
  part_id: string;
  image_id: string;
  score: number;
}

/** Image search (decisions §8): parts ranked by the similarity of their best searchable image to a query image. */
export interface ImageSimilaritySearch {
  /**
   * Best first, at most `limit` parts. Throws CatalogError `unsupported_media_type` (415) when the
   * bytes are not a decodable image.
   */
  rankParts(image: Uint8Array, limit: number): Promise<ImageMatch[]>;
}

export interface ImageFeatureIndexer {
  /** `image` is the original's bytes, or the path of a local file holding them (see BlobStore.localPath). */
  index(imageId: string, partId: string, image: Uint8Array | { path: string }): Promise<Uint8Array | undefined>;
  remove(imageId: string): Promise<void>;
}

// -- search (spec 2.5, 4.4; decisions §8) ----------------------------------------------------

/**
 * What a rank step produces: hits as result-card ids (immutable snapshots of a part's result
 * fields, see ResultCard) in rank order, at most as many as asked for, and the full total.
 * Text search produces them today; image search will produce them the same way.
 */
export interface RankedHits {
  total: number;
  cardIds: number[];
}

/** A text search as the index sees it: words (with prefix flags), validated filters, and who reads. */
export interface TextSearchQuery {
  words: readonly QueryWord[];
  filters: readonly SearchFilter[];
  /** The caller's view: roles (visibility) and the organization values are resolved for. */
  ctx: PartViewContext;
}

/** The full-text index, kept in sync by the catalog store's write transactions, and the result cards. */
export interface SearchIndex {
  /** Ranks parts for a text query (decisions §8): at most `maxHits` card ids and the total. */
  searchText(query: TextSearchQuery, maxHits: number): Promise<RankedHits>;
  /** Result cards by id, in the order asked; unknown ids are left out. */
  readCards(cardIds: readonly number[]): Promise<ResultCard[]>;
  /** The current card id of each known part id (for rank steps that find parts, e.g. by image). */
  currentCards(partIds: readonly string[]): Promise<Map<string, number>>;
}

/** A stored search session (decisions §8); times in microseconds. */
export interface StoredSession {
  sessionId: string;
  /** Name of the token that started it: the only one that may read it. */
  principal: string;
  createdAt: number;
  expiresAt: number;
  imageId: string | null;
  /** The request's language, for the name of each result. */
  language: string | undefined;
  /** resultsTotalCount: every hit, stored or not. */
  total: number;
  /** How many hits are stored. */
  stored: number;
}

/** Search sessions: a snapshot of ordered hits per session, readable page by page in constant time. */
export interface SessionStore {
  create(session: StoredSession, cardIds: readonly number[]): Promise<void>;
  get(sessionId: string): Promise<StoredSession | undefined>;
  /** Card ids of hits [skip, skip + limit); fewer (or none) past the stored end. */
  readHits(sessionId: string, skip: number, limit: number): Promise<number[]>;
  /** Deletes at most `max` sessions that expired by `nowMicros`; returns how many. */
  purgeExpired(nowMicros: number, max: number): Promise<number>;
  close(): Promise<void>;
}
