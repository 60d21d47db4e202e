/**
 * Part rules (decisions §5): create/merge decisions and the view a caller gets (values filtered by
 * attribute visibility, per-organization values resolved for the caller's organization).
 */
import type { Attribute, Part, PartAttribute, PartInput, PartValue } from '../../api/schemas.js';
import { ancestry, resolveOrgValue } from './organizations.js';
import { canSeeVisibility } from '../permissions.js';

import { formatMicros } from '../time.js';
import type { Decision, PartViewContext, StoredPart } from '../model.js';

/**
 * Decides one item of POST /1/catalog/parts. Create needs a non-empty `name`. Update: a given
 * `name` replaces the names; each given attribute replaces that attribute's values (an empty
 * `values` list removes it); attributes not given stay. Every value must reference an existing
 * attribute; per_org_values attributes need a non-empty organization, others need "".
 */
export function decidePartUpsert(
  input: PartInput,
  existing: StoredPart | undefined,
  attributes: ReadonlyMap<string, Attribute>,
  now: number,
  newServiceId: () => string,
): Decision<StoredPart> {
  const messages: string[] = [];
  if (!existing && (input.name === undefined || Object.keys(input.name).length === 0)) {
    messages.push('name: required when creating a part (at least one language, e.g. {"en": "Ethernet controller"})');
  } else if (input.name !== undefined && Object.keys(input.name).length === 0) {
    messages.push('name: must name at least one language');
  }
  const merged = new Map<string, PartAttribute>((existing?.attributes ?? []).map((a) => [a.attribute_id, a]));
  const seen = new Set<string>();
  (input.attributes ?? []).forEach((entry, i) => {
    const where = `attributes[${i}]`;
    if (seen.has(entry.attribute_id)) messages.push(`${where}.attribute_id: '${entry.attribute_id}' appears more than once`);
    seen.add(entry.attribute_id);
    const attribute = attributes.get(entry.attribute_id);
    if (!attribute) {
      messages.push(`${where}.attribute_id: attribute '${entry.attribute_id}' does not exist`);
      return;
    }
    const orgs = new Set<string>();
    entry.values.forEach((value, j) => {
      const at = `${where}.values[${j}]`;
      if (orgs.has(value.organization)) messages.push(`${at}.organization: '${value.organization}' has more than one value`);
      orgs.add(value.organization);
      if (attribute.per_org_values && value.organization === '') {
        messages.push(`${at}.organization: attribute '${attribute.attribute_id}' has per_org_values, so each value must name its organization`);
      }
      if (!attribute.per_org_values && value.organization !== '') {
        messages.push(`${at}.organization: attribute '${attribute.attribute_id}' is not per-organization; leave organization empty`);
      }
      if (Object.keys(value.value).length === 0) messages.push(`${at}.value: must name at least one language`);
    });
    if (entry.values.length === 0) merged.delete(entry.attribute_id);
    else merged.set(entry.attribute_id, { attribute_id: entry.attribute_id, values: entry.values.map((v) => ({ organization: v.organization, value: v.value })) });
  });
  if (messages.length > 0) return { kind: 'error', messages };
  return {
    kind: 'write',
    created: !existing,
    value: {
      part_id: input.part_id,
      serviceId: existing?.serviceId ?? newServiceId(),
      name: input.name ?? existing?.name ?? {},
      // Sorted by attribute_id: the same values give the same stored part whatever the input order.
      attributes: [...merged.values()].sort((x, y) => (x.attribute_id < y.attribute_id ? -1 : x.attribute_id > y.attribute_id ? 1 : 0)),
      createdAt: existing?.createdAt ?? now,
      modifiedAt: now,
    },
  };
}

/** Decides one id of DELETE /1/catalog/parts: unknown ids and parts with images are item errors. */
export function decidePartDelete(id: string, existing: StoredPart | undefined, dependents: { images: number }): Decision<null> {
  if (!existing) return { kind: 'error', messages: [`part '${id}' does not exist`] };
  if (dependents.images > 0) {
    return { kind: 'error', messages: [`part '${id}' still has ${dependents.images} image(s); delete them first (CLI: catalog parts delete --with-images)`] };
  }
  return { kind: 'write', value: null, created: false };
}

/**
 * The part as the caller may see it: attribute values whose visibility the caller's roles do not
 * allow are left out; with an organization, each per_org_values attribute shows the single value
 * that organization sees (own, inherited, default) with its `source`.
 */
export function viewPart(part: StoredPart, ctx: PartViewContext): Part {
  const chain = ctx.organization !== undefined ? ancestry(ctx.organization, ctx.organizations) : undefined;
  const attributes: PartAttribute[] = [];
  for (const entry of part.attributes) {
    const attribute = ctx.attributes.get(entry.attribute_id);
    if (!attribute || !canSeeVisibility(ctx.principal, attribute.visibility)) continue;
    if (!attribute.per_org_values) {
      attributes.push({ attribute_id: entry.attribute_id, values: entry.values.map((v) => (chain ? { ...v, source: 'global' as const } : v)) });
      continue;
    }
    if (!chain) {
      attributes.push(entry);
      continue;
    }
    const resolved = resolveOrgValue(attribute, entry.values, chain);
    if (resolved) attributes.push({ attribute_id: entry.attribute_id, values: [resolved] });
  }
  // Per-org attributes with no stored value at all still show their default to an organization.
  if (chain) {
    const present = new Set(part.attributes.map((a) => a.attribute_id));
    for (const attribute of ctx.attributes.values()) {
      if (!present.has(attribute.attribute_id) && attribute.per_org_values && attribute.default_value && canSeeVisibility(ctx.principal, attribute.visibility)) {
        const value: PartValue = { organization: '', value: attribute.default_value, source: 'default' };
        attributes.push({ attribute_id: attribute.attribute_id, values: [value] });
      }
    }
  }
  return {
    part_id: part.part_id,
    serviceId: part.serviceId,
    name: part.name,
    attributes,
    createdAt: formatMicros(part.createdAt),
    modifiedAt: formatMicros(part.modifiedAt),
  };
}
