/**
 * The core's contracts as plain data (docs/architecture.md): the stored shapes the ports speak in,
 * the pure `Decision` of a bulk write, the caller's view of the catalog, and the search query model.
 * A leaf: it imports only the wire types of src/api (themselves a leaf), so every layer can depend
 * on it without a cycle. No functions, no classes.
 */
import type {
  Attribute, LangMap, Organization, PartAttribute, Principal, RelationSource, RelationType, Role, Scope, SearchFacets, Visibility,
} from '../api/schemas.js';
import type { ChangeType } from '../api/change-schemas.js';

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
  /** The scopes it is narrowed to, or null: everything its roles allow. */
  scopes: Scope[] | null;
  /** Microseconds since the epoch. */
  createdAt: number;
  /** When it stops authenticating (microseconds since the epoch), or null: never. */
  expiresAt: number | null;
  /** When it last authenticated a request (microseconds; written at most once a minute), or null. */
  lastUsedAt: number | null;
}

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

/** One part found by image similarity: its best reference image and the score (higher is closer, at most 1). */
export interface ImageMatch {
  part_id: string;
  image_id: string;
  score: number;
}

/**
 * What a rank step produces: hits as result-card ids (immutable snapshots of a part's result
 * fields, see ResultCard) in rank order, at most as many as asked for, and the full total.
 * Text search produces them today; image search will produce them the same way.
 */
export interface RankedHits {
  total: number;
  cardIds: number[];
  /**
   * Image searches only: each hit's similarity confidence in [0, 1] (ImageMatch.score), parallel
   * to `cardIds`; the projection value `results.score`. Absent for text searches.
   */
  scores?: number[];
}

/** A page of a stored session's hits: card ids in rank order and, for an image search, their scores (parallel). */
export interface SessionHits {
  cardIds: number[];
  scores?: number[];
}

/** A text search as the index sees it: words (with prefix flags), validated filters, and who reads. */
export interface TextSearchQuery {
  /** Every word must match the part id, a name, or a value the caller may see (decisions §8). */
  words: readonly QueryWord[];
  /**
   * The value fields the caller may see, by attribute visibility (names and the id are always
   * searchable). An index matches words against values of these visibilities only, so nothing
   * the caller cannot read can find, rank or count a part.
   */
  visibleValues: readonly Visibility[];
  /** Every filter must hold (values of one filter OR-ed, case-insensitive; decisions §8). */
  filters: readonly SearchFilter[];
  /** The caller's view: roles (visibility) and the organization values are resolved for. */
  ctx: PartViewContext;
  /**
   * What orders the hits besides the ranking rules (docs/search.md, "Ranking"): absent, the rules,
   * BM25, part id. `tieBreak`: the catalog's custom ranking attribute (its number values) between
   * the rules and BM25, given only when the caller may read it. `sort`: the request's `sort`
   * instead of the rules (an attribute's values, or the part id when `attributeId` is absent).
   */
  order?: SearchOrder | undefined;
  /**
   * The catalog's identifier attributes (ranking settings `identifierAttributes`) the caller may
   * read: a part with a value of one of them equal to the whole query, separators and case aside,
   * ranks with the name rule's exact level (docs/search.md, "Ranking"). Absent: none.
   */
  identifiers?: readonly string[] | undefined;
  /**
   * The catalog's attribute order (ranking settings `attributeOrder`), as its index was built with
   * it: a word found in an earlier attribute ranks a part higher than the same word found only in a
   * later or unlisted one (the attribute rule; docs/search.md, "Ranking"). The index keeps each
   * attribute's marks in its values' visibility group, so a caller is ranked only by the attributes
   * it may read. Absent or empty: no order.
   */
  attributeOrder?: readonly string[] | undefined;
}

/** An order of search hits by an attribute's values (TextSearchQuery.order). */
export interface SearchOrder {
  kind: 'tieBreak' | 'sort';
  /** The attribute (filterable, not per-organization); absent for a sort by part id. */
  attributeId?: string | undefined;
  direction: 'asc' | 'desc';
}

/** A stored search session (decisions §8); times in microseconds. */
export interface StoredSession {
  sessionId: string;
  /** Stable identity of the token that started it (Principal.sessionOwner, never its name): the only one that may read it. */
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
  /**
   * The organization the search named (`matches.organization`), so pages show per-organization
   * values (`results.attributes`) as that organization sees them; undefined when none was named.
   */
  organization?: string | undefined;
  /** The search text (`matches.text`), for `results.highlights` on every page; undefined when none. */
  text?: string | undefined;
  /** The facet counts of the search (`matches.facets`), answered again by every page. */
  facets?: SearchFacets | undefined;
}

/** What a reader is allowed to see and for which organization values are resolved. */
export interface PartViewContext {
  principal: Principal;
  attributes: ReadonlyMap<string, Attribute>;
  organizations: ReadonlyMap<string, Organization>;
  /** Resolve per-organization values for this organization; undefined = raw values of every organization. */
  organization: string | undefined;
}

/** A validated filter: attribute (filterable) and the accepted values. */
export interface SearchFilter {
  attribute: Attribute;
  values: readonly string[];
}

/**
 * One whitespace-separated word of the query. Punctuation inside a word splits it into tokens
 * that must appear in sequence (a phrase), so `pci:8086:1539` finds that id and `8086` alone
 * finds it too.
 */
export interface QueryWord {
  /** The word's tokens, folded (core/search/text.ts); several tokens must appear in sequence (a phrase). */
  tokens: string[];
  /** The last token matches as a prefix: the last word of a text that does not end in a space. */
  prefix: boolean;
  /**
   * The word was typed beginning with a separator (`@types/re`): the begins rule then takes the
   * names that begin with one as beginning with it as typed (engine/searcher.ts asTypedBonus).
   */
  leadingSeparator?: boolean;
  /**
   * The word may also match vocabulary words one edit away (typo neighbours, decisions §8): a
   * single token long enough (core/search/typo.ts isTypoEligible). An index tries neighbours for
   * every such word, known or not, and ranks them below the word as typed.
   */
  typo: boolean;
  /**
   * With `typo`: how many edits a neighbour may be away (two for words of 9 or more
   * letters, `TypoRules`); absent = one.
   */
  maxTypos?: 1 | 2;
  /**
   * Synonyms of this word alone (core/search/synonyms.ts): further ways it matches in
   * names and values (phrases of folded tokens, never the part id), ranked below an exact match.
   */
  synonyms?: Alternative[];
  /**
   * A multi-word synonym term starting at this word: the `count` words from this one (this one
   * included) may instead be matched together by any of `alternatives` (`usb stick` by the phrase
   * `flash drive`), ranked below an exact match.
   */
  synonymSpan?: { count: number; alternatives: Alternative[] };
}

/** One way a word may match: a phrase of tokens, the last one possibly a prefix. */
export interface Alternative {
  tokens: string[];
  prefix: boolean;
  /** A typo neighbour of the query word, not the word as typed (ranked below it). */
  typo?: boolean;
}

/**
 * A word with every way it may match: in names and values, itself (or the vocabulary words its
 * prefix begins) plus typo neighbours (see typo.ts); in the part id, itself.
 */
export interface ExpandedWord {
  word: QueryWord;
  alternatives: Alternative[];
  /** Ways to match a token of the part id (column `pid`). */
  idAlternatives: Alternative[];
  /** The word's synonyms (QueryWord.synonyms): in names and values, ranked below `alternatives[0]`. */
  synonyms?: Alternative[];
}

/**
 * The result fields of one part as they were when it was indexed. Immutable: an update of the
 * part makes a new card, so a session that references a card shows the part as it was at search
 * time (timestamps in microseconds).
 */
export interface ResultCard {
  cardId: number;
  partId: string;
  serviceId: string;
  names: LangMap;
  createdAt: number;
  modifiedAt: number;
}

/** One change of the feed as stored (ChangeLog; docs/api.md "Changes"); `at` in microseconds. */
export interface StoredChange {
  change: number;
  at: number;
  type: ChangeType;
  op: 'upsert' | 'delete';
  id: string;
  /** A relation's related_part_id (`id` is its anchor_part_id); null otherwise. */
  related_id: string | null;
}

/** A webhook as stored (WebhookStore): `secret` is the HMAC key; `types` null = every type. */
export interface StoredWebhook {
  webhook_id: string;
  url: string;
  secret: string;
  types: ChangeType[] | null;
  createdAt: number;
}

/** An outbox row claimed for delivery: the webhook, its change (undefined once pruned) and how many attempts came before. */
export interface ClaimedDelivery {
  webhook: StoredWebhook;
  change: StoredChange | undefined;
  changeNumber: number;
  attempts: number;
}

/** One delivery attempt (the delivery log); times in microseconds. */
export interface DeliveryAttempt {
  webhook_id: string;
  change: number;
  attempt: number;
  at: number;
  status: number | null;
  outcome: 'delivered' | 'retry' | 'failed';
  error: string | null;
  /** With outcome `retry`: when the next attempt is due. */
  nextAttemptAt?: number;
}
