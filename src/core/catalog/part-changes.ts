/**
 * Whether an item of POST /1/catalog/parts would change a stored part (decisions §5 merge rules),
 * so that `parts import --sync` sends only the rows that change something (docs/cli.md, "Sync").
 */
import type { LangMap, PartInput } from '../../api/schemas.js';

/** A stored part as list/select return it: its names and attribute values. */
export interface PartValues {
  name?: LangMap | undefined;
  attributes?: readonly { attribute_id: string; values: readonly { organization: string; value: LangMap }[] }[] | undefined;
}

function sameLangMap(a: LangMap, b: LangMap): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/**
 * True when upserting `input` would change `stored` (undefined: the part does not exist). Follows
 * decidePartUpsert's merge: a given `name` replaces the names; each given attribute replaces that
 * attribute's values (an empty list removes it), whatever their order; attributes not given stay.
 * A repeated attribute or organization counts as a change, so the service reports it.
 */
export function partUpsertChanges(input: PartInput, stored: PartValues | undefined): boolean {
  if (stored === undefined) return true;
  if (input.name !== undefined && !sameLangMap(input.name, stored.name ?? {})) return true;
  const current = new Map((stored.attributes ?? []).map((a) => [a.attribute_id, a.values]));
  const seen = new Set<string>();
  for (const entry of input.attributes ?? []) {
    if (seen.has(entry.attribute_id)) return true;
    seen.add(entry.attribute_id);
    const values = current.get(entry.attribute_id) ?? [];
    if (entry.values.length !== values.length) return true;
    const byOrg = new Map(values.map((v) => [v.organization, v.value]));
    if (byOrg.size !== values.length) return true;
    for (const value of entry.values) {
      const organization = value.organization ?? '';
      const storedValue = byOrg.get(organization);
      if (storedValue === undefined || !sameLangMap(value.value, storedValue)) return true;
      byOrg.delete(organization);
    }
  }
  return false;
}
