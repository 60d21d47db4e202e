import { describe, expect, it } from 'vitest';
import type { Attribute, Principal } from '../../api/schemas.js';

import { evaluatePart, wordsInDefaults } from './match.js';
import type { PartViewContext, StoredPart, ExpandedWord } from '../model.js';

const base = { type: 'text' as const, name: { en: 'x' }, filterable: false, org_visibility: 'parent' as const, labels: [], per_org_values: false };
const attrs: Attribute[] = [
  { ...base, attribute_id: 'vendor', searchable: true, filterable: true, visibility: 'factoryWorker' },
  { ...base, attribute_id: 'cost', searchable: true, visibility: 'admin' },
  { ...base, attribute_id: 'price', searchable: true, filterable: true, visibility: 'factoryWorker', per_org_values: true, org_visibility: 'sub', default_value: { en: 'list price' } },
];
const attributes = new Map(attrs.map((a) => [a.attribute_id, a]));
function attribute(id: string): Attribute {
  const found = attributes.get(id);
  if (!found) throw new Error(`no attribute ${id}`);
  return found;
}
const worker: Principal = { name: 'w', roles: ['factoryWorker'], organization: null };
const ctx = (organization?: string, principal = worker): PartViewContext => ({
  principal,
  attributes,
  organizations: new Map([['acme', { org_id: 'acme', parent_id: null }], ['eu', { org_id: 'eu', parent_id: 'acme' }]]),
  organization,
});
const word = (t: string): ExpandedWord => ({ word: { tokens: [t], prefix: false, typo: false }, alternatives: [{ tokens: [t], prefix: false }], idAlternatives: [{ tokens: [t], prefix: false }] });
const part: StoredPart = {
  part_id: 'pci:8086:1539', serviceId: 's', name: { en: 'Gigabit controller' }, createdAt: 1, modifiedAt: 1,
  attributes: [
    { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel' } }] },
    { attribute_id: 'cost', values: [{ organization: '', value: { en: 'Secret' } }] },
    { attribute_id: 'price', values: [{ organization: 'acme', value: { en: '10 USD' } }] },
  ],
};

describe('evaluatePart', () => {
  it('uses the view of the organization: own, inherited, default', () => {
    const run = (text: string, organization?: string) => evaluatePart(part, [word(text)], [], ctx(organization)).matches;
    expect(run('usd', 'acme')).toBe(true);
    expect(run('usd', 'eu')).toBe(true);
    expect(run('usd', 'other')).toBe(false);
    expect(run('list', 'other')).toBe(true);
    expect(run('list', 'acme')).toBe(false);
    expect(run('secret', 'acme')).toBe(false); // visibility admin
    expect(evaluatePart(part, [word('gigabit'), word('8086')], [], ctx()).namesTier).toBe(true);
    expect(evaluatePart(part, [word('gigabit'), word('intel')], [], ctx())).toEqual({ matches: true, namesTier: false });
  });
  it('filters compare case-insensitively against the value the organization sees', () => {
    const price = { attribute: attribute('price'), values: ['10 usd'] };
    expect(evaluatePart(part, [], [price], ctx('eu')).matches).toBe(true);
    expect(evaluatePart(part, [], [{ ...price, values: ['list price'] }], ctx('eu')).matches).toBe(false);
  });
});

describe('wordsInDefaults', () => {
  it('holds for a word of a visible per-organization default, in an organization view only', () => {
    expect(wordsInDefaults([word('list'), word('usd')], ctx('acme'))).toEqual([true, false]);
    expect(wordsInDefaults([word('list')], ctx())).toEqual([false]);
  });
});
