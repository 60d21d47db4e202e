/**
 * A catalog resource as the CLI sees it (types only): how to import, list, fetch and delete it,
 * and which columns it shows. Each noun's `resource.ts` (attributes, parts, images, relations)
 * implements it; the generic verbs of ./resource-verbs.ts use it.
 */
import type { Attribute, BulkDeleteResult, BulkWriteResult, Page } from '../../api/schemas.js';
import type { CatalogClient } from '../../client/types.js';
import type { ChangeType } from '../../api/change-schemas.js';

/** What the command tree needs to know of a resource before it is loaded. */
export interface ResourceNames {
  /** The noun, e.g. `attributes`. */
  noun: string;
  /** The id field of an item, e.g. `attribute_id`. */
  idField: string;
  /** The change feed's type of its items, for `list --changed-since` (docs/cli.md "Keeping a second catalog in sync"). */
  changeType?: ChangeType;
}

/** How one resource is imported (`<noun> import`, through the bulk loop of src/cli/bulk). */
export interface ImportSpec extends ResourceNames {
  /**
   * Maps a CSV record (all strings) to an API item, or lists every problem of the row. With
   * `validate: false` the schema check may be skipped (the service validates every item anyway);
   * rows the service rejects are mapped again with validation so messages name the CSV columns.
   */
  mapCsvRow(record: Record<string, string>, options?: { validate?: boolean }): { item: Record<string, unknown> } | { problems: string[] };
  /** Sends one batch; a bulk result with per-item errors keyed by id or `items[<index>]`. */
  send(client: CatalogClient, items: Record<string, unknown>[]): Promise<BulkWriteResult>;
  /**
   * Sends one batch of items validated on the import's reader thread (the resource's schema, as
   * the service would); present for the resources whose reader validates (parts).
   */
  sendValidated?(client: CatalogClient, items: Record<string, unknown>[]): Promise<BulkWriteResult>;
  /**
   * Sends consecutive batches in one call, each as `send` (or, `validated`, `sendValidated`) would
   * and with that call's result; a local catalog writes them in one transaction. Present for the
   * resources whose local import writes several batches per transaction (parts).
   */
  sendBatches?(client: CatalogClient, batches: { items: Record<string, unknown>[]; validated: boolean }[]): Promise<BulkWriteResult[]>;
  /**
   * The attribute definitions, for a local import whose reader thread prepares each new part's
   * search documents (parts; ReaderOptions.definitions): every attribute, as listed.
   */
  definitions?(client: CatalogClient): Promise<Attribute[]>;
  /** Dry run: which of these ids exist already (for would-create / would-update). */
  existing?(client: CatalogClient, ids: string[]): Promise<Set<string>>;
  /**
   * Dry run: the problems a real run would report for items that pass the row checks (e.g. a
   * relation naming a part that does not exist), by index in `items`; so dry-run counts match.
   */
  dryRunProblems?(client: CatalogClient, items: Record<string, unknown>[]): Promise<Map<number, string[]>>;
  /** Largest batch the API accepts. */
  maxBatch: number;
}

/** A resource with the bulk read/delete pattern of spec 4.1/4.2. */
export interface ResourceSpec<T extends Record<string, unknown> = Record<string, unknown>> extends ResourceNames {
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
  /** The header order of the flat columns (output/emit.ts EmitSpec.csvColumns). */
  csvColumns?: (keys: string[]) => string[];
  /**
   * Flat columns known before any record is read (parts: one `attr:<id>.<lang>` per attribute and
   * language of the attribute list), so a csv/tsv listing prints its header, then its rows as they
   * arrive (output/emit.ts emitList).
   */
  knownColumns?: (client: CatalogClient) => Promise<string[]>;
}
