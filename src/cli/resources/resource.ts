/**
 * A catalog resource as the CLI sees it: how to import, list, fetch and delete it, and which
 * columns it shows. One generic set of commands (src/cli/commands/resource-commands.ts) serves
 * every resource that has the bulk pattern of spec 4.1/4.2.
 */
import type { BulkDeleteResult, Page } from '../../api/schemas.js';
import type { CatalogClient } from '../../client/types.js';
import type { ImportSpec } from '../import/run-import.js';

export interface ResourceSpec<T extends Record<string, unknown> = Record<string, unknown>> extends ImportSpec {
  /** Singular for messages, e.g. `attribute`. */
  singular: string;
  /** Every field a record may have, for --fields validation. */
  fields: string[];
  /** Columns of the table / tsv output by default. */
  defaultFields: string[];
  list(client: CatalogClient, request: { paging: { limit: number; last_object_id?: string } }): Promise<Page<T>>;
  select(client: CatalogClient, ids: string[]): Promise<T[]>;
  delete(client: CatalogClient, ids: string[]): Promise<BulkDeleteResult>;
  /** Flat CSV row of a record, importable again by `import` (cli.md: list -o csv round-trips). */
  toCsvRow(record: T): Record<string, string>;
}
