import { describe, expect, it } from 'vitest';
import type { Attribute, Principal } from '../../../api/schemas.js';

import { buildSearchDocument, filterToken } from './document.js';
import { evaluatePart } from '../../../core/search/match.js';
import { planTextSearch, textColumns, type PlanInput } from './plan.js';
import { visibleLevels } from '../../../core/permissions.js';

/** The plan for a query whose visible value fields follow from the caller's roles, as the search service computes them. */
const planFor = (input: Omit<PlanInput, 'visibleValues'>) => planTextSearch({ ...input, visibleValues: visibleLevels(input.ctx.principal) });
import type { PartViewContext, StoredPart, ExpandedWord } from '../../../core/model.js';

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
/** The clause of one plain word over the id and `columns`. */
const clause = (t: string, columns: string) => `({pid} : ("\uE001${t}")) OR ({${columns}} : ("${t}"))`;
const part: StoredPart = {
  part_id: 'pci:8086:1539', serviceId: 's', name: { en: 'Gigabit controller' }, createdAt: 1, modifiedAt: 1,
  attributes: [
    { attribute_id: 'vendor', values: [{ organization: '', value: { en: 'Intel' } }] },
    { attribute_id: 'cost', values: [{ organization: '', value: { en: 'Secret' } }] },
    { attribute_id: 'price', values: [{ organization: 'acme', value: { en: '10 USD' } }] },
  ],
};

describe('search document', () => {
  it('puts id, names, values by visibility, filter tokens and the holder marker in their columns', () => {
    const doc = buildSearchDocument(part, attributes);
    expect(doc.pid).toBe('\uE001pci \uE0018086 \uE0011539');
    expect(doc.names).toBe('Gigabit controller');
    expect(doc.values).toEqual(['Intel', '', 'Secret', '']);
    expect(doc.flt).toBe(filterToken('vendor', 'intel'));
    expect(doc.meta).toBe('holder');
    expect(doc.orgValues).toEqual(['10 USD', '', '', '']);
    expect(doc.terms.sort()).toEqual(['controller', 'gigabit', 'intel', 'secret', 'usd']);
    expect(filterToken('vendor', 'INTEL')).toBe(filterToken('vendor', 'intel'));
    expect(filterToken('vendor', 'intel')).toMatch(/^f[0-9a-f]{24}$/);
  });

  it('has one row per distinct view: values and filter tokens of a tier only in the rows of that tier and above', () => {
    const doc = buildSearchDocument(part, attributes);
    // cost (admin, tier 2) starts a new view; csa (tier 1) adds nothing.
    expect(doc.rows).toEqual([
      { lo: 0, hi: 1, values: ['Intel', '', '', ''], flt: filterToken('vendor', 'intel') },
      { lo: 2, hi: 3, values: ['Intel', '', 'Secret', ''], flt: filterToken('vendor', 'intel') },
    ]);
    const plain = buildSearchDocument({ part_id: 'p', name: { en: 'Bolt' }, attributes: [] }, attributes);
    expect(plain.rows).toEqual([{ lo: 0, hi: 3, values: ['', '', '', ''], flt: '' }]);
    // The marker is one token either way, so it never changes a row's length.
    expect(plain.meta).toBe('plain');
  });
});

describe('planTextSearch', () => {
  it('answers from the index alone when no word touches per-organization values', () => {
    const plan = planFor({ words: [word('gigabit')], inOrgText: [false], filters: [], ctx: ctx('acme') });
    expect(plan).toEqual({ kind: 'exact', query: { match: `(${clause('gigabit', 'names v0')})`, names: `(${clause('gigabit', 'names')})` } });
    expect(planFor({ words: [], inOrgText: [], filters: [], ctx: ctx() })).toEqual({ kind: 'everything' });
  });
  it('lets catalog roles match every value column', () => {
    expect(textColumns(visibleLevels({ name: 'a', roles: ['catalogAdmin'], organization: null }))).toEqual(['names', 'v0', 'v1', 'v2', 'v3']);
    expect(textColumns(visibleLevels({ name: 'c', roles: ['csa'], organization: null }))).toEqual(['names', 'v0', 'v1']);
  });
  it('splits holders from non-holders when a word is in a default or in per-organization values', () => {
    const plan = planFor({ words: [word('gigabit'), word('list')], inOrgText: [false, false], filters: [], ctx: ctx('acme') });
    expect(plan.kind).toBe('split');
    if (plan.kind !== 'split') return;
    // Non-holders see the default: "list" is satisfied, only "gigabit" must match.
    expect(plan.nonHolders).toEqual({
      match: `((${clause('gigabit', 'names v0')})) NOT ({meta} : ("holder"))`,
      names: `((${clause('gigabit', 'names')}) AND (${clause('list', 'names')})) NOT ({meta} : ("holder"))`,
    });
    expect(plan.holders).toBe(`(${clause('gigabit', 'names v0')}) AND ({meta} : ("holder"))`);
    const raw = planFor({ words: [word('usd')], inOrgText: [true], filters: [], ctx: ctx() });
    expect(raw).toMatchObject({ kind: 'split', nonHolders: { match: `((${clause('usd', 'names v0')})) NOT ({meta} : ("holder"))` }, holders: '({meta} : ("holder"))' });
  });
  it('filters: nothing for an invisible attribute; per-organization ones decide non-holders by the default', () => {
    const cost = { attribute: { ...attribute('cost'), filterable: true }, values: ['x'] };
    expect(planFor({ words: [], inOrgText: [], filters: [cost], ctx: ctx() })).toEqual({ kind: 'nothing' });
    const price = (v: string) => ({ attribute: attribute('price'), values: [v] });
    expect(planFor({ words: [], inOrgText: [], filters: [price('LIST PRICE')], ctx: ctx('acme') })).toMatchObject({ kind: 'split', nonHolders: 'all' });
    expect(planFor({ words: [], inOrgText: [], filters: [price('10 usd')], ctx: ctx('acme') })).toMatchObject({ kind: 'split', nonHolders: 'none' });
  });
});

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
