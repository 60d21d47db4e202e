/**
 * Organizations (decisions §5): a tree; the value an organization sees for a per-organization
 * attribute is its own, else (org_visibility sub) the nearest ancestor's, else the default_value.
 */
import type { Attribute, LangMap, Organization, PartValue } from '../../api/schemas.js';
import type { Decision } from '../model.js';

/** Decides one item of POST /1/catalog/organizations: the parent must exist and no cycle may form. */
export function decideOrganizationUpsert(item: Organization, existing: Organization | undefined, all: ReadonlyMap<string, Organization>): Decision<Organization> {
  const parent = item.parent_id ?? null;
  if (parent !== null) {
    if (parent === item.org_id) return { kind: 'error', messages: ['parent_id: an organization cannot be its own parent'] };
    if (!all.has(parent)) return { kind: 'error', messages: [`parent_id: organization '${parent}' does not exist`] };
    for (let cursor: string | null = parent, steps = 0; cursor !== null && steps <= all.size; steps++) {
      if (cursor === item.org_id) return { kind: 'error', messages: [`parent_id: '${parent}' is a sub-organization of '${item.org_id}'; that would make a cycle`] };
      cursor = all.get(cursor)?.parent_id ?? null;
    }
  }
  return { kind: 'write', value: { org_id: item.org_id, parent_id: parent }, created: !existing };
}

/** The chain from an organization up to its root: [org, parent, grandparent, ...]. */
export function ancestry(orgId: string, all: ReadonlyMap<string, Organization>): string[] {
  const chain: string[] = [];
  for (let cursor: string | null = orgId; cursor !== null && chain.length <= all.size; ) {
    chain.push(cursor);
    cursor = all.get(cursor)?.parent_id ?? null;
  }
  return chain;
}

/**
 * The one value organization `orgChain[0]` sees for a per-organization attribute, or undefined.
 * `orgChain` comes from {@link ancestry}; `values` are the part's stored values for the attribute.
 */
export function resolveOrgValue(attribute: Attribute, values: readonly PartValue[], orgChain: readonly string[]): PartValue | undefined {
  const byOrg = new Map(values.map((v) => [v.organization, v.value] as [string, LangMap]));
  const own = orgChain[0] !== undefined ? byOrg.get(orgChain[0]) : undefined;
  if (own) return { organization: orgChain[0] ?? '', value: own, source: 'own' };
  if (attribute.org_visibility === 'sub') {
    for (const ancestor of orgChain.slice(1)) {
      const inherited = byOrg.get(ancestor);
      if (inherited) return { organization: ancestor, value: inherited, source: 'inherited' };
    }
  }
  if (attribute.default_value) return { organization: '', value: attribute.default_value, source: 'default' };
  return undefined;
}
