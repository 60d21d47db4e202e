/**
 * The one interface the CLI depends on (docs/architecture.md): every API operation, implemented by
 * the local client (in-process core over a data directory) and the HTTP client (undici, remote
 * server). Both return the same shapes and throw the same CatalogError for the same input; the
 * contract suite under test/contract proves it.
 *
 * Request bodies are typed `unknown` on purpose: both implementations validate them with the same
 * src/api schemas (the local one in-process, the remote one on the server), so bad input from a
 * file reaches the user as the same 400 / per-item error in either mode.
 */
import type {
  Attribute, BulkDeleteResult, BulkWriteResult, MaintenanceState, Organization, Page, Part,
} from '../api/schemas.js';
import type { Relation, RelationCreateResult } from '../api/schemas.js';

/** An attribute as listed or selected: attribute_id plus the projected fields. */
export type AttributeView = Partial<Attribute> & { attribute_id: string };
/** A part as listed or selected: part_id plus the projected fields. */
export type PartView = Partial<Part> & { part_id: string };

export interface CatalogClient {
  /** 'local' (data directory) or 'remote' (HTTP server). */
  readonly mode: 'local' | 'remote';

  /** POST /1/catalog/attributes (spec 4.1). */
  upsertAttributes(items: unknown[]): Promise<BulkWriteResult>;
  /** DELETE /1/catalog/attributes (spec 4.1). */
  deleteAttributes(ids: unknown[]): Promise<BulkDeleteResult>;
  /** POST /1/catalog/attributes/list (spec 4.1, 2.4). */
  listAttributes(request: unknown): Promise<Page<AttributeView>>;
  /** POST /1/catalog/attributes/select (spec 4.1). */
  selectAttributes(request: unknown): Promise<AttributeView[]>;

  /** POST /1/catalog/parts (decisions §5). */
  upsertParts(items: unknown[]): Promise<BulkWriteResult>;
  /** DELETE /1/catalog/parts (decisions §5). */
  deleteParts(ids: unknown[]): Promise<BulkDeleteResult>;
  /** POST /1/catalog/parts/list. */
  listParts(request: unknown): Promise<Page<PartView>>;
  /** POST /1/catalog/parts/select. */
  selectParts(request: unknown): Promise<PartView[]>;
  /** GET /1/catalog/parts/{part_id}[?organization=]; 404 when unknown. */
  getPart(partId: string, options?: { organization?: string }): Promise<Part>;

  /** POST /1/catalog/organizations (decisions §5). */
  upsertOrganizations(items: unknown[]): Promise<BulkWriteResult>;
  /** POST /1/catalog/organizations/list. */
  listOrganizations(request: unknown): Promise<Page<Organization>>;

  /** GET /1/catalog/maintenance (decisions §7). */
  getMaintenance(): Promise<MaintenanceState>;
  /** PUT /1/catalog/maintenance (decisions §7; catalogAdmin). */
  setMaintenance(enabled: boolean): Promise<MaintenanceState>;

  /**
   * POST /v1/parts/relations (spec 4.3, decisions §6): all or nothing; any bad item is one 400
   * naming every bad item (`items[3].related_part_id`). Returns how many relations were written.
   */
  createRelations(items: unknown[]): Promise<RelationCreateResult>;
  /**
   * GET /v1/parts/{part_id}/relations/{type}, or every type (GET /v1/parts/{part_id}/relations)
   * when `type` is omitted. 400 for an unknown type, 404 for an unknown part.
   */
  getRelations(partId: string, type?: string): Promise<Relation[]>;

  /** Releases the database or the connection pool. */
  close(): Promise<void>;
}
