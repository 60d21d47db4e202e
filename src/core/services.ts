/**
 * A whole catalog: the foundation service plus one service per capability (images, relations,
 * search), all over the same store and data directory. Built by src/open-catalog.ts; used by the
 * HTTP app and the local client.
 */
import type { CatalogService } from './catalog/service.js';
import type { RelationService } from './relations/service.js';
import type { ImageService } from './images/service.js';
import type { SearchService } from './search/service.js';
import type { ChangeService } from './changes/service.js';

export interface Catalog {
  /** Attributes, parts, organizations, tokens, maintenance mode, authentication. */
  service: CatalogService;
  /** Part relations (spec 2.3, 4.3; decisions §6). */
  relations: RelationService;
  /** Part images (spec 2.2, 4.2; decisions §4). */
  images: ImageService;
  /** Text search and search sessions (spec 2.5, 4.4; decisions §8). */
  search: SearchService;
  /** The change feed and webhooks (docs/api.md "Changes", "Webhooks"). */
  changes: ChangeService;
  /** Closes every store. */
  close(): Promise<void>;
}
