/**
 * A whole catalog: the foundation service plus one service per capability (images, relations,
 * search), all over the same store and data directory. Built by src/open-catalog.ts; used by the
 * HTTP app and the local client.
 */
import type { CatalogService } from './catalog/service.js';
import type { RelationService } from './relations/service.js';
import type { ImageService } from './images/service.js';
import type { SearchService } from './search/service.js';
import type { Readiness } from './operations/readiness.js';

/** Sizes a metrics scrape reports (docs/deploy.md "Probes and metrics"); undefined where a store cannot tell. */
export interface CatalogSizes {
  /** Parts in the search index. */
  indexedParts: number | undefined;
  /** Stored search sessions, and the bytes they take as the session budget counts them. */
  sessions: number | undefined;
  sessionBytes: number | undefined;
}

/** What operators' probes and metrics read of a catalog (docs/deploy.md "Probes and metrics"). */
export interface CatalogOperations {
  /** Whether the database and the blob store answer now, each within a time limit; never throws. */
  readiness(): Promise<Readiness>;
  /** The search index's and the sessions' sizes. */
  sizes(): Promise<CatalogSizes>;
  /** Image decodes (query photos and uploads) running and waiting now. */
  decodeQueue(): { active: number; queued: number };
}
import type { ChangeService } from './changes/service.js';
import type { GroupCommit } from './ports.js';

export interface Catalog {
  /** Attributes, parts, organizations, tokens, maintenance mode, authentication. */
  service: CatalogService;
  /** Part relations (spec 2.3, 4.3; decisions §6). */
  relations: RelationService;
  /** Part images (spec 2.2, 4.2; decisions §4). */
  images: ImageService;
  /** Text search and search sessions (spec 2.5, 4.4; decisions §8). */
  search: SearchService;
  /** Readiness, sizes and queues for probes and metrics. */
  operations: CatalogOperations;
  /** The change feed and webhooks (docs/api.md "Changes", "Webhooks"). */
  changes: ChangeService;
  /**
   * Several callers' writes (service calls) in one transaction, committed once: `catalog serve`'s
   * writer thread runs the writes that queued so. Every catalog opened on a store has it; the
   * server's pooled catalog does not (its writes go to that thread).
   */
  groupCommit?: GroupCommit | undefined;
  /** Closes every store. */
  close(): Promise<void>;
}
