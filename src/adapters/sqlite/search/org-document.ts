/**
 * The per-organization search document (core/search/engine/org-document.ts, shared with the
 * PostgreSQL index) and where SQLite keeps it: the FTS5 columns of `search_org_docs`.
 */
import type { Visibility } from '../../../api/schemas.js';

export { buildOrgDocument, type IndexablePart, type OrgDocument } from '../../../core/search/engine/org-document.js';

/** Per-organization value columns of `search_org_docs`, by visibility. */
export const ORG_VALUE_COLUMNS: Readonly<Record<Visibility, 'o0' | 'o1' | 'o2' | 'o3'>> = {
  factoryWorker: 'o0',
  csa: 'o1',
  admin: 'o2',
  superAdmin: 'o3',
};
