/**
 * Who may do what (decisions §2) and who sees which attribute values (decisions §3 visibility).
 */
import { errors } from '../api/errors.js';
import { CATALOG_ROLES, ROLES, type Principal, type Role, type Scope, type Visibility } from '../api/schemas.js';

const WRITER_ROLES: readonly Role[] = CATALOG_ROLES;
const POSITION_ROLES: readonly Role[] = ['dataContributor', 'dataValidator'];

/** The identity of local mode: the owner of the data directory, with every role (decisions §2). */
export const LOCAL_OWNER: Principal = Object.freeze({ name: 'local', roles: ROLES, organization: null, sessionOwner: 'local' });

function hasAny(principal: Principal, roles: readonly Role[]): boolean {
  return principal.roles.some((r) => roles.includes(r));
}

/** Throws 403 unless the principal may write catalog data (attributes, parts, images, relations, organizations). */
export function assertCatalogWriter(principal: Principal): void {
  if (!canWriteCatalog(principal)) {
    throw errors.forbidden(`token '${principal.name}' may not change the catalog: this needs one of the roles ${WRITER_ROLES.join(', ')}`);
  }
}

/** Throws 403 unless the principal is a catalogAdmin (maintenance mode, tokens). */
export function assertCatalogAdmin(principal: Principal): void {
  if (!principal.roles.includes('catalogAdmin')) {
    throw errors.forbidden(`token '${principal.name}' may not do this: it needs the role catalogAdmin`);
  }
}

/** Whether the principal's scopes allow `scope` (docs/api.md "Tokens"): a token without scopes allows every one. */
export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes == null || principal.scopes.includes(scope);
}

/**
 * Throws 403 naming the missing scope unless the principal's scopes allow `scope`. Scopes only
 * narrow: a call also needs the roles it always needed, checked by the caller.
 */
export function assertScope(principal: Principal, scope: Scope): void {
  if (hasScope(principal, scope)) return;
  const has = principal.scopes && principal.scopes.length > 0 ? principal.scopes.join(', ') : 'none';
  throw errors.forbidden(`token '${principal.name}' lacks the scope '${scope}' this needs (its scopes: ${has})`);
}

/** Whether the principal may write catalog data (the test of {@link assertCatalogWriter}). */
export function canWriteCatalog(principal: Principal): boolean {
  return hasAny(principal, WRITER_ROLES);
}

/** Whether the principal may set or change an image `position` (spec 2.2: dataContributor or dataValidator). */
export function canSetPosition(principal: Principal): boolean {
  return hasAny(principal, POSITION_ROLES);
}

/** Which app roles see values of each visibility (decisions §3). */
const SEEN_BY: Readonly<Record<Visibility, readonly Role[]>> = {
  factoryWorker: ['factoryWorker', 'csa', 'admin', 'superAdmin'],
  csa: ['csa', 'admin', 'superAdmin'],
  admin: ['admin', 'superAdmin'],
  superAdmin: ['superAdmin'],
};

/**
 * Whether the principal sees values of an attribute with this visibility. Catalog roles see
 * everything; `factoryWorker` values are seen by every role.
 */
export function canSeeVisibility(principal: Principal, visibility: Visibility): boolean {
  if (hasAny(principal, CATALOG_ROLES)) return true;
  if (visibility === 'factoryWorker') return true;
  return hasAny(principal, SEEN_BY[visibility]);
}

/** Visibility levels from the widest audience to the narrowest (decisions §3). */
export const VISIBILITY_ORDER = ['factoryWorker', 'csa', 'admin', 'superAdmin'] as const satisfies readonly Visibility[];

/** The visibility levels whose values `principal` may read, widest first (decisions §3). */
export function visibleLevels(principal: Principal): Visibility[] {
  return VISIBILITY_ORDER.filter((v) => canSeeVisibility(principal, v));
}
