/**
 * What a capability's service may use besides its own store (docs/architecture.md): the clock and
 * id source, the shared limits, the write check (permissions + maintenance mode, decisions §7) and
 * the caller's view of the catalog (visibility and organization values, decisions §3, §5). One
 * context per catalog, shared by every service; services never see each other or another
 * capability's store.
 */
import { errors } from '../api/errors.js';
import { MAX_BULK_ITEMS, normalizeId, type Principal } from '../api/schemas.js';
import type { PartViewContext } from './model.js';
import { assertCatalogWriter } from './permissions.js';
import type { CatalogStore, Clock, Ids } from './ports.js';

/** Tunable limits shared by every capability (decisions §9). */
export interface CatalogLimits {
  /** Items per bulk call; more is a 413. */
  maxBulkItems: number;
}

/** The defaults of {@link CatalogLimits} (decisions §9: 1,000 items per bulk call). */
export const DEFAULT_LIMITS: CatalogLimits = { maxBulkItems: MAX_BULK_ITEMS };

/** The settings key of maintenance mode in the CatalogStore (`on` / `off`). */
export const MAINTENANCE_KEY = 'maintenance';

/** The narrow context every service is built with. */
export interface ServiceContext {
  readonly clock: Clock;
  readonly ids: Ids;
  readonly limits: CatalogLimits;
  /**
   * The check every write makes: throws 403 unless `principal` is a catalog writer, then 503 with
   * the exact maintenance detail while maintenance mode is on (read from the store each time, so
   * a CLI in another process switching it on is seen at once).
   */
  assertWritable(principal: Principal): Promise<void>;
  /**
   * Who sees what: a token bound to an organization always reads as that organization and may not
   * ask for another (throws 403); others read raw values unless they name an organization.
   */
  viewContext(principal: Principal, organization: string | undefined): Promise<PartViewContext>;
}

/** Builds the context of one catalog over its CatalogStore. */
export function createServiceContext(deps: { store: CatalogStore; clock: Clock; ids: Ids; limits?: Partial<CatalogLimits> | undefined }): ServiceContext {
  const { store } = deps;
  return {
    clock: deps.clock,
    ids: deps.ids,
    limits: { ...DEFAULT_LIMITS, ...deps.limits },
    async assertWritable(principal) {
      assertCatalogWriter(principal);
      if ((await store.getSetting(MAINTENANCE_KEY)) === 'on') throw errors.maintenance();
    },
    async viewContext(principal, asked) {
      const organization = asked === undefined ? undefined : normalizeId(asked);
      if (principal.organization !== null && organization !== undefined && organization !== principal.organization) {
        throw errors.forbidden(`token '${principal.name}' belongs to organization '${principal.organization}' and may not read values as '${organization}'`);
      }
      // The store's own maps (SQLite keeps them until something commits): no per-request copy.
      const [attributes, organizations] = await Promise.all([store.attributesById(), store.allOrganizations()]);
      return {
        principal,
        attributes,
        organizations,
        organization: principal.organization ?? (organization === '' ? undefined : organization),
      };
    },
  };
}
