/**
 * Access tokens (decisions §2): random secrets printed once and stored only as a SHA-256 hash.
 */
import { hash } from 'node:crypto';
import { errors } from '../../api/errors.js';
import { IdSchema, ROLES, type Principal, type Role, type TokenInfo } from '../../api/schemas.js';

import { formatMicros } from '../time.js';
import type { StoredToken } from '../model.js';

/** Lowercase hex SHA-256 of a token secret. */
export function hashSecret(secret: string): string {
  // One-shot: every request hashes its token, and a Hash object cost ~3x as much (issue 12).
  return hash('sha256', secret, 'hex');
}

/** Extracts the token from an `Authorization: Bearer <token>` header; throws 401 when absent or malformed. */
export function bearerToken(header: string | undefined): string {
  if (!header) throw errors.unauthorized('missing Authorization header: send "Authorization: Bearer <token>"');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw errors.unauthorized('malformed Authorization header: expected "Bearer <token>"');
  return match[1];
}

/** Validates `tokens create` input; throws 400 naming every problem. */
export function validateNewToken(name: string, roles: readonly string[], organization: string | undefined): { roles: Role[] } {
  const problems: string[] = [];
  if (!IdSchema.safeParse(name).success) problems.push('name: 1 to 256 characters, no control characters or "/"');
  if (roles.length === 0) problems.push(`role: at least one of ${ROLES.join(', ')}`);
  const bad = roles.filter((r) => !(ROLES as readonly string[]).includes(r));
  if (bad.length > 0) problems.push(`role: unknown role(s) ${bad.join(', ')}; allowed: ${ROLES.join(', ')}`);
  if (organization !== undefined && !IdSchema.safeParse(organization).success) problems.push('org: 1 to 256 characters, no control characters or "/"');
  if (problems.length > 0) throw errors.badRequest(problems.join('; '));
  return { roles: [...new Set(roles)] as Role[] };
}

/** The public description of a stored token (never its hash). */
export function tokenInfo(token: StoredToken): TokenInfo {
  return { name: token.name, roles: token.roles, organization: token.organization, createdAt: formatMicros(token.createdAt) };
}

/** A principal as a server builds it, every field present. */
export function serverPrincipal(fields: Required<Pick<Principal, 'name' | 'roles' | 'organization' | 'sessionOwner'>>): Principal {
  return { name: fields.name, roles: fields.roles, organization: fields.organization, sessionOwner: fields.sessionOwner };
}

/** The principal a token acts as. */
export function principalOf(token: StoredToken): Principal {
  // Sessions are owned by the token itself, not its name (issue 11): 128 bits of its secret's hash.
  return serverPrincipal({ name: token.name, roles: token.roles, organization: token.organization, sessionOwner: `token:${token.secretHash.slice(0, 32)}` });
}
