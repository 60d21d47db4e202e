/**
 * Attribute rules (spec 2.1, 4.1; decisions §3) as pure decisions over the stored state.
 */
import type { Attribute, AttributeInput, Principal } from '../../api/schemas.js';
import { canSeeVisibility } from '../permissions.js';
import type { Decision } from '../model.js';

/** Create defaults (decisions §3). */
const DEFAULTS = {
  searchable: false,
  filterable: false,
  visibility: 'factoryWorker',
  org_visibility: 'parent',
  labels: [],
  per_org_values: false,
} as const satisfies Partial<Attribute>;

/**
 * Decides one item of POST /1/catalog/attributes: create (needs `type` and a non-empty `name`,
 * defaults applied) or merge update (given fields replace, absent stay; `null` clears
 * `default_value` / `display_order`). Collects every rule violation of the item.
 */
export function decideAttributeUpsert(input: AttributeInput, existing: Attribute | undefined, referencedBy: number): Decision<Attribute> {
  const messages: string[] = [];
  if (!existing) {
    if (input.type === undefined) messages.push('type: required when creating an attribute (one of text, enum)');
    if (input.name === undefined || Object.keys(input.name).length === 0) {
      messages.push('name: required when creating an attribute (at least one language, e.g. {"en": "Color"})');
    }
  }
  if (input.name !== undefined && Object.keys(input.name).length === 0) {
    if (existing) messages.push('name: must name at least one language');
  }
  if (existing && input.type !== undefined && input.type !== existing.type && referencedBy > 0) {
    messages.push(`type: cannot change from ${existing.type} to ${input.type} while ${referencedBy} part(s) have values for this attribute`);
  }
  const merged: Attribute = {
    ...DEFAULTS,
    ...existing,
    attribute_id: input.attribute_id,
    type: input.type ?? existing?.type ?? 'text',
    name: input.name ?? existing?.name ?? {},
    labels: [...(input.labels ?? existing?.labels ?? DEFAULTS.labels)],
  };
  for (const field of ['searchable', 'filterable', 'visibility', 'org_visibility', 'per_org_values'] as const) {
    if (input[field] !== undefined) (merged as unknown as Record<string, unknown>)[field] = input[field];
  }
  if (input.default_value === null) delete merged.default_value;
  else if (input.default_value !== undefined) merged.default_value = input.default_value;
  if (input.display_order === null) delete merged.display_order;
  else if (input.display_order !== undefined) merged.display_order = input.display_order;
  if (merged.default_value !== undefined && !merged.per_org_values) {
    messages.push('default_value: only applicable when per_org_values is true');
  }
  if (new Set(merged.labels).size !== merged.labels.length) messages.push('labels: must not repeat a label');
  if (messages.length > 0) return { kind: 'error', messages };
  return { kind: 'write', value: canonicalAttribute(merged), created: !existing };
}

/** Decides one id of DELETE /1/catalog/attributes: unknown ids and referenced attributes are item errors. */
export function decideAttributeDelete(id: string, existing: Attribute | undefined, referencedBy: number): Decision<null> {
  if (!existing) return { kind: 'error', messages: [`attribute '${id}' does not exist`] };
  if (referencedBy > 0) {
    return {
      kind: 'error',
      messages: [`attribute '${id}' is still referenced by ${referencedBy} part(s); remove their values for it first`],
    };
  }
  return { kind: 'write', value: null, created: false };
}

/**
 * The attribute as `principal` may read it: its `default_value` is a value of the attribute (the
 * value of every organization that has none of its own), so a principal that may not see the
 * attribute's values (its visibility, decisions §3) does not see the default either — as a part
 * read hides the values. Every other field describes the attribute and stays.
 */
export function withVisibleDefault<A extends Attribute>(principal: Principal, attribute: A): A {
  if (attribute.default_value === undefined || canSeeVisibility(principal, attribute.visibility)) return attribute;
  const { default_value: _hidden, ...rest } = attribute;
  return rest as A;
}

/** The attribute with its fields in the order of spec 2.1 (stable JSON for people and diffs). */
export function canonicalAttribute(a: Attribute): Attribute {
  const out: Attribute = {
    attribute_id: a.attribute_id,
    type: a.type,
    name: a.name,
    searchable: a.searchable,
    filterable: a.filterable,
    visibility: a.visibility,
    org_visibility: a.org_visibility,
    labels: a.labels,
    per_org_values: a.per_org_values,
  };
  if (a.default_value !== undefined) out.default_value = a.default_value;
  if (a.display_order !== undefined) out.display_order = a.display_order;
  return out;
}
