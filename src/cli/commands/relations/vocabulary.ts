/**
 * The relation vocabulary for help texts, without loading the API schemas (zod) at start-up. A test
 * (test/cli/usage-errors.test.ts) checks these equal RELATION_TYPES and RELATION_SOURCES of
 * src/api/schemas.ts.
 */
export const RELATION_TYPE_NAMES = ['duplicate', 'substitute', 'equivalent', 'not_related'] as const;
export const RELATION_SOURCE_NAMES = ['confirmed_by_user', 'ingested'] as const;
