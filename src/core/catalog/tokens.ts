/**
 * Access tokens (decisions §2): random secrets printed once and stored only as a SHA-256 hash.
 */
import { hash } from 'node:crypto';
import { errors } from '../../api/errors.js';
import { CATALOG_ROLES, IdSchema, normalizeId, ROLES, SCOPES, type Principal, type Role, type Scope, type TokenCreateRequest, type TokenInfo } from '../../api/schemas.js';

import { formatMicros } from '../time.js';
import type { StoredToken } from '../model.js';

/** Lowercase hex SHA-256 of a token secret. */
export function hashSecret(secret: string): string {
  // One-shot: every request hashes its token, and a Hash object cost ~3x as much.
  return hash('sha256', secret, 'hex');
}

/** Extracts the token from an `Authorization: Bearer <token>` header; throws 401 when absent or malformed. */
export function bearerToken(header: string | undefined): string {
  if (!header) throw errors.unauthorized('missing Authorization header: send "Authorization: Bearer <token>"');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw errors.unauthorized('malformed Authorization header: expected "Bearer <token>"');
  return match[1];
}

/** Scopes that need a catalog writer role (catalogAdmin, dataContributor, dataValidator). */
const WRITE_SCOPES: ReadonlySet<Scope> = new Set(SCOPES.filter((s) => s.endsWith(':write')));
/** Scopes that need catalogAdmin. */
const ADMIN_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['maintenance', 'tokens', 'webhooks']);

/** A new token as {@link validateNewToken} accepts it: roles and scopes known, deduplicated. */
export interface ValidNewToken {
  name: string;
  roles: Role[];
  organization: string | null;
  scopes: Scope[] | null;
  expiresInSeconds: number | null;
}

/**
 * Validates a token to create (`POST /1/auth/tokens`, `catalog tokens create`); throws 400 naming
 * every problem: the name, unknown roles or scopes, and scopes the roles could never use (a write
 * scope without a writer role, `maintenance` or `tokens` without catalogAdmin).
 */
export function validateNewToken(input: TokenCreateRequest): ValidNewToken {
  const problems: string[] = [];
  const { name, roles, organization } = input;
  if (!IdSchema.safeParse(name).success) problems.push('name: 1 to 256 characters, no control characters or "/"');
  if (roles.length === 0) problems.push(`role: at least one of ${ROLES.join(', ')}`);
  const bad = roles.filter((r) => !(ROLES as readonly string[]).includes(r));
  if (bad.length > 0) problems.push(`role: unknown role(s) ${bad.join(', ')}; allowed: ${ROLES.join(', ')}`);
  if (organization != null && !IdSchema.safeParse(organization).success) problems.push('org: 1 to 256 characters, no control characters or "/"');
  const validRoles = [...new Set(roles)].filter((r): r is Role => (ROLES as readonly string[]).includes(r));
  let scopes: Scope[] | null = null;
  if (input.scopes != null) {
    const unknown = input.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length > 0) problems.push(`scope: unknown scope(s) ${unknown.join(', ')}; allowed: ${SCOPES.join(', ')}`);
    if (input.scopes.length === 0) problems.push(`scope: at least one of ${SCOPES.join(', ')} (or none given, for everything the roles allow)`);
    scopes = [...new Set(input.scopes)].filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
    const writer = validRoles.some((r) => (CATALOG_ROLES as readonly Role[]).includes(r));
    for (const scope of scopes) {
      if (ADMIN_SCOPES.has(scope) && !validRoles.includes('catalogAdmin')) problems.push(`scope: '${scope}' would allow nothing without the role catalogAdmin`);
      if (WRITE_SCOPES.has(scope) && !writer) problems.push(`scope: '${scope}' would allow nothing without one of the roles ${CATALOG_ROLES.join(', ')}`);
    }
  }
  if (problems.length > 0) throw errors.badRequest(problems.join('; '));
  return { name, roles: validRoles, organization: organization == null ? null : normalizeId(organization), scopes, expiresInSeconds: input.expiresInSeconds ?? null };
}

/** The public description of a stored token (never its hash). */
export function tokenInfo(token: StoredToken): TokenInfo {
  return {
    name: token.name, roles: token.roles, organization: token.organization, scopes: token.scopes,
    createdAt: formatMicros(token.createdAt),
    expiresAt: token.expiresAt === null ? null : formatMicros(token.expiresAt),
    lastUsedAt: token.lastUsedAt === null ? null : formatMicros(token.lastUsedAt),
  };
}

/** Throws 401 with the reason when the token has expired at `now` (microseconds). */
export function assertNotExpired(token: StoredToken, now: number): void {
  if (token.expiresAt !== null && now >= token.expiresAt) {
    throw errors.unauthorized(`token '${token.name}' expired at ${formatMicros(token.expiresAt)}: rotate it (catalog tokens rotate ${token.name}) or create a new one`);
  }
}

/** A principal as a server builds it, every field present. */
export function serverPrincipal(fields: Required<Pick<Principal, 'name' | 'roles' | 'organization' | 'sessionOwner'>> & Pick<Principal, 'scopes' | 'expiresAt'>): Principal {
  return { name: fields.name, roles: fields.roles, organization: fields.organization, scopes: fields.scopes ?? null, expiresAt: fields.expiresAt ?? null, sessionOwner: fields.sessionOwner };
}

/** The principal a token acts as. */
export function principalOf(token: StoredToken): Principal {
  // Sessions are owned by the token itself, not its name: 128 bits of its secret's hash.
  return serverPrincipal({ name: token.name, roles: token.roles, organization: token.organization, scopes: token.scopes, expiresAt: token.expiresAt, sessionOwner: `token:${token.secretHash.slice(0, 32)}` });
}

/** How often a token's last use is written at most: once a minute, in microseconds. */
export const LAST_USED_RESOLUTION_MICROS = 60_000_000;
/** Tokens whose last write {@link TokenUsage} remembers; beyond, it forgets them all (one extra write each). */
const USAGE_MEMORY = 10_000;

/**
 * Writes tokens' last-used times cheaply: at most once a {@link LAST_USED_RESOLUTION_MICROS} per
 * token and process, without the request waiting for it. Every request authenticates, and a write
 * per request would put a write transaction on every read; the store also skips a write whose
 * stored time is recent (another process wrote it).
 */
export class TokenUsage {
  private readonly written = new Map<string, number>();

  constructor(private readonly write: (secretHash: string, at: number, notBefore: number) => Promise<void>) {}

  /** Notes a use of the token at `now`; writes it when the last write is a minute old or more. */
  note(token: StoredToken, now: number): void {
    const last = this.written.get(token.secretHash) ?? token.lastUsedAt ?? Number.NEGATIVE_INFINITY;
    if (now - last < LAST_USED_RESOLUTION_MICROS) return;
    if (this.written.size >= USAGE_MEMORY) this.written.clear();
    this.written.set(token.secretHash, now);
    // A failed write (the database away for a moment) loses one last-used time, never the request.
    this.write(token.secretHash, now, now - LAST_USED_RESOLUTION_MICROS).catch(() => this.written.delete(token.secretHash));
  }
}
