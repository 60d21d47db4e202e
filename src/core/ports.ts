/**
 * The ports the core depends on (docs/architecture.md). Adapters implement them; the core never
 * imports a driver. Store methods are async so that a networked database could implement them, but
 * each one is a coarse unit of work that the SQLite adapter runs inside ONE synchronous transaction.
 */
import type { Attribute, Organization, RelationType, SearchFacets, SynonymSet } from '../api/schemas.js';
import type { ChangeType } from '../api/change-schemas.js';
import type { AuditCondition } from '../api/image-schemas.js';
import type {
  Decision, ImageMatch, ImageWrite, KeysetPage, RankedHits, ResultCard, SessionHits, StoredImage, StoredPart, StoredRelation,
  StoredSession, StoredToken, TextSearchQuery, StoredChange, StoredWebhook, ClaimedDelivery, DeliveryAttempt,
} from './model.js';

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

/** Attributes, parts, organizations, tokens and settings: the catalog's persistent state. */
export interface CatalogStore {
  /**
   * Forgets what the store keeps for the current turn of the event loop (SQLite: the data version
   * read once a turn). Work done outside a request (a rehearsal search) calls it when done, so that
   * a request handled later in the same turn reads the catalog afresh and sees every commit.
   * Optional: a store without such a cache leaves it out.
   */
  endTurn?(): void;
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
   * The same attributes by attribute_id, for every read that resolves visibility and values. May be
   * a map the store shares between calls until something commits: callers never change it.
   */
  attributesById(): Promise<ReadonlyMap<string, Attribute>>;

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
  /** The part_ids of a page, in part_id order, read from the id index alone (a sync's prune walks every part so). */
  listPartIds(page: KeysetPage): Promise<string[]>;
  getParts(ids: readonly string[]): Promise<StoredPart[]>;

  upsertOrganizations(items: readonly Organization[], decide: (item: Organization, existing: Organization | undefined, all: ReadonlyMap<string, Organization>) => Decision<Organization>): Promise<Decision<Organization>[]>;
  listOrganizations(page: KeysetPage): Promise<Organization[]>;
  /** Creates each named organization that does not exist yet, as a root (decisions §5). */
  ensureOrganizations(ids: readonly string[]): Promise<void>;
  allOrganizations(): Promise<Map<string, Organization>>;

  /**
   * Synonym sets: runs `decide` for each item with the stored set of its id and the
   * number of stored sets (counting this call's creations so far), and writes each `write`
   * outcome, replacing the stored set whole; one transaction.
   */
  upsertSynonyms<I extends { synonym_id: string }>(
    items: readonly I[],
    decide: (item: I, existing: SynonymSet | undefined, storedSets: number) => Decision<SynonymSet>,
  ): Promise<Decision<SynonymSet>[]>;
  /** Deletes each id unless `decide` says otherwise; one transaction. */
  deleteSynonyms(ids: readonly string[], decide: (id: string, existing: SynonymSet | undefined) => Decision<null>): Promise<Decision<null>[]>;
  /** Synonym sets by synonym_id (keyset). */
  listSynonyms(page: KeysetPage): Promise<SynonymSet[]>;
  /**
   * Every synonym set in synonym_id order (at most MAX_SYNONYM_SETS), read at every search: a store
   * returns the SAME array object while the sets are unchanged (a cache checked against the
   * store's own change marker), so a caller may cache what it derives from it by identity.
   */
  allSynonyms(): Promise<readonly SynonymSet[]>;

  createToken(token: StoredToken): Promise<void>;
  findTokenByHash(secretHash: string): Promise<StoredToken | undefined>;
  listTokens(): Promise<StoredToken[]>;
  revokeToken(name: string): Promise<boolean>;
  countTokens(): Promise<number>;
  /**
   * Gives the token `name` a new secret hash and expiry, in one statement (the old secret stops
   * authenticating at once); returns the token as stored afterwards, undefined when there is none.
   */
  rotateToken(name: string, secretHash: string, expiresAt: number | null): Promise<StoredToken | undefined>;
  /**
   * Records that the token with this hash authenticated a request at `at` (microseconds), unless
   * its stored last use is at or after `notBefore`. Best effort and cheap: a store may skip the
   * write rather than wait for a lock held by another writer (the next use writes it).
   */
  touchToken(secretHash: string, at: number, notBefore: number): Promise<void>;

  getSetting(key: string): Promise<string | undefined>;
  setSetting(key: string, value: string): Promise<void>;
  /**
   * Stores `value` under `key` unless the key already has a value, atomically (two processes racing
   * agree on one value); returns the value stored afterwards. Used for the catalog's identity.
   */
  initSetting(key: string, value: string): Promise<string>;
  /** Every setting (catalog identity, maintenance mode, ...), by key; for `catalog migrate`. */
  allSettings(): Promise<Map<string, string>>;

  close(): Promise<void>;
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
  /**
   * Every relation of the catalog, in (anchor_part_id, related_part_id) code point order, at most
   * `limit`, starting after the pair `after` (exclusive; undefined = from the start). Each relation
   * once, with its stored direction.
   */
  listRelations(after: { anchor_part_id: string; related_part_id: string } | undefined, limit: number): Promise<StoredRelation[]>;
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
/** Image search (decisions §8): parts ranked by the similarity of their best searchable image to a query image. */
export interface ImageSimilaritySearch {
  /**
   * Best first, at most `limit` parts. Throws CatalogError `unsupported_media_type` (415) when the
   * bytes are not a decodable image.
   */
  rankParts(image: Uint8Array, limit: number): Promise<ImageMatch[]>;
  /**
   * Makes the first query fast: loads what queries need and warms what
   * describes a query photo, when the catalog has reference images. Optional; never required for
   * correctness. @throws the store's error when it cannot be read.
   */
  prepare?(): Promise<void>;
}

/** Measurable properties of a reference image, for the image audit's advice. */
export interface ReferenceProperties {
  /** Pixel size of the original (EXIF orientation not applied). */
  width: number;
  height: number;
  /** Standard deviation of its grey levels (flattened on white), 0..~128: near 0 is a blank image. */
  contrast: number;
}

/**
 * What the image audit needs of an image library (docs/api.md "Image audit"): the properties of a
 * reference, and photo-like copies of it, one per condition, deterministic. Throws what the
 * decoder throws for bytes it cannot decode; CatalogError `unavailable` when its decode queue is full.
 */
export interface ReferencePhotoProbe {
  measure(image: Uint8Array): Promise<ReferenceProperties>;
  /** One encoded query photo per condition asked for. */
  photos(image: Uint8Array, conditions: readonly AuditCondition[]): Promise<Map<AuditCondition, Uint8Array>>;
}

/** One searchable reference image's stored features (images.features), with its part. */
export interface ReferenceFeatures {
  image_id: string;
  part_id: string;
  /** The encoded features (core/search/image-similarity.ts encodeFeatures). */
  features: Uint8Array;
}

/**
 * Where the stored features of every searchable reference image are read from (decisions §8). The
 * similarity index keeps them decoded in memory and reloads them when `fingerprint` changes, which
 * also sees writes by other processes or servers on the same catalog.
 */
export interface ReferenceFeatureStore {
  /** A value that changes whenever any image's features are written or removed. */
  fingerprint(): Promise<string>;
  /** Every image with stored features. */
  all(): AsyncIterable<ReferenceFeatures>;
  /** The stored features of these images, by image id (images without features are left out); for `catalog migrate`. */
  featuresOf?(imageIds: readonly string[]): Promise<Map<string, Uint8Array>>;
  /**
   * Up to `limit` images whose stored features do not start with `prefix` (an older feature
   * version), in image_id order after `after`, with their blob; and how many such images there are.
   * Used by the feature backfill (core/search/photo/backfill.ts).
   */
  staleFeatures?(prefix: Uint8Array, after: string, limit: number): Promise<{ images: { image_id: string; sha256: string }[]; remaining: number }>;
  /**
   * Replaces an image's features when its blob is still `sha256` and its features still do not
   * start with `prefix` (so a newer upload is never overwritten); false when nothing was written.
   */
  replaceStaleFeatures?(imageId: string, sha256: string, prefix: Uint8Array, features: Uint8Array): Promise<boolean>;
  /**
   * The number of the latest change to any image's features (or to the part of an image with
   * features), 0 before the first; read it BEFORE {@link all} so that a change committed during
   * the read is seen again by the next {@link changesSince}. The number grows by one per changed
   * row, in commit order, on every process and server writing the catalog (incremental
   * index sync; docs/search.md, "Photo search").
   */
  changeVersion(): Promise<number>;
  /**
   * The images changed after change number `since` (from {@link changeVersion} or an earlier
   * answer), at most `limit` changes (a changed row counts once per change), oldest first, each
   * with its state now: `upserted` holds the images that have features (new, replaced, moved to
   * another part), `removed` the ids of those that no longer have any (deleted, cleared). Pass
   * `version` as `since` next time; `more` says that changes beyond `limit` remain. `complete` is
   * false when changes after `since` were already pruned from the bounded change log (the last
   * 100,000 are kept): the caller must reload everything through {@link all}.
   */
  changesSince(since: number, limit: number): Promise<ReferenceChanges>;
}

/** The answer of {@link ReferenceFeatureStore.changesSince}. */
export interface ReferenceChanges {
  /** The change number this answer is current to. */
  version: number;
  /** False when the log no longer reaches back to `since` (reload everything). */
  complete: boolean;
  /** True when more changes than `limit` were pending (ask again from `version`). */
  more: boolean;
  /** Changed images that have features now, with their part. */
  upserted: ReferenceFeatures[];
  /** Changed images without features now (deleted or cleared). */
  removed: string[];
}

/**
 * Decodes stored originals (sharp in the adapters, through the bounded decode pool). Each call
 * decodes at most `maxPixels` pixels (width × height, read from the header before any decoding).
 */
export interface ImageDecoder {
  /**
   * Decodes the whole image once. Resolves `undefined` when it decodes, else the reason it does not,
   * to follow "the file …" in an item error (`cannot be decoded (…)`, `is W × H = N pixels, over
   * the limit of M pixels (width × height)`).
   * Uploads wait for a decode slot however long the queue (the upload limits bound them).
   */
  verify(image: Uint8Array | { path: string }, maxPixels: number): Promise<string | undefined>;
  /**
   * A WebP that fits a `size` × `size` box (aspect kept, never enlarged, EXIF orientation applied)
   * of the image `open` gives, called once a decode slot is free (a queued call holds no bytes).
   * @throws CatalogError 503 `unavailable` (Retry-After) when the decode queue is full; 413
   *   `payload_too_large` over `maxPixels`; 415 `unsupported_media_type` when it does not decode.
   */
  thumbnail(open: () => Promise<Uint8Array | { path: string }>, size: number, maxPixels: number): Promise<Uint8Array>;
  /**
   * Loads the decoder now rather than at the first decode: a server calls it once it serves, so
   * that its first upload does not hold the event loop while the decoder's library loads.
   * Optional; rejects with the loader's error.
   */
  prepare?(): Promise<void>;
}

export interface ImageFeatureIndexer {
  /** `image` is the original's bytes, or the path of a local file holding them (see BlobStore.localPath). */
  index(imageId: string, partId: string, image: Uint8Array | { path: string }): Promise<Uint8Array | undefined>;
  remove(imageId: string): Promise<void>;
}

// -- search (spec 2.5, 4.4; decisions §8) ----------------------------------------------------

/** The full-text index, kept in sync by the catalog store's write transactions, and the result cards. */
export interface SearchIndex {
  /** Ranks parts for a text query (decisions §8): at most `maxHits` card ids and the total. */
  searchText(query: TextSearchQuery, maxHits: number): Promise<RankedHits>;
  /** Result cards by id, in the order asked; unknown ids are left out. */
  readCards(cardIds: readonly number[]): Promise<ResultCard[]>;
  /**
   * searchText, and readCards of the first `cards` hits, in one read of the index (one snapshot):
   * a search's first page without a second transaction, and with every card current in it.
   * Optional: without it, the two are called one after the other.
   */
  searchTextWithCards?(query: TextSearchQuery, maxHits: number, cards: number): Promise<{ hits: RankedHits; cards: ResultCard[] }>;
  /**
   * searchTextWithCards if ranking reads at most `maxPostings` postings (other reads counted in
   * posting-equivalents by the index), counted before they are read; undefined, having read no
   * more than that and stored nothing, when it would read more. Optional: an index that cannot
   * count leaves it out (every such search is then undefined).
   */
  searchTextWithin?(query: TextSearchQuery, maxHits: number, cards: number, maxPostings: number): Promise<{ hits: RankedHits; cards: ResultCard[] } | undefined>;
  /** The current card id of each known part id (for rank steps that find parts, e.g. by image). */
  currentCards(partIds: readonly string[]): Promise<Map<string, number>>;
  /**
   * Facet counts over EVERY hit of `query` (docs/search.md, Facets), keyed by attribute id
   * (one key per attribute given): the values the caller sees (filter folding: case-insensitive;
   * per-organization values as `query.ctx` resolves them), each with how many hits hold it, most
   * frequent first, ties by folded value in binary order, at most `maxValues` per attribute. An
   * attribute the caller may not see, or not filterable, maps to []. With `valuePrefix`, only
   * values whose folded form begins with the folded prefix count (POST /1/find/facet-values).
   */
  facets(query: TextSearchQuery, attributes: readonly Attribute[], maxValues: number, valuePrefix?: string): Promise<SearchFacets>;
  /**
   * Loads ahead what every search reads (the per-part arrays: lengths, order keys, card ids) and
   * the largest posting lists, so that the first searches of a fresh connection cost what later
   * ones do. `postings`: how many postings of the largest lists to decode ahead (default: the
   * store's own choice; 0 = the per-part arrays only, for a connection that ranks only short
   * lists). Optional: a store without such state leaves it out.
   */
  warm?(options?: { postings?: number }): Promise<void>;
  /**
   * Runs `work` in one read snapshot: every read of this index (and of the catalog beside it on
   * the same connection) inside sees the same committed state, whatever commits meanwhile; the
   * snapshot ends when `work` settles. Only for a connection on which nothing writes while `work`
   * runs. Optional: a store without read snapshots leaves it out.
   */
  readSnapshot?<T>(work: () => Promise<T>): Promise<T>;
  /** How many parts the index holds (metrics). Optional. */
  indexedParts?(): Promise<number>;
  /**
   * The names (every language's) of up to `count` parts spread evenly over the catalog, for
   * rehearsal searches (core/search/rehearsal.ts). Optional: without it, none are rehearsed.
   */
  sampleNames?(count: number): Promise<string[]>;
}

/** Bounds on stored search sessions (defaults in SearchLimits, docs/api.md). */
export interface SessionBudget {
  /** Live sessions one owner (token) may hold. */
  maxSessionsPerOwner: number;
  /** Bytes all sessions may take together, as the store counts them (≈ the file's size). */
  maxTotalBytes: number;
}

/** A session to store and its hits (SessionStore.createMany). */
/**
 * A session's hits already in the session stores' packed form (adapters/session-blocks.ts:
 * blocks of 1,024 hits, card ids as zigzag-delta varints, scores as uint16), packed by the thread
 * that ranked them (`catalog serve`'s readers): 2 bytes a hit instead of 8 to hand over, and each
 * block's bytes own their buffer, so they can be transferred to the session writer, not copied.
 */
export interface PackedSessionHits {
  blocks: readonly { cardIds: Uint8Array; scores: Uint8Array | null }[];
  /** Hits in the blocks. */
  count: number;
}

/** Steps of a stored image-search score: a session keeps each score to 1/65,535 (SessionStore.create). */
export const SESSION_SCORE_STEPS = 0xffff;

/**
 * `score` as a session stores it: clamped to [0, 1] (confidences are in [0, 1] by contract; a
 * rounding slip must never fail a search) and rounded to 1/{@link SESSION_SCORE_STEPS}. An image
 * search answers with these values, so its first page and every later page of its session show the
 * same score (spec 4.4: a session's pages are one result list), and `resultOptions.minScore`
 * compares what the caller is shown.
 */
export function sessionScore(score: number): number {
  return Math.round(Math.min(1, Math.max(0, score)) * SESSION_SCORE_STEPS) / SESSION_SCORE_STEPS;
}

/** A session's hits as ranked: card ids in rank order, and an image search's scores (in [0, 1]) beside them. */
export interface RankedSessionHits {
  cardIds: readonly number[];
  scores?: readonly number[] | undefined;
}

export interface NewSession {
  session: StoredSession;
  hits: RankedSessionHits | PackedSessionHits;
}

/**
 * Stores a batch of sessions, in order, as SessionStore.createMany would, with `budget`'s
 * evictions; resolves once they are committed, rejects when they could not be (they are then
 * lost, as in a crash). `catalog serve`'s SessionBatcher (http/pool/session-batcher.ts) hands its
 * main thread's sessions to a thread of their own through one (adapters/sqlite/session-writer).
 */
export type SessionBatchWriter = (sessions: readonly NewSession[], budget: SessionBudget) => Promise<void>;

/**
 * Where a search service puts the sessions it ranks instead of storing each at once (SearchService
 * `sessionSink`): e.g. `catalog serve`'s main thread stores them in batches after answering
 * (http/pool/session-batcher.ts), and its reader threads hand them to the main thread.
 */
export interface SessionSink {
  /** Takes a new session (synchronously: the answer does not wait), to be stored with `budget`'s evictions. */
  keep(entry: NewSession, budget: SessionBudget): void;
  /**
   * Resolves once every session kept so far is stored, or lost (a failed write loses them, as a
   * crash would: sessions are a cache). The service waits for it before it reads a session.
   */
  flush(): Promise<void>;
}

/** Search sessions: a snapshot of ordered hits per session, readable page by page in constant time. */
export interface SessionStore {
  /**
   * Stores a session and its hits. With a budget, first evicts, oldest first, the owner's sessions
   * beyond `maxSessionsPerOwner` and anyone's beyond `maxTotalBytes`; the new one is always kept.
   * `hits.scores`, when given, is parallel to `hits.cardIds` (values in [0, 1]; stored to 1/65,535).
   */
  create(session: StoredSession, hits: NewSession['hits'], budget?: SessionBudget): Promise<void>;
  /**
   * Stores several sessions, in order, as `create` would each, in one transaction (one commit).
   * Optional: without it the caller creates them one by one.
   */
  createMany?(sessions: readonly NewSession[], budget?: SessionBudget): Promise<void>;
  get(sessionId: string): Promise<StoredSession | undefined>;
  /**
   * Hits [skip, skip + limit): card ids, and their scores when the session was created with
   * scores; fewer (or none) past the stored end.
   */
  readHits(sessionId: string, skip: number, limit: number): Promise<SessionHits>;
  /** Deletes at most `max` sessions that expired by `nowMicros` and gives their space back; returns how many. */
  purgeExpired(nowMicros: number, max: number): Promise<number>;
  /** Stored sessions and the bytes they count against the budget (metrics). Optional. */
  size?(): Promise<{ sessions: number; bytes: number }>;
  close(): Promise<void>;
}

// -- image originals (decisions §4) ------------------------------------------------------------

/**
 * Result of {@link BlobStore.put}.
 * - `sha256`: the content address (64 lowercase hex digits), also usable as an ETag.
 * - `size`: content length in bytes.
 * - `head`: a copy of the first min(size, BLOB_HEAD_BYTES (core/images/blobs.ts)) bytes, for type detection.
 */
export interface BlobPutResult {
  sha256: string;
  size: number;
  head: Uint8Array;
}

/** Counts returned by {@link BlobStore.sweep}. */
export interface BlobSweepResult {
  tempFilesRemoved: number;
  orphansRemoved: number;
}

/**
 * Content-addressed storage of image originals (decisions §4). Keys are lowercase hex SHA-256.
 * Methods given a malformed key (see isSha256Hex in core/images/blobs.ts) throw a TypeError.
 */
export interface BlobStore {
  /**
   * A local file path holding the blob's bytes, for adapters that read files themselves (image
   * decoding reads only what it needs); undefined when the store has no local files.
   */
  localPath?(sha256: string): string | undefined;
  /**
   * Streams `source` to a temp file while hashing, enforcing maxBytes (throws BlobTooLargeError,
   * removing the temp file), fsyncs the file, renames it to its content address (fsyncing the
   * directory), returns {sha256, size, head}. Identical content is stored once (if the target
   * exists, the temp file is discarded and the existing blob's mtime refreshed). `maxBytes`
   * (integer >= 0) defaults to no limit. Any error from the source or the disk removes the temp
   * file and is rethrown. Chunks must be Uint8Array (a Node Readable without encoding qualifies);
   * each chunk is written before the next is requested, so the producer may reuse its buffer.
   */
  put(source: AsyncIterable<Uint8Array> | Uint8Array, options?: { maxBytes?: number }): Promise<BlobPutResult>;
  /**
   * Opens a stored blob for streaming; undefined if absent. `size` in bytes, of the opened file
   * (a later delete does not affect an opened stream). The caller must consume or destroy the
   * stream (it holds a file descriptor until then).
   */
  open(sha256: string): Promise<{ size: number; stream: NodeJS.ReadableStream } | undefined>;
  /** Reads a stored blob whole; undefined if absent. */
  read(sha256: string): Promise<Buffer | undefined>;
  /** True if the blob is stored. */
  has(sha256: string): Promise<boolean>;
  /** Removes a blob (idempotent). The caller decides when (last image referencing it gone). */
  delete(sha256: string): Promise<void>;
  /**
   * Removes temp files left by a crash and every blob whose hash is not in `referenced`; returns
   * counts. Temp files of puts still running in this process are never removed. Files modified less
   * than `minAgeMs` (default 0) ago are kept: pass a grace period when sweeping while uploads may be
   * in flight (a blob is put BEFORE the metadata referencing it commits); with the default, sweep
   * only when no upload is in progress (e.g. at startup).
   */
  sweep(referenced: (sha256: string) => boolean, options?: { minAgeMs?: number }): Promise<BlobSweepResult>;
}

// -- several callers' writes in one transaction ---------------------------------------------------

/** One caller's write in a group (GroupCommit.run). */
export interface GroupedWrite<T = unknown> {
  /** The write: a service call whose store writes join the group's transaction. */
  run(): Promise<T>;
  /** Whether its caller still waits for it (false once its request was given up); asked before it runs and again before the commit. */
  wanted(): boolean;
}

/** What became of one write of a group: its value, its own error (nothing of it stored), or dropped unrun (its caller had given up). */
export type GroupedOutcome<T = unknown> = { kind: 'done'; value: T } | { kind: 'failed'; error: unknown } | { kind: 'dropped' };

/**
 * Group commit (`catalog serve`'s writer thread, on SQLite and PostgreSQL; docs/decisions): the
 * writes that queued while the previous ones ran are committed together, one commit for all of them.
 */
export interface GroupCommit {
  /**
   * Runs `writes` one after the other, in their order, in ONE transaction, and commits it once.
   * Each write runs in a savepoint of its own: one that throws is rolled back alone and its outcome
   * is its error; the others go on. A write whose caller no longer wants it is not run (`dropped`);
   * one given up after it ran but before the commit makes the whole transaction roll back and run
   * again without it, so a given-up write never commits. Once the writes have run for `budgetMs`
   * (default: no limit) no further one starts: the transaction commits what ran, at least one
   * write, and the outcomes are those of the first writes, in order (the caller runs the rest in
   * another group). Rejects (nothing of any write stored) when the transaction itself cannot begin
   * or commit.
   */
  run<T>(writes: readonly GroupedWrite<T>[], budgetMs?: number): Promise<GroupedOutcome<T>[]>;
}

// -- one store set per catalog ------------------------------------------------------------------

/**
 * Every store of one catalog, opened together by one adapter (SQLite or PostgreSQL): the
 * composition root builds the services from it. The search index is kept in sync by the catalog
 * and image stores' write transactions (a committed write is searchable at once, a rolled-back one
 * never). `close` closes them all; the BlobStore is chosen separately (files or object storage).
 */
export interface CatalogStores {
  catalog: CatalogStore;
  /** The change feed and the webhooks' outbox (docs/api.md "Changes", "Webhooks"). */
  changes: ChangeLog;
  webhooks: WebhookStore;
  relations: RelationStore;
  images: ImageStore;
  searchIndex: SearchIndex;
  sessions: SessionStore;
  references: ReferenceFeatureStore;
  /** Several callers' writes in one transaction, committed once. */
  groupCommit: GroupCommit;
  close(): Promise<void>;
}

/**
 * The change feed (docs/api.md "Changes"): every write of the catalog's items numbered in its own
 * transaction by the store (triggers), in commit order, deletions as tombstones; older changes
 * pruned after the retention (settings `change_retention_seconds`, default 30 days).
 */
export interface ChangeLog {
  /**
   * Up to `limit` changes numbered above `since`, ascending (only of `types` when given);
   * `prunedThrough`: the newest pruned number (changes at or below it are gone); `latest`: the
   * newest number given so far. All three from one snapshot.
   */
  changesSince(since: number, limit: number, types: readonly ChangeType[] | undefined): Promise<{ changes: StoredChange[]; prunedThrough: number; latest: number }>;
}

/**
 * Webhooks and their outbox (docs/api.md "Webhooks"): the store adds a row per subscribed webhook
 * to the outbox in the transaction of each change; a deliverer claims due rows, posts them and
 * records the outcome.
 */
export interface WebhookStore {
  /** Adds a webhook; false when its id is taken. Only changes after it are delivered to it. */
  addWebhook(webhook: StoredWebhook): Promise<boolean>;
  /** Every webhook with its pending deliveries, by webhook_id. */
  listWebhooks(): Promise<(StoredWebhook & { pending: number })[]>;
  /** Removes a webhook, its outbox rows and its delivery log; false when there is none. */
  removeWebhook(webhookId: string): Promise<boolean>;
  /**
   * Claims up to `limit` outbox rows due at `now` (microseconds), oldest change first: each
   * claimed row's next attempt moves to `leaseUntil`, so another deliverer (another server)
   * skips it until then; one transaction. A row whose change was pruned comes with `change`
   * undefined.
   */
  claimDeliveries(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Records one attempt in the delivery log (at most the newest 10,000 rows are kept) and
   * settles the outbox row: removed when `outcome` is delivered or failed, otherwise due again at
   * `nextAttemptAt`.
   */
  recordDelivery(attempt: DeliveryAttempt): Promise<void>;
  /** The newest `limit` attempts, of one webhook when given, newest first. */
  deliveries(webhookId: string | undefined, limit: number): Promise<DeliveryAttempt[]>;
}
