/**
 * A whole catalog: the foundation service plus one service per capability (images, relations,
 * search), all over the same store and data directory. Built by src/open-catalog.ts; used by the
 * HTTP app and the local client.
 */
import type { CatalogService } from './service.js';
import type { RelationService } from './relation-service.js';

export interface Catalog {
  /** Attributes, parts, organizations, tokens, maintenance mode, authentication. */
  service: CatalogService;
  /** Part relations (spec 2.3, 4.3; decisions §6). */
  relations: RelationService;
  /** Closes every store. */
  close(): Promise<void>;
}
