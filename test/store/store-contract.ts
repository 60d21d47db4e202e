/**
 * THE store contract suite (docs/architecture.md, "Tests"): one suite, run against every store
 * adapter (SQLite in memory and on disk today; PostgreSQL adds a factory and runs the same suite).
 * It speaks only the ports of src/core/ports.ts, so an adapter passes it or it does not implement
 * the port: every method, all-or-nothing transactions, the arguments the `decide` callbacks get,
 * the search index kept consistent with every write (and with every rolled-back one), search
 * sessions and their expiry, the reference-feature fingerprint, and the BlobStore's durability
 * rules.
 */
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Attribute, Principal, SynonymSet } from '../../src/api/schemas.js';
import type { Decision, ImageWrite, StoredImage, StoredPart, StoredRelation, StoredWebhook, SearchOrder, TextSearchQuery } from '../../src/core/model.js';
import type { BlobStore, CatalogStores } from '../../src/core/ports.js';
import { visibleLevels } from '../../src/core/permissions.js';
import { parseQueryText } from '../../src/core/search/query.js';
import { applySynonyms, compileSynonyms } from '../../src/core/search/synonyms.js';
import { referenceRanking } from '../../src/core/search/engine/reference.js';

/** What a factory opens for one test: a fresh, empty catalog's stores and a blob store. */
export interface StoreUnderTest {
  stores: CatalogStores;
  blobs: BlobStore;
  /** Re-opens the same catalog (for durability checks); undefined when the store is in memory. */
  reopen?: () => Promise<{ stores: CatalogStores; blobs: BlobStore }>;
  /** Removes what the test left behind (after `stores.close()`). */
  cleanup(): Promise<void>;
}

const ADMIN: Principal = Object.freeze({ name: 'contract-admin', roles: ['catalogAdmin', 'superAdmin'], organization: null }) as Principal;
const WORKER: Principal = Object.freeze({ name: 'contract-worker', roles: ['factoryWorker'], organization: null }) as Principal;

function attribute(id: string, extra: Partial<Attribute> = {}): Attribute {
  return {
    attribute_id: id, type: 'text', name: { en: id }, searchable: true, filterable: false, visibility: 'factoryWorker',
    per_org_values: false, default_value: null, display_order: null, serviceId: `svc-${id}`, createdAt: 1, modifiedAt: 1,
    ...extra,
  } as Attribute;
}

function part(id: string, name: string, values: Record<string, string> = {}, at = 1): StoredPart {
  return {
    part_id: id, serviceId: `svc-${id}`, name: { en: name }, createdAt: at, modifiedAt: at,
    attributes: Object.entries(values).map(([attribute_id, value]) => ({ attribute_id, values: [{ organization: '', value: { en: value } }] })),
  };
}

const write = <T>(value: T, created = true): Decision<T> => ({ kind: 'write', value, created });

/** Registers the contract suite for one adapter. `open` is called before every test. */
export function describeStoreContract(name: string, open: () => Promise<StoreUnderTest>): void {
  describe(`store contract: ${name}`, () => {
    let under: StoreUnderTest;
    let s: CatalogStores;
    beforeEach(async () => {
      under = await open();
      s = under.stores;
    });
    afterEach(async () => {
      await s.close();
      await under.cleanup();
    });

    async function putAttributes(...list: Attribute[]): Promise<void> {
      await s.catalog.upsertAttributes(list, (item) => write(item as Attribute));
    }
    async function putParts(...list: StoredPart[]): Promise<Decision<StoredPart>[]> {
      return s.catalog.upsertParts(list, (item) => write(item as StoredPart));
    }
    function query(text: string, principal: Principal = ADMIN, filters: TextSearchQuery['filters'] = []): TextSearchQuery {
      return { words: parseQueryText(text), visibleValues: visibleLevels(principal), filters, ctx: { principal, attributes: new Map(), organizations: new Map(), organization: undefined } };
    }
    async function search(text: string, principal: Principal = ADMIN, attributes: Attribute[] = []): Promise<string[]> {
      const q = query(text, principal);
      q.ctx = { ...q.ctx, attributes: new Map(attributes.map((a) => [a.attribute_id, a])) };
      const hits = await s.searchIndex.searchText(q, 100);
      return (await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId);
    }

    describe('CatalogStore: attributes', () => {
      it('upserts, reads by id, pages by id and lists all', async () => {
        await putAttributes(attribute('b'), attribute('a'), attribute('c'));
        expect((await s.catalog.getAttributes(['c', 'zz', 'a'])).map((a) => a.attribute_id).sort()).toEqual(['a', 'c']);
        expect((await s.catalog.listAttributes({ after: undefined, limit: 2 })).map((a) => a.attribute_id).slice(0, 2)).toEqual(['a', 'b']);
        expect((await s.catalog.listAttributes({ after: 'b', limit: 10 })).map((a) => a.attribute_id)).toEqual(['c']);
        expect((await s.catalog.allAttributes()).map((a) => a.attribute_id).sort()).toEqual(['a', 'b', 'c']);
      });

      it('gives decide the stored version and how many parts reference it', async () => {
        await putAttributes(attribute('colour'));
        await putParts(part('p1', 'One', { colour: 'red' }), part('p2', 'Two', { colour: 'blue' }));
        const seen: [Attribute | undefined, number][] = [];
        await s.catalog.upsertAttributes([{ attribute_id: 'colour' }, { attribute_id: 'fresh' }], (item, existing, referencedBy) => {
          seen.push([existing, referencedBy]);
          return { kind: 'skip' };
        });
        expect(seen[0]?.[0]?.attribute_id).toBe('colour');
        expect(seen[0]?.[1]).toBe(2);
        expect(seen[1]).toEqual([undefined, 0]);
      });

      it('deletes unless decide refuses; refused items stay', async () => {
        await putAttributes(attribute('a'), attribute('b'));
        const decisions = await s.catalog.deleteAttributes(['a', 'b', 'nope'], (id, existing) =>
          id === 'b' ? { kind: 'error', messages: ['kept'] } : existing ? write(null, false) : { kind: 'error', messages: ['unknown'] },
        );
        expect(decisions.map((d) => d.kind)).toEqual(['write', 'error', 'error']);
        expect((await s.catalog.allAttributes()).map((a) => a.attribute_id)).toEqual(['b']);
      });

      it('is all or nothing: a decide that throws mid-batch writes nothing', async () => {
        await expect(
          s.catalog.upsertAttributes([attribute('x'), attribute('y')], (item) => {
            if (item.attribute_id === 'y') throw new Error('boom');
            return write(item as Attribute);
          }),
        ).rejects.toThrow('boom');
        expect(await s.catalog.allAttributes()).toEqual([]);
      });
    });

    describe('CatalogStore: parts', () => {
      it('upserts with the stored part and every attribute in decide; reads, pages, deletes', async () => {
        await putAttributes(attribute('colour'));
        await putParts(part('p2', 'Two'), part('p1', 'One', { colour: 'red' }));
        const seen: [string | undefined, string[]][] = [];
        await s.catalog.upsertParts([{ part_id: 'p1' }, { part_id: 'p9' }], (item, existing, attributes) => {
          seen.push([existing?.name.en, [...attributes.keys()]]);
          return { kind: 'skip' };
        });
        expect(seen).toEqual([['One', ['colour']], [undefined, ['colour']]]);
        const got = await s.catalog.getParts(['p1']);
        expect(got[0]?.attributes).toEqual([{ attribute_id: 'colour', values: [{ organization: '', value: { en: 'red' } }] }]);
        expect((await s.catalog.listParts({ after: undefined, limit: 10 })).map((p) => p.part_id)).toEqual(['p1', 'p2']);
        expect((await s.catalog.listParts({ after: 'p1', limit: 10 })).map((p) => p.part_id)).toEqual(['p2']);
        const deleted = await s.catalog.deleteParts(['p2'], (_id, existing, dependents) => (existing && dependents.images === 0 ? write(null, false) : { kind: 'error', messages: ['no'] }));
        expect(deleted[0]?.kind).toBe('write');
        expect((await s.catalog.getParts(['p1', 'p2'])).map((p) => p.part_id)).toEqual(['p1']);
      });

      it('lists the part_ids alone, paged in id order', async () => {
        await putParts(part('p2', 'Two'), part('p1', 'One'), part('p3', 'Three'));
        expect(await s.catalog.listPartIds({ after: undefined, limit: 2 })).toEqual(['p1', 'p2']);
        expect(await s.catalog.listPartIds({ after: 'p2', limit: 10 })).toEqual(['p3']);
      });

      it('keeps ids exactly, unicode and spaces included, and orders pages by id', async () => {
        const ids = [' lead', 'trail ', 'Ünïcode', 'a/b', 'emoji-🔩', 'z'];
        await putParts(...ids.map((id) => part(id, `name ${id}`)));
        const listed = (await s.catalog.listParts({ after: undefined, limit: 100 })).map((p) => p.part_id);
        expect(new Set(listed)).toEqual(new Set(ids));
        expect((await s.catalog.getParts([' lead'])).map((p) => p.part_id)).toEqual([' lead']);
      });

      it('counts images as dependents of a part', async () => {
        await putParts(part('p1', 'One'));
        await s.images.upsertImages([{ image_id: 'i1', part_id: 'p1' }], (item, _existing, partExists) => (partExists ? write({ image: image('i1', 'p1', 'a'.repeat(64)), features: null }) : { kind: 'error', messages: ['no part'] }));
        const seen: number[] = [];
        await s.catalog.deleteParts(['p1'], (_id, _existing, dependents) => {
          seen.push(dependents.images);
          return { kind: 'error', messages: ['has images'] };
        });
        expect(seen).toEqual([1]);
      });
    });

    describe('CatalogStore: organizations, tokens, settings', () => {
      it('upserts organizations with the whole tree in decide, ensures roots, lists them', async () => {
        await s.catalog.ensureOrganizations(['acme']);
        const seen: string[][] = [];
        await s.catalog.upsertOrganizations([{ org_id: 'acme-eu', parent_id: 'acme' }], (item, _existing, all) => {
          seen.push([...all.keys()]);
          return write(item);
        });
        expect(seen).toEqual([['acme']]);
        expect((await s.catalog.listOrganizations({ after: undefined, limit: 10 })).map((o) => [o.org_id, o.parent_id])).toEqual([['acme', null], ['acme-eu', 'acme']]);
        expect((await s.catalog.allOrganizations()).get('acme-eu')?.parent_id).toBe('acme');
      });

      it('stores tokens by hash only, finds, lists, counts and revokes them', async () => {
        await s.catalog.createToken({ name: 'ci', secretHash: 'h1', roles: ['catalogAdmin'], organization: null, scopes: null, createdAt: 5, expiresAt: null, lastUsedAt: null });
        expect((await s.catalog.findTokenByHash('h1'))?.name).toBe('ci');
        expect(await s.catalog.findTokenByHash('h2')).toBeUndefined();
        expect(await s.catalog.countTokens()).toBe(1);
        expect((await s.catalog.listTokens()).map((t) => t.name)).toEqual(['ci']);
        expect(await s.catalog.revokeToken('ci')).toBe(true);
        expect(await s.catalog.revokeToken('ci')).toBe(false);
        expect(await s.catalog.findTokenByHash('h1')).toBeUndefined();
      });

      it('keeps a token\'s scopes and expiry, rotates its secret and writes its last use only when older than asked', async () => {
        await s.catalog.createToken({ name: 'shop', secretHash: 'h1', roles: ['factoryWorker'], organization: 'acme', scopes: ['search', 'parts:read'], createdAt: 5, expiresAt: 1_000, lastUsedAt: null });
        expect(await s.catalog.findTokenByHash('h1')).toEqual({ name: 'shop', secretHash: 'h1', roles: ['factoryWorker'], organization: 'acme', scopes: ['search', 'parts:read'], createdAt: 5, expiresAt: 1_000, lastUsedAt: null });
        await s.catalog.touchToken('h1', 100, 40);
        expect((await s.catalog.listTokens())[0]?.lastUsedAt).toBe(100);
        await s.catalog.touchToken('h1', 120, 60); // stored 100 is not older than 60: skipped
        expect((await s.catalog.listTokens())[0]?.lastUsedAt).toBe(100);
        await s.catalog.touchToken('h1', 200, 140);
        expect((await s.catalog.listTokens())[0]?.lastUsedAt).toBe(200);
        const rotated = await s.catalog.rotateToken('shop', 'h2', 5_000);
        expect(rotated).toEqual({ name: 'shop', secretHash: 'h2', roles: ['factoryWorker'], organization: 'acme', scopes: ['search', 'parts:read'], createdAt: 5, expiresAt: 5_000, lastUsedAt: 200 });
        expect(await s.catalog.findTokenByHash('h1')).toBeUndefined();
        expect((await s.catalog.findTokenByHash('h2'))?.name).toBe('shop');
        expect(await s.catalog.rotateToken('nobody', 'h3', null)).toBeUndefined();
      });

      it('keeps settings', async () => {
        expect(await s.catalog.getSetting('maintenance')).toBeUndefined();
        await s.catalog.setSetting('maintenance', 'on');
        expect(await s.catalog.getSetting('maintenance')).toBe('on');
      });

      it('initSetting stores a value only when the key has none, and returns the stored one', async () => {
        expect(await s.catalog.initSetting('catalog_id', 'first')).toBe('first');
        expect(await s.catalog.initSetting('catalog_id', 'second')).toBe('first');
        expect(await s.catalog.getSetting('catalog_id')).toBe('first');
      });
    });

    describe('CatalogStore: synonyms', () => {
      it('upserts with the stored set and the running count in decide, replaces whole, lists by id, deletes; all in one transaction', async () => {
        const seen: [string, string | undefined, number][] = [];
        const decide = (item: SynonymSet, existing: SynonymSet | undefined, count: number): Decision<SynonymSet> => {
          seen.push([item.synonym_id, existing?.synonyms.join(','), count]);
          return { kind: 'write', value: item, created: !existing };
        };
        await s.catalog.upsertSynonyms([{ synonym_id: 'b', synonyms: ['bolt', 'screw'] }, { synonym_id: 'a', input: 'hex', synonyms: ['hexagon'] }], decide);
        await s.catalog.upsertSynonyms([{ synonym_id: 'b', synonyms: ['bolt', 'rivet'] }, { synonym_id: 'c', synonyms: ['x1', 'y1'] }], decide);
        expect(seen).toEqual([['b', undefined, 0], ['a', undefined, 1], ['b', 'bolt,screw', 2], ['c', undefined, 2]]);
        expect(await s.catalog.listSynonyms({ after: undefined, limit: 2 })).toEqual([
          { synonym_id: 'a', input: 'hex', synonyms: ['hexagon'] }, { synonym_id: 'b', synonyms: ['bolt', 'rivet'] },
        ]);
        expect((await s.catalog.listSynonyms({ after: 'b', limit: 10 })).map((x) => x.synonym_id)).toEqual(['c']);
        const all = await s.catalog.allSynonyms();
        expect(all.map((x) => x.synonym_id)).toEqual(['a', 'b', 'c']);
        // Unchanged sets: the same array (callers cache what they derive from it by identity).
        expect(await s.catalog.allSynonyms()).toBe(all);
        // A failing decide writes nothing of the call.
        await expect(s.catalog.upsertSynonyms([{ synonym_id: 'd', synonyms: ['p1', 'q1'] }, { synonym_id: 'e', synonyms: ['p2', 'q2'] }], (item) => {
          if (item.synonym_id === 'e') throw new Error('boom');
          return { kind: 'write', value: item, created: true };
        })).rejects.toThrow('boom');
        const decisions = await s.catalog.deleteSynonyms(['a', 'zz'], (id, existing) => (existing ? { kind: 'write', value: null, created: false } : { kind: 'error', messages: [`${id}?`] }));
        expect(decisions.map((d) => d.kind)).toEqual(['write', 'error']);
        const after = await s.catalog.allSynonyms();
        expect(after).not.toBe(all);
        expect(after.map((x) => x.synonym_id)).toEqual(['b', 'c']);
      });

      it('the index answers a word\'s synonyms, ranked below the exact match (SYNONYM tier)', async () => {
        await putParts(part('p1', 'Wood screw screw screw'), part('p2', 'Bolt with a long name that lowers its score'), part('p3', 'Nut'));
        const q = query('bolt ');
        q.words = applySynonyms(q.words, compileSynonyms([{ synonym_id: 's', synonyms: ['bolt', 'screw'] }]));
        const hits = await s.searchIndex.searchText(q, 10);
        expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId)).toEqual(['p2', 'p1']);
        const multi = query('usb stick ');
        await putParts(part('p4', 'Flash drive'), part('p5', 'USB stick'));
        multi.words = applySynonyms(multi.words, compileSynonyms([{ synonym_id: 'm', synonyms: ['usb stick', 'flash drive'] }]));
        const found = await s.searchIndex.searchText(multi, 10);
        expect(found.total).toBe(2);
        expect((await s.searchIndex.readCards(found.cardIds)).map((c) => c.partId)).toEqual(['p5', 'p4']);
      });
    });

    describe('RelationStore', () => {
      const relation = (a: string, b: string, type: StoredRelation['type'] = 'substitute'): StoredRelation => ({ anchor_part_id: a, related_part_id: b, type, source: 'confirmed_by_user', user_id: 'u', created: 1 });

      it('writes all or nothing: one unknown part writes no relation and names the part', async () => {
        await putParts(part('p1', 'One'), part('p2', 'Two'));
        expect([...(await s.relations.missingParts(['p1', 'nope']))]).toEqual(['nope']);
        expect(await s.relations.writeRelations([relation('p1', 'p2'), relation('p1', 'nope')])).toEqual({ written: 0, missing: ['nope'] });
        expect(await s.relations.relationsOf('p1', undefined)).toEqual([]);
      });

      it('keeps one relation per unordered pair (latest wins) and filters by type', async () => {
        await putParts(part('p1', 'One'), part('p2', 'Two'), part('p3', 'Three'));
        await s.relations.writeRelations([relation('p1', 'p2', 'substitute'), relation('p1', 'p3', 'duplicate')]);
        await s.relations.writeRelations([relation('p2', 'p1', 'equivalent')]);
        const all = await s.relations.relationsOf('p1', undefined);
        expect(all?.map((r) => [r.anchor_part_id, r.related_part_id, r.type]).sort()).toEqual([['p1', 'p3', 'duplicate'], ['p2', 'p1', 'equivalent']]);
        expect((await s.relations.relationsOf('p1', 'duplicate'))?.length).toBe(1);
        expect(await s.relations.relationsOf('nope', undefined)).toBeUndefined();
      });

      it('lists every relation once, in (anchor, related) code point order, paged after a pair', async () => {
        // Written in another order than listed, and the anchor is sometimes the later-created part.
        await putParts(part('b', 'B'), part('a', 'A'), part('é', 'E'), part('c', 'C'), part('Z', 'Z'));
        await s.relations.writeRelations([relation('c', 'a', 'duplicate'), relation('a', 'é'), relation('a', 'b', 'equivalent'), relation('Z', 'c')]);
        const pairs = (rs: StoredRelation[]) => rs.map((r) => [r.anchor_part_id, r.related_part_id, r.type]);
        const all = await s.relations.listRelations(undefined, 100);
        expect(pairs(all)).toEqual([['Z', 'c', 'substitute'], ['a', 'b', 'equivalent'], ['a', 'é', 'substitute'], ['c', 'a', 'duplicate']]);
        expect(all[0]).toEqual(relation('Z', 'c'));
        expect(pairs(await s.relations.listRelations(undefined, 2))).toEqual([['Z', 'c', 'substitute'], ['a', 'b', 'equivalent']]);
        expect(pairs(await s.relations.listRelations({ anchor_part_id: 'a', related_part_id: 'b' }, 2))).toEqual([['a', 'é', 'substitute'], ['c', 'a', 'duplicate']]);
        expect(await s.relations.listRelations({ anchor_part_id: 'c', related_part_id: 'a' }, 2)).toEqual([]);
      });
    });

    function image(id: string, partId: string, sha256: string, extra: Partial<StoredImage> = {}): StoredImage {
      return { image_id: id, part_id: partId, sha256, size: 3, mime: 'image/png', info: 'display', position: null, createdAt: 1, modifiedAt: 1, ...extra };
    }

    describe('ImageStore and ReferenceFeatureStore', () => {
      it('upserts with the stored image and whether the part exists; lists, reads, deletes', async () => {
        await putParts(part('p1', 'One'), part('p2', 'Two'));
        const seen: [string | undefined, boolean][] = [];
        const decide = (item: { image_id: string; part_id: string }, existing: StoredImage | undefined, partExists: boolean): Decision<ImageWrite> => {
          seen.push([existing?.image_id, partExists]);
          return partExists ? write({ image: image(item.image_id, item.part_id, 'a'.repeat(64)), features: null }) : { kind: 'error', messages: ['no part'] };
        };
        await s.images.upsertImages([{ image_id: 'i2', part_id: 'p1' }, { image_id: 'i1', part_id: 'p2' }, { image_id: 'i3', part_id: 'nope' }], decide);
        expect(seen).toEqual([[undefined, true], [undefined, true], [undefined, false]]);
        await s.images.upsertImages([{ image_id: 'i2', part_id: 'p2' }], decide);
        expect(seen[3]).toEqual(['i2', true]);
        expect((await s.images.listImages({ after: undefined, limit: 10 }, undefined)).map((i) => [i.image_id, i.part_id])).toEqual([['i1', 'p2'], ['i2', 'p2']]);
        expect((await s.images.listImages({ after: undefined, limit: 10 }, ['p1'])).length).toBe(0);
        expect((await s.images.imagesOfPart('p2'))?.map((i) => i.image_id).sort()).toEqual(['i1', 'i2']);
        expect(await s.images.imagesOfPart('nope')).toBeUndefined();
        expect(await s.images.isBlobReferenced('a'.repeat(64))).toBe(true);
        expect([...(await s.images.referencedBlobs())]).toEqual(['a'.repeat(64)]);
        await s.images.deleteImages(['i1', 'i2'], () => write(null, false));
        expect(await s.images.isBlobReferenced('a'.repeat(64))).toBe(false);
        expect(await s.images.getImages(['i1', 'i2'])).toEqual([]);
      });

      it('stores search features with the image and changes the fingerprint when they change', async () => {
        await putParts(part('p1', 'One'));
        const before = await s.references.fingerprint();
        await s.images.upsertImages([{ image_id: 'i1', part_id: 'p1' }], () => write({ image: image('i1', 'p1', 'b'.repeat(64), { info: 'searchable' }), features: new Uint8Array([1, 2, 3]) }));
        const after = await s.references.fingerprint();
        expect(after).not.toBe(before);
        const all = [];
        for await (const r of s.references.all()) all.push({ ...r, features: [...r.features] });
        expect(all).toEqual([{ image_id: 'i1', part_id: 'p1', features: [1, 2, 3] }]);
        // undefined keeps the stored features; null clears them.
        await s.images.upsertImages([{ image_id: 'i1', part_id: 'p1' }], () => write({ image: image('i1', 'p1', 'b'.repeat(64), { modifiedAt: 2 }), features: undefined }, false));
        let count = 0;
        for await (const _r of s.references.all()) count++;
        expect(count).toBe(1);
        await s.images.upsertImages([{ image_id: 'i1', part_id: 'p1' }], () => write({ image: image('i1', 'p1', 'b'.repeat(64), { modifiedAt: 3 }), features: null }, false));
        count = 0;
        for await (const _r of s.references.all()) count++;
        expect(count).toBe(0);
        expect(await s.references.fingerprint()).not.toBe(after);
      });

      it('log every change of features or of their part, and read just those since a change number', async () => {
        await putParts(part('p1', 'One'), part('p2', 'Two'));
        const features = (id: string) => s.references.changesSince(v0, 100).then((c) => c.upserted.find((r) => r.image_id === id));
        const v0 = await s.references.changeVersion();
        expect(await s.references.changesSince(v0, 100)).toEqual({ version: v0, complete: true, more: false, upserted: [], removed: [] });
        await s.images.upsertImages([{ image_id: 'i1', part_id: 'p1' }], () => write({ image: image('i1', 'p1', 'b'.repeat(64), { info: 'searchable' }), features: new Uint8Array([1, 2, 3]) }));
        // An image without features is no change of the photo index.
        await s.images.upsertImages([{ image_id: 'i2', part_id: 'p1' }], () => write({ image: image('i2', 'p1', 'c'.repeat(64)), features: null }));
        const v1 = await s.references.changeVersion();
        expect(v1).toBeGreaterThan(v0);
        const first = await s.references.changesSince(v0, 100);
        expect({ ...first, upserted: first.upserted.map((r) => ({ ...r, features: [...r.features] })) }).toEqual({
          version: v1, complete: true, more: false, upserted: [{ image_id: 'i1', part_id: 'p1', features: [1, 2, 3] }], removed: [],
        });
        expect(await s.references.changesSince(v1, 100)).toEqual({ version: v1, complete: true, more: false, upserted: [], removed: [] });
        // An info-only update keeps the features: no change.
        await s.images.upsertImages([{ image_id: 'i1', part_id: 'p1' }], () => write({ image: image('i1', 'p1', 'b'.repeat(64), { modifiedAt: 2 }), features: undefined }, false));
        expect(await s.references.changeVersion()).toBe(v1);
        // A move to another part is one; so are new features and a second image.
        await s.images.upsertImages([{ image_id: 'i1', part_id: 'p2' }], () => write({ image: image('i1', 'p2', 'b'.repeat(64), { modifiedAt: 3 }), features: undefined }, false));
        await s.images.upsertImages([{ image_id: 'i3', part_id: 'p2' }], () => write({ image: image('i3', 'p2', 'd'.repeat(64)), features: new Uint8Array([7]) }));
        const v2 = await s.references.changeVersion();
        const moved = await s.references.changesSince(v1, 100);
        expect(moved.version).toBe(v2);
        expect(moved.upserted.map((r) => [r.image_id, r.part_id, [...r.features]])).toEqual([['i1', 'p2', [1, 2, 3]], ['i3', 'p2', [7]]]);
        // Paged by `limit`, oldest first.
        const page = await s.references.changesSince(v1, 1);
        expect([page.more, page.upserted.map((r) => r.image_id)]).toEqual([true, ['i1']]);
        const rest = await s.references.changesSince(page.version, 1);
        expect([rest.version, rest.more, rest.upserted.map((r) => r.image_id)]).toEqual([v2, false, ['i3']]);
        // Cleared features and a deletion are removals; the deleted row's earlier changes read as removed too.
        await s.images.upsertImages([{ image_id: 'i3', part_id: 'p2' }], () => write({ image: image('i3', 'p2', 'd'.repeat(64), { modifiedAt: 4 }), features: null }, false));
        await s.images.deleteImages(['i1', 'i2'], () => write(null, false));
        const gone = await s.references.changesSince(v2, 100);
        expect([gone.complete, gone.upserted, [...gone.removed].sort()]).toEqual([true, [], ['i1', 'i3']]);
        expect((await s.references.changesSince(v0, 100)).removed.sort()).toEqual(['i1', 'i3']);
        expect(await features('i1')).toBeUndefined();
      });

      it('log a backfill replacement as a change (an upload during the backfill is kept and logged too)', async () => {
        if (!s.references.replaceStaleFeatures || !s.references.staleFeatures) return;
        await putParts(part('p1', 'One'));
        await s.images.upsertImages([{ image_id: 'i1', part_id: 'p1' }, { image_id: 'i2', part_id: 'p1' }], (item) => write({ image: image(item.image_id, 'p1', 'b'.repeat(64), { info: 'searchable' }), features: new Uint8Array([1, 1]) }));
        const v0 = await s.references.changeVersion();
        const prefix = Uint8Array.of(9);
        expect((await s.references.staleFeatures(prefix, '', 10)).images.map((i) => i.image_id)).toEqual(['i1', 'i2']);
        // An upload replaces i2 with current features while the backfill runs: the backfill's write loses.
        await s.images.upsertImages([{ image_id: 'i2', part_id: 'p1' }], () => write({ image: image('i2', 'p1', 'b'.repeat(64), { modifiedAt: 2 }), features: Uint8Array.of(9, 2) }, false));
        expect(await s.references.replaceStaleFeatures('i1', 'b'.repeat(64), prefix, Uint8Array.of(9, 1))).toBe(true);
        expect(await s.references.replaceStaleFeatures('i2', 'b'.repeat(64), prefix, Uint8Array.of(9, 3))).toBe(false);
        const changes = await s.references.changesSince(v0, 100);
        expect(changes.upserted.map((r) => [r.image_id, [...r.features]]).sort()).toEqual([['i1', [9, 1]], ['i2', [9, 2]]]);
      });
    });

    describe('SearchIndex: consistent with every write', () => {
      it('finds a part as soon as its write commits, by id, name and visible value', async () => {
        await putAttributes(attribute('colour'), attribute('secret', { visibility: 'admin' }));
        await putParts(part('pci:8086:1539', 'Gigabit controller', { colour: 'crimson', secret: 'classified' }));
        expect(await search('gigabit')).toEqual(['pci:8086:1539']);
        expect(await search('8086')).toEqual(['pci:8086:1539']);
        expect(await search('crimson')).toEqual(['pci:8086:1539']);
        expect(await search('classified', ADMIN)).toEqual(['pci:8086:1539']);
        expect(await search('classified', WORKER)).toEqual([]);
      });

      it('samples the names of parts spread over the catalog, every language, deleted parts left out', async () => {
        expect((await s.searchIndex.sampleNames?.(10)) ?? []).toEqual([]);
        await putParts(...Array.from({ length: 40 }, (_, i) => part(`s${String(i).padStart(2, '0')}`, `Sampled part ${i}`)));
        await putParts({ ...part('s40', 'Mehrsprachig'), name: { en: 'Multilingual', de: 'Mehrsprachig' } });
        await s.catalog.deleteParts(['s00', 's20'], () => write(null, false));
        const names = (await s.searchIndex.sampleNames?.(100)) ?? [];
        if (!s.searchIndex.sampleNames) return;
        expect([...names].sort()).toEqual([...Array.from({ length: 40 }, (_, i) => `Sampled part ${i}`).filter((n) => n !== 'Sampled part 0' && n !== 'Sampled part 20'), 'Mehrsprachig', 'Multilingual'].sort());
        // At most 4 of them, spread over the catalog (not the first written; a deleted part's slot stays empty).
        const few = await s.searchIndex.sampleNames(4);
        expect(few.length).toBeGreaterThan(0);
        expect(few.length).toBeLessThanOrEqual(4);
        expect(few.every((n) => names.includes(n))).toBe(true);
        expect(few.some((n) => Number(n.split(' ')[2]) >= 25)).toBe(true);
      });

      it('follows updates and deletes, and never shows a rolled-back write', async () => {
        await putParts(part('p1', 'Rotor'));
        await putParts(part('p1', 'Stator', {}, 2));
        expect(await search('rotor')).toEqual([]);
        expect(await search('stator')).toEqual(['p1']);
        await expect(s.catalog.upsertParts([part('p2', 'Impeller'), part('p3', 'Bearing')], (item) => {
          if (item.part_id === 'p3') throw new Error('boom');
          return write(item as StoredPart);
        })).rejects.toThrow('boom');
        expect(await search('impeller')).toEqual([]);
        await s.catalog.deleteParts(['p1'], () => write(null, false));
        expect(await search('stator')).toEqual([]);
      });

      it('counts every hit, orders names above values and ties by part id', async () => {
        await putAttributes(attribute('note'));
        await putParts(part('c', 'Pump'), part('a', 'Pump'), part('b', 'Valve', { note: 'pump' }), part('d', 'Hose'));
        const hits = await s.searchIndex.searchText(query('pump'), 100);
        expect(hits.total).toBe(3);
        expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId)).toEqual(['a', 'c', 'b']);
        const capped = await s.searchIndex.searchText(query('pump'), 1);
        expect(capped.total).toBe(3);
        expect(capped.cardIds.length).toBe(1);
      });

      it('ranks a frequent word exactly: the best hit written first ranks first, whatever the hit count', async () => {
        // The best hit (shortest name) is written FIRST, then 2,500 weaker hits: an engine that
        // scores only the most recently written hits of a frequent word misses it.
        const parts = [part('best', 'Widget')];
        for (let i = 0; i < 2500; i++) parts.push(part(`w${String(i).padStart(5, '0')}`, `Widget assembly kit ${i % 10} spare`));
        await putParts(...parts);
        const hits = await s.searchIndex.searchText(query('widget '), 3);
        expect(hits.total).toBe(2501);
        expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId)).toEqual(['best', 'w00000', 'w00001']);
      });

      it('breaks ties by part id at any hit count, not by write order', async () => {
        const ids = Array.from({ length: 3000 }, (_, i) => `t${String((i * 7919) % 3000).padStart(5, '0')}`);
        await putParts(...ids.map((id) => part(id, 'Grommet')));
        const hits = await s.searchIndex.searchText(query('grommet '), 5);
        expect(hits.total).toBe(3000);
        expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId)).toEqual(['t00000', 't00001', 't00002', 't00003', 't00004']);
        const all = await s.searchIndex.searchText(query('grommet '), 3000);
        const order = (await s.searchIndex.readCards(all.cardIds)).map((c) => c.partId);
        expect(order).toEqual([...ids].sort());
      });

      it('ranks by BM25 within a tier: a short name above a long one, whatever the write order', async () => {
        // Every hit has the word once in its name; only length tells them apart (ts_rank ignores it).
        const parts = [part('zz-best', 'Sprocket')];
        for (let i = 0; i < 2500; i++) parts.push(part(`a${String(i).padStart(5, '0')}`, `Sprocket assembly kit ${i % 10} spare`));
        await putParts(...parts);
        const hits = await s.searchIndex.searchText(query('sprocket '), 3);
        expect(hits.total).toBe(2501);
        expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId)).toEqual(['zz-best', 'a00000', 'a00001']);
      });

      it('ranks by BM25 within a tier: a rare word weighs more than a frequent one', async () => {
        const parts = [part('a1', 'Flange common common'), part('a2', 'Flange flange common')];
        for (let i = 0; i < 40; i++) parts.push(part(`f${i}`, 'Common filler part'));
        await putParts(...parts);
        expect(await search('flange common ')).toEqual(['a2', 'a1']);
      });

      it('returns the exact BM25 order of the reference scorer on generated data (the same ranking on every store)', async () => {
        await putAttributes(attribute('note'), attribute('secret', { visibility: 'admin' }));
        const vocabulary = ['valve', 'pump', 'seal', 'ring', 'gasket', 'flange', 'bolt', 'nut', 'hose', 'clamp', 'rotor', 'stator'];
        let seed = 11;
        const next = () => {
          seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
          return seed / 2 ** 32;
        };
        const words = (n: number) => Array.from({ length: n }, () => vocabulary[Math.floor(next() * vocabulary.length)] ?? 'x').join(' ');
        const parts: StoredPart[] = [];
        for (let i = 0; i < 300; i++) {
          const values: Record<string, string> = { note: words(1 + Math.floor(next() * 6)) };
          if (i % 4 === 0) values.secret = words(2);
          parts.push(part(`g${String((i * 37) % 300).padStart(3, '0')}`, words(1 + Math.floor(next() * 4)), values));
        }
        await putParts(...parts);
        const attributes = new Map([attribute('note'), attribute('secret', { visibility: 'admin' })].map((a) => [a.attribute_id, a]));
        for (const principal of [ADMIN, WORKER]) {
          for (const text of ['valve ', 'pump seal ', 'gasket ', 'rotor stator ', 'nut ']) {
            const expected = referenceRanking(parts, attributes, parseQueryText(text), principal === ADMIN ? 3 : 0);
            const hits = await s.searchIndex.searchText(query(text, principal), 40);
            expect(hits.total).toBe(expected.length);
            expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId)).toEqual(expected.slice(0, 40));
          }
        }
      });

      it('finds the ids a word begins only while they are few: a wide id range is never read term by term', async () => {
        // 1,100 ids under `usb:0…`: `usb0` begins more runs than ID_RUN_COMPLETIONS_MAX, `usb00` and `usb04` fewer.
        const parts = Array.from({ length: 1100 }, (_, i) => part(`usb:${i.toString(16).padStart(4, '0')}:a${i % 7}`, i % 400 === 0 ? 'USB0 dock' : `Receiver ${i}`));
        await putParts(...parts);
        const attributes = new Map<string, Attribute>();
        const totals: Record<string, number> = {};
        for (const text of ['usb0', 'usb0 ', 'usb00', 'usb04', 'usb0400a', 'usb0400a3 ']) {
          const expected = referenceRanking(parts, attributes, parseQueryText(text), 3);
          const q = { ...query(text, ADMIN) };
          q.ctx = { ...q.ctx, attributes };
          const hits = await s.searchIndex.searchText(q, 10);
          expect(hits.total, text).toBe(expected.length);
          expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId), text).toEqual(expected.slice(0, 10));
          totals[text] = hits.total;
        }
        // `usb0`: the three parts named so, not every id; narrowed, the ids it begins.
        expect(totals).toEqual({ 'usb0': 3, 'usb0 ': 3, 'usb00': 256, 'usb04': 76, 'usb0400a': 1, 'usb0400a3 ': 0 });
      });

      it('returns the top k of the reference ranking rules on a seeded catalog: exact names, prefixes, typos, part numbers, several words', async () => {
        await putAttributes(attribute('note'), attribute('secret', { visibility: 'admin' }));
        const stems = ['valve', 'valves', 'valvo', 'pump', 'pumps', 'gasket', 'gaskets', 'gaskte', 'flange', 'flang', 'rotor', 'rotors', 'stator', 'seal', 'seals', 'bearing', 'bearings', 'baering'];
        let seed = 29;
        const next = () => {
          seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
          return seed / 2 ** 32;
        };
        const pick = () => stems[Math.floor(next() * stems.length)] ?? 'x';
        const numbers = ['6204-2RS', '6204', '6204-ZZ', '62042RS', '6205-2RS', '6204 2RS'];
        const words = (n: number) => Array.from({ length: n }, pick).join(' ');
        const parts: StoredPart[] = [];
        for (let i = 0; i < 400; i++) {
          const values: Record<string, string> = { note: `${words(1 + Math.floor(next() * 5))}${next() < 0.2 ? ` ${numbers[Math.floor(next() * numbers.length)]}` : ''}` };
          if (i % 5 === 0) values.secret = words(2);
          const name = next() < 0.15 ? (numbers[Math.floor(next() * numbers.length)] ?? '') : next() < 0.2 ? pick() : words(1 + Math.floor(next() * 4));
          parts.push(part(`r-${String((i * 37) % 400).padStart(3, '0')}${next() < 0.1 ? '-gasket' : ''}`, name, values));
        }
        await putParts(...parts);
        const attributes = new Map([attribute('note'), attribute('secret', { visibility: 'admin' })].map((a) => [a.attribute_id, a]));
        const texts = ['valve', 'valve ', 'val', 'valv', 'gasket', 'gaskte ', 'gaskt', 'bearng ', 'baering', 'flange ', 'pump seal', 'rotor sta', 'seals valves ', '6204-2rs', '6204 2rs', '62042rs', '6204', '6204-2', 'r-1', 'r-120 ', 'stator rotor pump ', 'r', 'r0', 'r03', 'r037', 'r037g', 'r037gasket ', 'r-037-g', 'r 037', 'va', 'val ', 'ga', 'gas', 'be', 'ba', 'st', 'se', 'rotor st', 'pump se', 'ro'];
        for (const principal of [ADMIN, WORKER]) {
          for (const text of texts) {
            const expected = referenceRanking(parts, attributes, parseQueryText(text), principal === ADMIN ? 3 : 0);
            // The query's view knows the attributes (phrases are checked in the parts' values).
            const q = { ...query(text, principal) };
            q.ctx = { ...q.ctx, attributes };
            for (const k of [1, 10, 40]) {
              const hits = await s.searchIndex.searchText(q, k);
              expect(hits.total, `${text} (${principal.roles.join()})`).toBe(expected.length);
              expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId), `${text} k ${k}`).toEqual(expected.slice(0, k));
            }
          }
        }
      });

      it('returns the top k of the reference with the custom ranking attribute and with a sort (tie-break before BM25; sort keys, missing values last)', async () => {
        const pop = attribute('pop', { searchable: false, filterable: true });
        const maker = attribute('maker', { searchable: false, filterable: true });
        const note = attribute('note');
        await putAttributes(pop, maker, note);
        const stems = ['valve', 'valves', 'pump', 'gasket', 'seal', 'bearing'];
        let seed = 41;
        const next = () => {
          seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
          return seed / 2 ** 32;
        };
        const pick = () => stems[Math.floor(next() * stems.length)] ?? 'x';
        const parts: StoredPart[] = [];
        for (let i = 0; i < 300; i++) {
          const values: Record<string, string> = { note: `${pick()} ${pick()}` };
          // Few distinct numbers (ties within a value), some texts (not numbers: no rank), some parts without.
          const r = next();
          if (r < 0.6) values.pop = String(Math.floor(next() * 8) * 2.5);
          else if (r < 0.7) values.pop = 'n/a';
          if (next() < 0.8) values.maker = ['Acme', 'acme', 'Bolt Co', 'zeta', '12', '9'][Math.floor(next() * 6)] ?? '';
          parts.push(part(`o-${String((i * 37) % 300).padStart(3, '0')}`, next() < 0.1 ? pick() : `${pick()} ${pick()}`, values));
        }
        // A part with two values: its smallest counts ascending, its largest descending.
        parts.push({ ...part('o-two', 'valve pump'), attributes: [{ attribute_id: 'pop', values: [{ organization: '', value: { en: '1' } }, { organization: '', value: { en: '99' } }] }] });
        await putParts(...parts);
        const attributes = new Map([pop, maker, note].map((a) => [a.attribute_id, a]));
        const orders: SearchOrder[] = [
          { kind: 'tieBreak', attributeId: 'pop', direction: 'desc' },
          { kind: 'tieBreak', attributeId: 'pop', direction: 'asc' },
          { kind: 'sort', attributeId: 'pop', direction: 'asc' },
          { kind: 'sort', attributeId: 'maker', direction: 'desc' },
          { kind: 'sort', direction: 'desc' },
        ];
        for (const order of orders) {
          for (const text of ['valve', 'valve ', 'pump seal', 'bearing ', 'valv']) {
            const expected = referenceRanking(parts, attributes, parseQueryText(text), 3, order);
            const q = { ...query(text), order };
            q.ctx = { ...q.ctx, attributes };
            for (const k of [1, 10, 40]) {
              const hits = await s.searchIndex.searchText(q, k);
              expect(hits.total, `${text} ${JSON.stringify(order)}`).toBe(expected.length);
              expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId), `${text} ${JSON.stringify(order)} k ${k}`).toEqual(expected.slice(0, k));
            }
          }
        }
      });

      it('returns the top k of the reference with an attribute order, set before and after writes and changed; a hidden attribute ranks only for a tier that sees it', async () => {
        const title = attribute('title');
        const note = attribute('note');
        const secret = attribute('secret', { visibility: 'admin' });
        await putAttributes(title, note, secret);
        const stems = ['valve', 'valves', 'pump', 'gasket', 'gaskte', 'seal', 'bearing', 'rotor'];
        let seed = 67;
        const next = () => {
          seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
          return seed / 2 ** 32;
        };
        const pick = () => stems[Math.floor(next() * stems.length)] ?? 'x';
        const parts: StoredPart[] = [];
        for (let i = 0; i < 100; i++) {
          const values: Record<string, string> = {};
          if (next() < 0.6) values.title = `${pick()}${next() < 0.2 ? ' 6204-2RS' : ''}`;
          if (next() < 0.8) values.note = `${pick()} ${pick()}${next() < 0.2 ? ' 6204-2RS' : ''}`;
          if (next() < 0.4) values.secret = pick();
          parts.push(part(`k-${String((i * 37) % 100).padStart(3, '0')}`, next() < 0.3 ? pick() : 'widget', values));
        }
        const attributes = new Map([title, note, secret].map((a) => [a.attribute_id, a]));
        const ranking = (attributeOrder: string[]) => JSON.stringify({ customRanking: null, identifierAttributes: [], attributeOrder });
        // Half written before the setting (re-indexed by its write), half after (indexed with it).
        await putParts(...parts.slice(0, 50));
        await s.catalog.setSetting('search_ranking', ranking(['secret', 'title', 'note']));
        await putParts(...parts.slice(50));
        const check = async (attributeOrder: string[]) => {
          for (const principal of [ADMIN, WORKER]) {
            for (const text of ['valve', 'pump seal ', 'rotor bea', '6204-2rs ', 'va', 'ga', 'pum', 'se', 'rotor be']) {
              const expected = referenceRanking(parts, attributes, parseQueryText(text), principal === ADMIN ? 3 : 0, undefined, [], attributeOrder);
              const q = { ...query(text, principal), ...(attributeOrder.length > 0 ? { attributeOrder } : {}) };
              q.ctx = { ...q.ctx, attributes };
              for (const k of [1, 10, 40]) {
                const hits = await s.searchIndex.searchText(q, k);
                expect(hits.total, `${text} ${attributeOrder.join()}`).toBe(expected.length);
                expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId), `${text} (${principal.roles.join()}) ${attributeOrder.join()} k ${k}`).toEqual(expected.slice(0, k));
              }
            }
          }
        };
        await check(['secret', 'title', 'note']);
        await s.catalog.setSetting('search_ranking', ranking(['note', 'title']));
        await check(['note', 'title']);
        // The order decides (the reference is no tautology): `valve` in a title or in a note comes first by the order.
        const inTitle = referenceRanking(parts, attributes, parseQueryText('valve'), 0, undefined, [], ['title', 'note']);
        const inNote = referenceRanking(parts, attributes, parseQueryText('valve'), 0, undefined, [], ['note', 'title']);
        expect(inTitle).not.toEqual(inNote);
      });

      it('finds a punctuated word (a phrase) in a value only a wider visibility tier sees, for that tier only', async () => {
        const secret = attribute('secret', { visibility: 'admin' });
        await putAttributes(secret);
        await putParts(part('h1', 'Housing', { secret: 'fits 7301 BEP only' }), part('h2', 'Cover'));
        expect(await search('7301-bep', ADMIN, [secret])).toEqual(['h1']);
        expect(await search('7301-bep', WORKER, [secret])).toEqual([]);
      });

      it('ranks words typed next to each other first (proximity), the last one also as a prefix; a pair in a hidden value only for a tier that sees it', async () => {
        const note = attribute('note');
        const secret = attribute('secret', { visibility: 'admin' });
        await putAttributes(note, secret);
        const fillers = ['housing', 'deep', 'groove', 'radial', 'steel', 'sealed', 'shielded', 'miniature'];
        const parts: StoredPart[] = [
          // Both words in the name, shortest: BM25's first, but not in the order typed.
          part('p-apart', 'Steel bearing ball'),
          // The words typed next to each other, in a longer name.
          part('p-near', 'Radial ball bearing deep groove type'),
          // Next to each other only in a value the worker may not read.
          part('p-hidden', 'Bearing', { secret: 'ball bearing' }),
          part('p-value', 'Ball', { note: 'bearing housing' }),
          ...Array.from({ length: 40 }, (_, i) => part(`p-${String(i).padStart(2, '0')}`, `${fillers[i % 8]} ${fillers[(i * 3 + 1) % 8]} bearing`, { note: `${fillers[(i + 2) % 8]} ball` })),
        ];
        await putParts(...parts);
        const attributes = new Map([note, secret].map((a) => [a.attribute_id, a]));
        const search = async (text: string, principal: Principal, k: number) => {
          const q = { ...query(text, principal) };
          q.ctx = { ...q.ctx, attributes };
          return (await s.searchIndex.readCards((await s.searchIndex.searchText(q, k)).cardIds)).map((c) => c.partId);
        };
        expect((await search('ball bearing', WORKER, 2))).toEqual(['p-near', 'p-apart']);
        expect((await search('ball bea', WORKER, 1))).toEqual(['p-near']);
        expect((await search('bearing ball', WORKER, 1))).toEqual(['p-apart']);
        expect((await search('ball bearing', ADMIN, 3))).toEqual(['p-near', 'p-hidden', 'p-apart']);
        for (const principal of [ADMIN, WORKER]) {
          for (const text of ['ball bearing', 'ball bearing ', 'ball bea', 'ball b', 'bearing ball', 'deep groove ball bearing', 'groove bearing']) {
            const expected = referenceRanking(parts, attributes, parseQueryText(text), principal === ADMIN ? 3 : 0);
            for (const k of [1, 10, 40]) expect(await search(text, principal, k), `${text} k ${k}`).toEqual(expected.slice(0, k));
          }
        }
      });

      it('returns the top k of the reference with identifier attributes: part numbers with, with other or without separators first, a hidden one only for a tier that sees it', async () => {
        const mpn = attribute('mpn');
        const hidden = attribute('smpn', { visibility: 'admin' });
        const note = attribute('note');
        await putAttributes(mpn, hidden, note);
        const numbers = ['6204-2RS', '6204', '6204-ZZ', '62042RS', '6205-2RS', '6204 2RS', 'R-12', '7301.BEP'];
        const stems = ['bearing', 'seal', 'kit', 'puller', 'ring'];
        let seed = 53;
        const next = () => {
          seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
          return seed / 2 ** 32;
        };
        const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
        const parts: StoredPart[] = [];
        for (let i = 0; i < 200; i++) {
          const values: Record<string, string> = { note: `${pick(stems)}${next() < 0.3 ? ` ${pick(numbers)}` : ''}` };
          if (next() < 0.3) values.mpn = pick(numbers);
          if (next() < 0.2) values.smpn = pick(numbers);
          const name = next() < 0.3 ? `${pick(stems)} ${pick(numbers)}` : `${pick(stems)} ${pick(stems)}`;
          parts.push(part(`m-${String((i * 37) % 200).padStart(3, '0')}`, name, values));
        }
        await putParts(...parts);
        const attributes = new Map([mpn, hidden, note].map((a) => [a.attribute_id, a]));
        const identifiers = ['mpn', 'smpn'];
        for (const principal of [ADMIN, WORKER]) {
          for (const text of ['6204-2rs', '6204 2rs', '62042rs', '6204-2RS ', '6204', 'r-12', 'r12 ', '7301 bep', '7301bep', 'seal 6204']) {
            // The index itself keeps a hidden value out (the service also names only readable attributes).
            const expected = referenceRanking(parts, attributes, parseQueryText(text), principal === ADMIN ? 3 : 0, undefined, identifiers);
            const q = { ...query(text, principal), identifiers };
            q.ctx = { ...q.ctx, attributes };
            for (const k of [1, 10, 40]) {
              const hits = await s.searchIndex.searchText(q, k);
              expect(hits.total, `${text} (${principal.roles.join()})`).toBe(expected.length);
              expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId), `${text} (${principal.roles.join()}) k ${k}`).toEqual(expected.slice(0, k));
            }
          }
        }
        // An identifier value equal to the query ranks its part first (the reference is no tautology).
        const byMpn = parts.filter((p) => p.attributes.some((a) => a.attribute_id === 'mpn' && a.values.some((v) => v.value.en === '6204-2RS')));
        const first = referenceRanking(parts, attributes, parseQueryText('62042rs'), 0, undefined, identifiers)[0];
        expect(byMpn.map((p) => p.part_id)).toContain(first);
      });

      it('ranks an exact match in the id above a typo match in a name, also for parts with per-organization values (the typos rule)', async () => {
        await putParts(part('a', 'Brackets brackets'), part('bracket-z', 'Widget'));
        expect(await search('bracket ')).toEqual(['bracket-z', 'a']);
        const stock = attribute('stock', { filterable: true, per_org_values: true, default_value: { en: 'yes' } });
        await putAttributes(stock);
        const held = (id: string, name: string): StoredPart => ({ ...part(id, name), attributes: [{ attribute_id: 'stock', values: [{ organization: 'acme', value: { en: 'yes' } }] }] });
        await putParts(held('a', 'Brackets brackets'), held('bracket-z', 'Widget'));
        const q = query('bracket ', ADMIN, [{ attribute: stock, values: ['yes'] }]);
        q.ctx = { ...q.ctx, attributes: new Map([['stock', stock]]), organizations: new Map([['acme', { org_id: 'acme', parent_id: null }]]), organization: 'acme' };
        const hits = await s.searchIndex.searchText(q, 10);
        expect(hits.total).toBe(2);
        expect((await s.searchIndex.readCards(hits.cardIds)).map((c) => c.partId)).toEqual(['bracket-z', 'a']);
      });

      it('reaches letter words with one and two typos, never a part number (the typo vocabulary is letter words)', async () => {
        await putParts(part('v', 'Thermostatic valve TV4471'), part('b', 'Controller board THERMOSTAT1C'));
        // Two edits from "thermostatic"; one from the part number "thermostat1c", which no typo reaches.
        expect(await search('tharmostatik ')).toEqual(['v']);
        expect(await search('thermostatyc ')).toEqual(['v']);
        expect(await search('thermostat1c')).toEqual(['b']);
      });

      it('counts every hit of a frequent word exactly, as the caller sees it', async () => {
        await putAttributes(attribute('note'), attribute('secret', { visibility: 'admin' }));
        const parts: StoredPart[] = [];
        for (let i = 0; i < 1200; i++) parts.push(part(`n${i}`, i % 3 === 0 ? 'Nozzle' : 'Spigot', i % 5 === 0 ? { note: 'nozzle fits' } : i % 7 === 0 ? { secret: 'nozzle' } : {}));
        await putParts(...parts);
        const expected = (visibleSecret: boolean) => parts.filter((_, i) => i % 3 === 0 || i % 5 === 0 || (visibleSecret && i % 7 === 0)).length;
        expect((await s.searchIndex.searchText(query('nozzle '), 10)).total).toBe(expected(true));
        expect((await s.searchIndex.searchText(query('nozzle ', WORKER), 10)).total).toBe(expected(false));
        expect((await s.searchIndex.searchText(query('nozzle fits '), 10)).total).toBe(parts.filter((_, i) => i % 5 === 0).length);
        await s.catalog.deleteParts(['n0', 'n3'], () => write(null, false));
        expect((await s.searchIndex.searchText(query('nozzle ', WORKER), 10)).total).toBe(expected(false) - 2);
      });

      it('applies filters and keeps result cards of superseded versions readable', async () => {
        const vendor = attribute('vendor', { filterable: true });
        await putAttributes(vendor);
        await putParts(part('p1', 'Pump', { vendor: 'Acme' }), part('p2', 'Pump', { vendor: 'Other' }));
        const filtered = await s.searchIndex.searchText(query('pump', ADMIN, [{ attribute: vendor, values: ['acme'] }]), 10);
        const cards = await s.searchIndex.readCards(filtered.cardIds);
        expect(cards.map((c) => c.partId)).toEqual(['p1']);
        await putParts(part('p1', 'Renamed', { vendor: 'Acme' }, 2));
        const old = await s.searchIndex.readCards(filtered.cardIds);
        expect(old.map((c) => [c.partId, c.names.en])).toEqual([['p1', 'Pump']]);
        const current = await s.searchIndex.currentCards(['p1', 'p2', 'nope']);
        expect([...current.keys()].sort()).toEqual(['p1', 'p2']);
        expect(current.get('p1')).not.toBe(filtered.cardIds[0]);
      });

      it('reads the card of a part as found even after the part was replaced twice or deleted, and no card for an unknown id', async () => {
        await putParts(part('p1', 'Pump'), part('p2', 'Pump jet'), part('p3', 'Pump seal'));
        const found = await s.searchIndex.searchText(query('pump'), 10);
        const asFound = (await s.searchIndex.readCards(found.cardIds)).map((c) => [c.partId, c.names.en, c.modifiedAt]);
        expect(asFound.map(([id]) => id).sort()).toEqual(['p1', 'p2', 'p3']);
        // Real times: a copy is kept 25 hours from its part's replacement.
        const now = Date.now() * 1000;
        await putParts(part('p1', 'Impeller', {}, now));
        await putParts(part('p1', 'Impeller two', {}, now + 1));
        await s.catalog.deleteParts(['p2'], () => write(null, false));
        expect((await s.searchIndex.readCards(found.cardIds)).map((c) => [c.partId, c.names.en, c.modifiedAt])).toEqual(asFound);
        const later = await s.searchIndex.searchText(query('pump'), 10);
        expect((await s.searchIndex.readCards(later.cardIds)).map((c) => c.partId)).toEqual(['p3']);
        expect(await s.searchIndex.readCards([Math.max(...found.cardIds, ...later.cardIds) + 1_000_000])).toEqual([]);
      });

      it('counts facet values over every hit, as the caller sees them', async () => {
        const vendor = attribute('vendor', { filterable: true });
        const grade = attribute('grade', { filterable: true, visibility: 'admin' });
        const stock = attribute('stock', { filterable: true, per_org_values: true, default_value: { en: 'none' } });
        await putAttributes(vendor, grade, stock);
        const parts: StoredPart[] = [];
        // 1,500 hits (more than any page or session would keep): vendor by i % 3 (two spellings of one value), grade by i % 2.
        for (let i = 0; i < 1500; i++) parts.push(part(`f${String(i).padStart(4, '0')}`, 'Fitting', { vendor: ['Acme Corp', 'acme corp', 'Other'][i % 3] ?? '', grade: i % 2 === 0 ? 'A' : 'B' }));
        parts.push(part('g1', 'Gauge', { vendor: 'Zeta' }));
        const withStock = parts[0] as StoredPart;
        withStock.attributes.push({ attribute_id: 'stock', values: [{ organization: 'acme', value: { en: 'Few' } }] });
        await putParts(...parts);
        const attributes = new Map([vendor, grade, stock].map((a) => [a.attribute_id, a]));
        const q = (principal: Principal, organization?: string) => ({
          ...query('fitting ', principal),
          ctx: { principal, attributes, organizations: new Map([['acme', { org_id: 'acme', parent_id: null }]]), organization },
        });
        expect(await s.searchIndex.facets(q(ADMIN), [vendor, grade], 10)).toEqual({
          // Zeta is only the gauge's, which is not a hit.
          // Either spelling of the folded value may show (one a hit stores).
          vendor: [{ value: expect.stringMatching(/^acme corp$/i), count: 1000 }, { value: 'Other', count: 500 }],
          grade: [{ value: 'A', count: 750 }, { value: 'B', count: 750 }],
        });
        // valuePrefix: only values beginning with it (folded), for POST /1/find/facet-values.
        expect(await s.searchIndex.facets(q(ADMIN), [vendor, grade], 10, 'OT')).toEqual({ vendor: [{ value: 'Other', count: 500 }], grade: [] });
        expect(await s.searchIndex.facets(q(ADMIN, 'acme'), [stock], 10, 'fe')).toEqual({ stock: [{ value: 'Few', count: 1 }] });
        expect(await s.searchIndex.facets(q(ADMIN), [vendor], 1)).toEqual({ vendor: [{ value: expect.stringMatching(/^acme corp$/i), count: 1000 }] });
        expect(await s.searchIndex.facets(q(WORKER), [vendor, grade], 10)).toMatchObject({ grade: [] });
        const filtered = { ...q(ADMIN), filters: [{ attribute: grade, values: ['a'] }] };
        expect((await s.searchIndex.facets(filtered, [vendor], 10)).vendor?.map((f) => f.count)).toEqual([500, 250]);
        // Filter values pass case-insensitively and as the first whole words of a value.
        const byVendor = async (values: string[]) => (await s.searchIndex.searchText({ ...q(ADMIN), filters: [{ attribute: vendor, values }] }, 10)).total;
        expect(await byVendor(['ACME'])).toBe(1000);
        expect(await byVendor(['acme corp'])).toBe(1000);
        expect(await byVendor(['acme c'])).toBe(0);
        expect(await byVendor(['corp'])).toBe(0);
        expect(await s.searchIndex.facets(q(ADMIN, 'acme'), [stock], 10)).toEqual({ stock: [{ value: 'none', count: 1499 }, { value: 'Few', count: 1 }] });
      });
    });

    describe('SessionStore', () => {
      it('stores hits in order, reads any page, and purges expired sessions', async () => {
        const session = { sessionId: 's1', principal: 'ci', createdAt: 10, expiresAt: 20, imageId: null, language: 'en', total: 7, stored: 5 };
        await s.sessions.create(session, { cardIds: [5, 4, 3, 2, 1] });
        expect(await s.sessions.get('s1')).toMatchObject({ sessionId: 's1', total: 7, stored: 5, language: 'en' });
        expect(await s.sessions.readHits('s1', 0, 2)).toEqual({ cardIds: [5, 4] });
        expect(await s.sessions.readHits('s1', 3, 10)).toEqual({ cardIds: [2, 1] });
        expect(await s.sessions.readHits('s1', 5, 10)).toEqual({ cardIds: [] });
        await s.sessions.create({ ...session, sessionId: 's2', expiresAt: 100 }, { cardIds: [1] });
        expect(await s.sessions.purgeExpired(20, 10)).toBe(1);
        expect(await s.sessions.get('s1')).toBeUndefined();
        expect(await s.sessions.get('s2')).toBeDefined();
      });

      it('keeps what a session remembers besides its hits: the organization, the text and the facet counts', async () => {
        const base = { principal: 'ci', createdAt: 10, expiresAt: 20, imageId: null, language: undefined, total: 2, stored: 2 };
        const facets = { vendor: [{ value: 'Intel Corporation', count: 2 }, { value: 'Ünïcode', count: 1 }], class: [] };
        await s.sessions.create({ ...base, sessionId: 'with', organization: 'acme-eu', text: 'intel contoller', facets }, { cardIds: [1, 2] });
        await s.sessions.create({ ...base, sessionId: 'without' }, { cardIds: [1, 2] });
        expect(await s.sessions.get('with')).toMatchObject({ organization: 'acme-eu', text: 'intel contoller', facets });
        const without = await s.sessions.get('without');
        expect(without?.organization).toBeUndefined();
        expect(without?.facets).toBeUndefined();
        expect(await s.sessions.readHits('with', 0, 5)).toEqual({ cardIds: [1, 2] });
      });

      it('keeps an image search\'s scores beside its hits, on every page, across blocks (results.score)', async () => {
        const n = 2500;
        const cardIds = Array.from({ length: n }, (_, i) => n - i);
        const scores = cardIds.map((_, i) => 1 - i / n);
        await s.sessions.create({ sessionId: 'img', principal: 'ci', createdAt: 10, expiresAt: 20, imageId: 'query-1', language: undefined, total: n, stored: n }, { cardIds, scores });
        const page = await s.sessions.readHits('img', 1020, 10);
        expect(page.cardIds).toEqual(cardIds.slice(1020, 1030));
        expect(page.scores).toHaveLength(10);
        page.scores?.forEach((score, i) => expect(score).toBeCloseTo(scores[1020 + i] as number, 4));
        const last = await s.sessions.readHits('img', 2490, 100);
        expect(last.cardIds).toEqual(cardIds.slice(2490));
        expect(last.scores?.[9]).toBeCloseTo(scores[2499] as number, 4);
        // A text session has no scores at all, not zeros.
        await s.sessions.create({ sessionId: 'txt', principal: 'ci', createdAt: 10, expiresAt: 20, imageId: null, language: undefined, total: 1, stored: 1 }, { cardIds: [7] });
        expect(await s.sessions.readHits('txt', 0, 5)).toEqual({ cardIds: [7] });
      });
    });

    describe('ChangeLog: every write numbered in its transaction (docs/api.md "Changes")', () => {
      const relation = (a: string, b: string): StoredRelation => ({ anchor_part_id: a, related_part_id: b, type: 'substitute', source: 'confirmed_by_user', user_id: 'u', created: 1 });
      const feed = async (since = 0, limit = 100) => (await s.changes.changesSince(since, limit, undefined)).changes.map((c) => [c.type, c.op, c.id, ...(c.related_id !== null ? [c.related_id] : [])].join(' '));

      it('numbers attributes, parts, images, relations, synonyms, organizations and maintenance; deletions as tombstones', async () => {
        expect(await s.changes.changesSince(0, 10, undefined)).toEqual({ changes: [], prunedThrough: 0, latest: 0 });
        await putAttributes(attribute('colour'));
        await putParts(part('p1', 'One', { colour: 'red' }), part('p2', 'Two'));
        await s.relations.writeRelations([relation('p2', 'p1')]);
        await s.images.upsertImages([{ image_id: 'i1', part_id: 'p1' }], (item) => write({ image: image(item.image_id, item.part_id, 'a'.repeat(64)), features: null }));
        await s.catalog.upsertSynonyms([{ synonym_id: 's1', synonyms: ['bolt', 'screw'] }], (item) => write(item as SynonymSet));
        await s.catalog.ensureOrganizations(['acme']);
        await s.catalog.setSetting('maintenance', 'on');
        await s.catalog.setSetting('something_internal', 'x');
        await s.images.deleteImages(['i1'], () => write(null, false));
        await s.catalog.deleteParts(['p1'], () => write(null, false));
        await s.catalog.deleteSynonyms(['s1'], () => write(null, false));
        expect(await feed()).toEqual([
          'attribute upsert colour', 'part upsert p1', 'part upsert p2', 'relation upsert p2 p1', 'image upsert i1', 'synonym upsert s1',
          'organization upsert acme', 'setting upsert maintenance', 'image delete i1', 'part delete p1', 'synonym delete s1',
        ]);
        const all = await s.changes.changesSince(0, 100, undefined);
        expect(all.changes.map((c) => c.change)).toEqual(all.changes.map((_, i) => i + 1));
        expect(all.latest).toBe(11);
        expect(all.changes.every((c) => c.at > 1_600_000_000_000_000)).toBe(true);
        expect(await feed(9, 1)).toEqual(['part delete p1']);
        expect((await s.changes.changesSince(0, 100, ['part'])).changes.map((c) => `${c.op} ${c.id}`)).toEqual(['upsert p1', 'upsert p2', 'delete p1']);
      });

      it('numbers nothing for a rolled-back write', async () => {
        await putParts(part('p1', 'One'));
        await expect(s.catalog.upsertParts([part('p2', 'Two'), part('p3', 'Three')], (item) => {
          if (item.part_id === 'p3') throw new Error('decide failed');
          return write(item as StoredPart);
        })).rejects.toThrow('decide failed');
        expect(await feed()).toEqual(['part upsert p1']);
        await putParts(part('p4', 'Four'));
        expect((await s.changes.changesSince(0, 10, undefined)).changes.map((c) => c.change)).toEqual([1, 2]);
      });

      it('prunes changes older than the retention at every 1,000th change and says how far', async () => {
        await s.catalog.setSetting('change_retention_seconds', '0');
        await putParts(part('old', 'Old'));
        await new Promise((r) => setTimeout(r, 5));
        const many = Array.from({ length: 999 }, (_, i) => part(`n${String(i).padStart(4, '0')}`, 'N'));
        await putParts(...many);
        const after = await s.changes.changesSince(0, 10, undefined);
        expect(after.latest).toBe(1000);
        expect(after.prunedThrough).toBeGreaterThanOrEqual(1);
        expect(after.changes.every((c) => c.change > after.prunedThrough)).toBe(true);
      });
    });

    describe('WebhookStore: outbox rows in the change\'s transaction, claims, the delivery log', () => {
      const hook = (id: string, types: StoredWebhook['types'] = null): StoredWebhook => ({ webhook_id: id, url: 'http://127.0.0.1:9/hook', secret: 'whsec_0123456789abcdef', types, createdAt: 5 });

      it('queues every later change for each subscribed webhook, claims with a lease and settles', async () => {
        await putParts(part('before', 'Before'));
        expect(await s.webhooks.addWebhook(hook('all'))).toBe(true);
        expect(await s.webhooks.addWebhook(hook('all'))).toBe(false);
        await s.webhooks.addWebhook(hook('attrs', ['attribute']));
        await putParts(part('p1', 'One'));
        await putAttributes(attribute('colour'));
        expect((await s.webhooks.listWebhooks()).map((w) => [w.webhook_id, w.pending, w.types])).toEqual([['all', 2, null], ['attrs', 1, ['attribute']]]);
        const claimed = await s.webhooks.claimDeliveries(100, 1_000, 10);
        expect(claimed.map((c) => [c.webhook.webhook_id, c.changeNumber, c.change?.type, c.change?.id, c.attempts])).toEqual([
          ['all', 2, 'part', 'p1', 0], ['all', 3, 'attribute', 'colour', 0], ['attrs', 3, 'attribute', 'colour', 0],
        ]);
        expect(claimed[0]?.webhook.secret).toBe('whsec_0123456789abcdef');
        // Leased: not due again before the lease ends.
        expect(await s.webhooks.claimDeliveries(500, 2_000, 10)).toEqual([]);
        await s.webhooks.recordDelivery({ webhook_id: 'all', change: 2, attempt: 1, at: 600, status: 200, outcome: 'delivered', error: null });
        await s.webhooks.recordDelivery({ webhook_id: 'all', change: 3, attempt: 1, at: 601, status: 500, outcome: 'retry', error: 'HTTP 500', nextAttemptAt: 700 });
        const again = await s.webhooks.claimDeliveries(1_000, 3_000, 10);
        expect(again.map((c) => [c.webhook.webhook_id, c.changeNumber, c.attempts])).toEqual([['all', 3, 1], ['attrs', 3, 0]]);
        expect((await s.webhooks.deliveries('all', 10)).map((d) => [d.change, d.attempt, d.status, d.outcome, d.error])).toEqual([[3, 1, 500, 'retry', 'HTTP 500'], [2, 1, 200, 'delivered', null]]);
        expect(await s.webhooks.removeWebhook('all')).toBe(true);
        expect(await s.webhooks.removeWebhook('all')).toBe(false);
        expect(await s.webhooks.deliveries('all', 10)).toEqual([]);
        expect((await s.webhooks.listWebhooks()).map((w) => w.webhook_id)).toEqual(['attrs']);
      });
    });

    blobStoreTests(() => under.blobs);

    describe('durability across a reopen', () => {
      it('keeps every committed write', async () => {
        if (!under.reopen) return;
        await putAttributes(attribute('colour'));
        await putParts(part('p1', 'Durable pump', { colour: 'red' }));
        const blob = await under.blobs.put(new Uint8Array(Buffer.from('bytes')));
        await s.close();
        const again = await under.reopen();
        s = again.stores;
        expect((await s.catalog.getParts(['p1']))[0]?.name.en).toBe('Durable pump');
        expect(await search('durable')).toEqual(['p1']);
        expect(await again.blobs.has(blob.sha256)).toBe(true);
      });
    });
  });
}

/** The BlobStore part of the contract (durability rules), for any BlobStore; `blobs` gives the current test's store. */
function blobStoreTests(blobs: () => BlobStore): void {
  describe('BlobStore: durability', () => {
    const bytes = (text: string) => new Uint8Array(Buffer.from(text));

    it('stores by content address, once, and reads back exactly', async () => {
      const a = await blobs().put(bytes('hello'));
      const b = await blobs().put(Readable.from([Buffer.from('hel'), Buffer.from('lo')]));
      expect(a.sha256).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
      expect(b).toEqual(a);
      expect(a.size).toBe(5);
      expect(Buffer.from(a.head).toString()).toBe('hello');
      expect((await blobs().read(a.sha256))?.toString()).toBe('hello');
      expect(await blobs().has(a.sha256)).toBe(true);
      const opened = await blobs().open(a.sha256);
      expect(opened?.size).toBe(5);
      const chunks: Buffer[] = [];
      for await (const c of opened?.stream ?? []) chunks.push(Buffer.from(c as Uint8Array));
      expect(Buffer.concat(chunks).toString()).toBe('hello');
    });

    it('refuses content over maxBytes and stores nothing of it', async () => {
      await expect(blobs().put(bytes('0123456789'), { maxBytes: 4 })).rejects.toMatchObject({ name: 'BlobTooLargeError', maxBytes: 4 });
      const swept = await blobs().sweep(() => true);
      expect(swept.tempFilesRemoved).toBe(0);
    });

    it('deletes idempotently and sweeps only unreferenced blobs', async () => {
      const keep = await blobs().put(bytes('keep'));
      const drop = await blobs().put(bytes('drop'));
      const swept = await blobs().sweep((sha) => sha === keep.sha256);
      expect(swept.orphansRemoved).toBe(1);
      expect(await blobs().has(drop.sha256)).toBe(false);
      expect(await blobs().has(keep.sha256)).toBe(true);
      await blobs().delete(keep.sha256);
      await blobs().delete(keep.sha256);
      expect(await blobs().read(keep.sha256)).toBeUndefined();
      expect(await blobs().open(keep.sha256)).toBeUndefined();
    });

    it('rejects malformed keys', async () => {
      await expect(blobs().has('../etc/passwd')).rejects.toThrow(TypeError);
    });
  });
}

/** What a blob-only factory opens for one test: a fresh, empty BlobStore. */
export interface BlobStoreUnderTest {
  blobs: BlobStore;
  cleanup(): Promise<void>;
}

/** Registers only the BlobStore part of the contract suite, for blob stores chosen apart from the catalog's (object storage). */
export function describeBlobStoreContract(name: string, open: () => Promise<BlobStoreUnderTest>): void {
  describe(`blob store contract: ${name}`, () => {
    let under: BlobStoreUnderTest;
    beforeEach(async () => {
      under = await open();
    });
    afterEach(async () => {
      await under.cleanup();
    });
    blobStoreTests(() => under.blobs);
  });
}

