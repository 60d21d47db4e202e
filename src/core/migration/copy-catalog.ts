/**
 * `catalog migrate` (docs/deploy.md, "Moving a local catalog"): copies one catalog's
 * stores and image originals into another store set (a data directory into PostgreSQL and S3),
 * resumably, then verifies that both hold the same thing. Works on the ports only, so any pair of
 * store sets qualifies; the CLI opens them (src/cli/commands/migrate/migrate.ts).
 *
 * Rules:
 * - The target must be empty, or hold a migration of the SAME source (its `migration` setting names
 *   the source's catalog id): anything else is refused before a single write.
 * - The target takes the source's identity (`catalog_id`): it is the same catalog, moved, so import
 *   checkpoints and clients bound to it keep working. It stays in maintenance mode (no server on it
 *   accepts writes) until the copy is verified; then it gets the source's maintenance state.
 * - Phases in a fixed order (attributes in creation order, organizations parents first, parts,
 *   relations, images, tokens, settings with the synonym sets), each in batches; after each committed batch the position
 *   is saved in the target's `migration` setting. A rerun continues from there; a batch written but
 *   not yet recorded is written again, identically (every write is an upsert by id of the source's
 *   stored form, timestamps and service ids included), so nothing is duplicated or skipped.
 * - Images: the original's bytes first (content-addressed, verified against the recorded hash), then
 *   the metadata with the stored search features (the durability rule of decisions §4).
 * - Tokens are copied as stored: names, roles, organizations, scopes, expiry and last use, and the SHA-256 hashes of their secrets (never a secret).
 */
import { createHash } from 'node:crypto';
import type { Attribute, Organization, SynonymSet } from '../../api/schemas.js';
import type { StoredImage, StoredPart, StoredRelation, StoredToken } from '../model.js';
import type { BlobStore, CatalogStores } from '../ports.js';

/** One end of a migration: the stores and the blob store of one catalog. */
export interface MigrationEnd {
  stores: CatalogStores;
  blobs: BlobStore;
  /** Whether `blobs` is the very store of the other end (images stay where they are). */
  sharedBlobs?: boolean;
}

/** The phases, in order. */
export const MIGRATION_PHASES = ['attributes', 'organizations', 'parts', 'relations', 'images', 'tokens', 'settings', 'verify'] as const;
export type MigrationPhase = (typeof MIGRATION_PHASES)[number];

/** What a migration reports as it goes. */
export interface MigrationProgress {
  phase: MigrationPhase;
  /** Items of this phase copied (or checked) so far, this run and earlier runs. */
  done: number;
  /** Items of this phase in the source. */
  total: number;
}

/** The saved position (target setting `migration`, JSON). */
interface MigrationState {
  source: string;
  phase: MigrationPhase | 'done';
  /** Items of the phase done (attributes, organizations, tokens, settings) … */
  done: number;
  /** … or the keyset position (parts, images: an id; relations: a pair as JSON). */
  after: string | null;
}

/** One difference found by verification. */
export interface MigrationDifference {
  what: string;
  detail: string;
}

/** The outcome of {@link copyCatalog}. */
export interface MigrationResult {
  /** The catalog id both ends now carry. */
  catalogId: string;
  /** True when an earlier, interrupted run was continued. */
  resumed: boolean;
  /** Items per kind in the source (and, when `differences` is empty, in the target). */
  counts: Record<'attributes' | 'organizations' | 'parts' | 'relations' | 'images' | 'tokens' | 'settings' | 'synonyms', number>;
  /** Empty when the target holds exactly what the source holds. */
  differences: MigrationDifference[];
}

/** Thrown when the target holds something other than an interrupted migration of this source. */
export class MigrationTargetError extends Error {
  override name = 'MigrationTargetError';
}

/** Thrown when `signal` aborted the copy; the position is saved, a rerun continues. */
export class MigrationInterrupted extends Error {
  override name = 'MigrationInterrupted';
  constructor(readonly phase: MigrationPhase) {
    super(`interrupted during ${phase}`);
  }
}

/** Options of {@link copyCatalog}. */
export interface CopyOptions {
  /** Checked between batches: when aborted, the position is saved and MigrationInterrupted thrown. */
  signal?: AbortSignal;
  onProgress?: (progress: MigrationProgress) => void;
  /** Items per batch (default 500; images: a tenth of it). */
  batchSize?: number;
  /** A new catalog id for the source when it has none yet (it gets one the first time it is asked). */
  newCatalogId: () => string;
}

/** Settings keys with a meaning of their own in a migration. */
const CATALOG_ID = 'catalog_id';
const MAINTENANCE = 'maintenance';
const STATE = 'migration';
/** The synonym sets' change marker (adapters' catalog stores bump it with every synonym write). */
const SYNONYMS_VERSION = 'synonyms_version';

const write = <T>(value: T) => ({ kind: 'write' as const, value, created: true });

/**
 * Copies `source` into `target` (see the module doc), verifies, and returns the counts and the
 * differences (none when the copy is faithful). Throws MigrationTargetError for a target it may not
 * write, MigrationInterrupted when `options.signal` aborts, and a store's or blob store's error as is
 * (the position of the last finished batch is saved: rerun to continue).
 */
export async function copyCatalog(source: MigrationEnd, target: MigrationEnd, options: CopyOptions): Promise<MigrationResult> {
  const batch = options.batchSize ?? 500;
  const src = source.stores;
  const dst = target.stores;
  const catalogId = (await src.catalog.getSetting(CATALOG_ID)) ?? (await src.catalog.initSetting(CATALOG_ID, options.newCatalogId()));

  // -- the target: empty, or a migration of this source -------------------------------------
  const saved = await dst.catalog.getSetting(STATE);
  let state: MigrationState;
  let resumed = false;
  if (saved !== undefined) {
    const parsed = JSON.parse(saved) as MigrationState;
    if (parsed.source !== catalogId) {
      throw new MigrationTargetError(`the target holds a migration of another catalog (${parsed.source}), not of this one (${catalogId}); migrate into an empty database or schema`);
    }
    state = parsed;
    resumed = true;
  } else {
    const holds = await contents(target);
    if (holds.length > 0) throw new MigrationTargetError(`the target is not empty (it holds ${holds.join(', ')}); migrate into an empty database or schema`);
    state = { source: catalogId, phase: 'attributes', done: 0, after: null };
    // No server on the target accepts writes until the copy is verified.
    await dst.catalog.setSetting(MAINTENANCE, 'on');
    await dst.catalog.setSetting(CATALOG_ID, catalogId);
    await dst.catalog.setSetting(STATE, JSON.stringify(state));
  }

  const save = async (next: Partial<MigrationState>) => {
    state = { ...state, ...next };
    await dst.catalog.setSetting(STATE, JSON.stringify(state));
  };
  const at = (phase: MigrationPhase) => state.phase !== 'done' && MIGRATION_PHASES.indexOf(state.phase) <= MIGRATION_PHASES.indexOf(phase);
  const checkSignal = (phase: MigrationPhase) => {
    if (options.signal?.aborted) throw new MigrationInterrupted(phase);
  };
  const report = (phase: MigrationPhase, done: number, total: number) => options.onProgress?.({ phase, done, total });
  const enter = async (phase: MigrationPhase) => {
    if (state.phase !== phase) await save({ phase, done: 0, after: null });
  };

  const attributes = await src.catalog.allAttributes();
  const organizations = parentsFirst(await src.catalog.allOrganizations());
  const tokens = (await src.catalog.listTokens()).sort((x, y) => compare(x.name, y.name));
  // synonyms_version is the target's own change marker for its synonym sets (its readers cache by it): not copied.
  const settings = [...(await src.catalog.allSettings())].filter(([key]) => key !== CATALOG_ID && key !== MAINTENANCE && key !== STATE && key !== SYNONYMS_VERSION);
  const synonyms = [...(await src.catalog.allSynonyms())];
  const partCount = await countKeyset((page) => src.catalog.listParts(page), (p) => p.part_id);
  const imageCount = await countKeyset((page) => src.images.listImages(page, undefined), (i) => i.image_id);
  const relationCount = await countRelations(source);
  const counts = { attributes: attributes.length, organizations: organizations.length, parts: partCount, relations: relationCount, images: imageCount, tokens: tokens.length, settings: settings.length, synonyms: synonyms.length };

  /** Copies a list read up front in batches, resuming after the `state.done` items already copied. */
  const copyList = async <T>(phase: MigrationPhase, items: readonly T[], upsert: (batch: T[]) => Promise<unknown>) => {
    if (!at(phase)) return;
    await enter(phase);
    for (let i = state.done; i < items.length; i += batch) {
      checkSignal(phase);
      const slice = items.slice(i, i + batch);
      await upsert(slice);
      await save({ done: i + slice.length });
      report(phase, i + slice.length, items.length);
    }
  };

  // -- attributes, in creation order (their display-order fallback) ----------------------------
  await copyList('attributes', attributes, (items) => dst.catalog.upsertAttributes(items, (item) => write(item)));

  // -- organizations, parents before their children --------------------------------------------
  await copyList('organizations', organizations, (items) => dst.catalog.upsertOrganizations(items, (item) => write(item)));

  // -- parts (with every value, per-organization values included) ------------------------------
  if (at('parts')) {
    await enter('parts');
    let done = state.done;
    for (;;) {
      checkSignal('parts');
      const parts = await src.catalog.listParts({ after: state.after ?? undefined, limit: batch });
      if (parts.length === 0) break;
      const decisions = await dst.catalog.upsertParts(parts, (item: StoredPart) => write(item));
      assertWritten(decisions, parts.map((p) => p.part_id), 'part');
      done += parts.length;
      await save({ after: parts[parts.length - 1]!.part_id, done });
      report('parts', done, partCount);
    }
  }

  // -- relations -------------------------------------------------------------------------------
  if (at('relations')) {
    await enter('relations');
    let done = state.done;
    for (;;) {
      checkSignal('relations');
      const after = state.after === null ? undefined : (JSON.parse(state.after) as { anchor_part_id: string; related_part_id: string });
      const relations = await src.relations.listRelations(after, batch);
      if (relations.length === 0) break;
      const { missing } = await dst.relations.writeRelations(relations);
      if (missing.length > 0) throw new Error(`relations name parts missing from the target: ${missing.slice(0, 5).join(', ')}`);
      const last = relations[relations.length - 1]!;
      done += relations.length;
      await save({ after: JSON.stringify({ anchor_part_id: last.anchor_part_id, related_part_id: last.related_part_id }), done });
      report('relations', done, relationCount);
    }
  }

  // -- images: the original first, then the metadata and features ------------------------------
  if (at('images')) {
    await enter('images');
    if (!src.references.featuresOf) throw new Error('the source store cannot read stored image features');
    let done = state.done;
    const imageBatch = Math.max(1, Math.floor(batch / 10));
    for (;;) {
      checkSignal('images');
      const images = await src.images.listImages({ after: state.after ?? undefined, limit: imageBatch }, undefined);
      if (images.length === 0) break;
      if (!target.sharedBlobs) {
        for (const image of images) await copyBlob(source.blobs, target.blobs, image);
      }
      const features = await src.references.featuresOf(images.map((i) => i.image_id));
      const decisions = await dst.images.upsertImages(images, (item: StoredImage, _existing, partExists) =>
        partExists ? write({ image: item, features: features.get(item.image_id) ?? null }) : { kind: 'error' as const, messages: [`part '${item.part_id}' is missing from the target`] },
      );
      assertWritten(decisions, images.map((i) => i.image_id), 'image');
      done += images.length;
      await save({ after: images[images.length - 1]!.image_id, done });
      report('images', done, imageCount);
    }
  }

  // -- tokens (hashes as stored) and settings ---------------------------------------------------
  if (at('tokens')) {
    await enter('tokens');
    const present = new Set((await dst.catalog.listTokens()).map((t) => t.name));
    for (const token of tokens) if (!present.has(token.name)) await dst.catalog.createToken(token);
    await save({ done: tokens.length });
    report('tokens', tokens.length, tokens.length);
  }
  if (at('settings')) {
    await enter('settings');
    // Synonym sets (at most MAX_SYNONYM_SETS): upserts by id, so a rerun writes them again identically.
    for (let i = 0; i < synonyms.length; i += batch) {
      const items = synonyms.slice(i, i + batch);
      assertWritten(await dst.catalog.upsertSynonyms(items, (item) => write(item)), items.map((x) => x.synonym_id), 'synonym set');
    }
    for (const [key, value] of settings) await dst.catalog.setSetting(key, value);
    await save({ done: settings.length });
    report('settings', settings.length, settings.length);
  }

  // -- verify: counts and content, item by item ------------------------------------------------
  await enter('verify');
  checkSignal('verify');
  const differences = await verify(source, target, { attributes, organizations, tokens, settings, synonyms, counts, catalogId }, (done, total) => {
    report('verify', done, total);
    // Verification reads everything twice: Ctrl-C stops it too (the next run verifies from the start).
    checkSignal('verify');
  });
  if (differences.length === 0) {
    // Verified: the target now answers like the source, maintenance state included.
    await dst.catalog.setSetting(MAINTENANCE, (await src.catalog.getSetting(MAINTENANCE)) ?? 'off');
    await save({ phase: 'done', done: 0, after: null });
  } else {
    // The next run copies everything again (every write is idempotent) and verifies once more.
    await save({ phase: 'attributes', done: 0, after: null });
  }
  return { catalogId, resumed, counts, differences };
}

/** What a target holds, by kind ("3 parts", ...); empty when it holds nothing of a catalog. */
async function contents(end: MigrationEnd): Promise<string[]> {
  const { catalog, images, relations } = end.stores;
  const found: string[] = [];
  if ((await catalog.listAttributes({ after: undefined, limit: 1 })).length > 0) found.push('attributes');
  if ((await catalog.listOrganizations({ after: undefined, limit: 1 })).length > 0) found.push('organizations');
  if ((await catalog.listParts({ after: undefined, limit: 1 })).length > 0) found.push('parts');
  if ((await relations.listRelations(undefined, 1)).length > 0) found.push('relations');
  if ((await images.listImages({ after: undefined, limit: 1 }, undefined)).length > 0) found.push('images');
  if ((await catalog.countTokens()) > 0) found.push('tokens');
  return found;
}

/** Copies one image's original unless the target has it; the bytes must hash to the recorded key. */
async function copyBlob(from: BlobStore, to: BlobStore, image: StoredImage): Promise<void> {
  if (await to.has(image.sha256)) return;
  const opened = await from.open(image.sha256);
  if (!opened) throw new Error(`the original of image '${image.image_id}' (blob ${image.sha256}) is missing from the source's image store`);
  const put = await to.put(opened.stream as AsyncIterable<Uint8Array>);
  if (put.sha256 !== image.sha256) {
    await to.delete(put.sha256);
    throw new Error(`the original of image '${image.image_id}' does not match its recorded hash (${image.sha256}, read ${put.sha256}): the source's file is damaged`);
  }
}

function assertWritten(decisions: readonly { kind: string; messages?: string[] }[], ids: readonly string[], what: string): void {
  decisions.forEach((d, i) => {
    if (d.kind === 'error') throw new Error(`${what} '${ids[i]}' was refused by the target: ${(d.messages ?? []).join('; ')}`);
  });
}

/** Organizations with every parent before its children (a parent must exist when a child names it). */
function parentsFirst(all: Map<string, Organization>): Organization[] {
  const out: Organization[] = [];
  const placed = new Set<string>();
  const place = (org: Organization, path: Set<string>) => {
    if (placed.has(org.org_id) || path.has(org.org_id)) return;
    path.add(org.org_id);
    const parent = org.parent_id === null ? undefined : all.get(org.parent_id);
    if (parent) place(parent, path);
    placed.add(org.org_id);
    out.push(org);
  };
  for (const org of [...all.values()].sort((x, y) => compare(x.org_id, y.org_id))) place(org, new Set());
  return out;
}

function compare(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

async function countKeyset<T>(list: (page: { after: string | undefined; limit: number }) => Promise<T[]>, id: (item: T) => string): Promise<number> {
  let n = 0;
  let after: string | undefined;
  for (;;) {
    const page = await list({ after, limit: 1000 });
    if (page.length === 0) return n;
    n += page.length;
    after = id(page[page.length - 1]!);
  }
}

async function countRelations(end: MigrationEnd): Promise<number> {
  let n = 0;
  let after: StoredRelation | undefined;
  for (;;) {
    const page = await end.stores.relations.listRelations(after, 1000);
    if (page.length === 0) return n;
    n += page.length;
    after = page[page.length - 1];
  }
}

/** SHA-256 of a value's JSON (verification compares these, never prints secrets' hashes). */
function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v))).digest('hex');
}

interface Expected {
  attributes: Attribute[];
  organizations: Organization[];
  tokens: StoredToken[];
  settings: [string, string][];
  synonyms: SynonymSet[];
  counts: MigrationResult['counts'];
  catalogId: string;
}

/**
 * Compares both ends kind by kind: counts, then every item's content (same order on both sides,
 * so the first item that differs is named). Image originals: present in the target under their
 * content hash (a copy was checked against it when written).
 */
async function verify(source: MigrationEnd, target: MigrationEnd, expected: Expected, progress: (done: number, total: number) => void): Promise<MigrationDifference[]> {
  const differences: MigrationDifference[] = [];
  const dst = target.stores;
  const total = Object.values(expected.counts).reduce((a, b) => a + b, 0);
  let done = 0;
  const tick = (n: number) => progress((done += n), total);

  const sameList = <T>(what: string, from: T[], to: T[], id: (item: T) => string) => {
    if (from.length !== to.length) differences.push({ what, detail: `${from.length} in the source, ${to.length} in the target` });
    const first = from.findIndex((item, i) => to[i] === undefined || digest(item) !== digest(to[i]));
    if (from.length === to.length && first >= 0) differences.push({ what, detail: `content differs, first at '${id(from[first]!)}'` });
    tick(from.length);
  };
  sameList('attributes', expected.attributes, await dst.catalog.allAttributes(), (a) => a.attribute_id);
  sameList('organizations', sortById(expected.organizations), sortById([...(await dst.catalog.allOrganizations()).values()]), (o) => o.org_id);
  // A token's last use is when it was last used, on either end: not part of what is copied.
  const withoutUse = (tokens: StoredToken[]) => tokens.map((t) => ({ ...t, lastUsedAt: null }));
  sameList('tokens', withoutUse(expected.tokens), withoutUse((await dst.catalog.listTokens()).sort((x, y) => compare(x.name, y.name))), (t) => t.name);
  sameList('synonyms', expected.synonyms, [...(await dst.catalog.allSynonyms())], (x) => x.synonym_id);
  const targetSettings = await dst.catalog.allSettings();
  const settingDiff = expected.settings.find(([key, value]) => targetSettings.get(key) !== value);
  if (settingDiff) differences.push({ what: 'settings', detail: `'${settingDiff[0]}' differs` });
  if (targetSettings.get(CATALOG_ID) !== expected.catalogId) differences.push({ what: 'settings', detail: `the target's catalog id is ${targetSettings.get(CATALOG_ID) ?? 'unset'}, not ${expected.catalogId}` });

  // Parts, relations and images in keyset order on both ends, page by page.
  const pages = async <T>(what: string, list: (end: MigrationEnd, after: T | undefined) => Promise<T[]>, id: (item: T) => string, extra?: (from: T[], to: T[]) => Promise<string | undefined>) => {
    let after: T | undefined;
    let n = 0;
    let m = 0;
    let firstDiff: string | undefined;
    let afterTarget: T | undefined;
    for (;;) {
      const from = await list(source, after);
      const to = await list(target, afterTarget);
      n += from.length;
      m += to.length;
      if (firstDiff === undefined) {
        const i = from.findIndex((item, k) => to[k] === undefined || digest(item) !== digest(to[k]));
        if (i >= 0) firstDiff = id(from[i]!);
        else if (to.length > from.length) firstDiff = id(to[from.length]!);
        if (firstDiff === undefined && extra) firstDiff = await extra(from, to);
      }
      tick(from.length);
      if (from.length === 0 && to.length === 0) break;
      after = from[from.length - 1] ?? after;
      afterTarget = to[to.length - 1] ?? afterTarget;
    }
    if (n !== m) differences.push({ what, detail: `${n} in the source, ${m} in the target` });
    else if (firstDiff !== undefined) differences.push({ what, detail: `content differs, first at '${firstDiff}'` });
  };
  await pages<StoredPart>('parts', (end, after) => end.stores.catalog.listParts({ after: after?.part_id, limit: 500 }), (p) => p.part_id);
  await pages<StoredRelation>('relations', (end, after) => end.stores.relations.listRelations(after, 1000), (r) => `${r.anchor_part_id} ${r.related_part_id}`);
  await pages<StoredImage>('images', (end, after) => end.stores.images.listImages({ after: after?.image_id, limit: 100 }, undefined), (i) => i.image_id, async (from) => {
    const ids = from.map((i) => i.image_id);
    const [a, b] = await Promise.all([source.stores.references.featuresOf?.(ids), dst.references.featuresOf?.(ids)]);
    for (const image of from) {
      const fa = a?.get(image.image_id);
      const fb = b?.get(image.image_id);
      if ((fa === undefined) !== (fb === undefined) || (fa && fb && digest(fa) !== digest(fb))) return `${image.image_id} (search features)`;
      if (!(await target.blobs.has(image.sha256))) return `${image.image_id} (original ${image.sha256} missing)`;
    }
    return undefined;
  });
  return differences;
}

function sortById(orgs: Organization[]): Organization[] {
  return [...orgs].sort((x, y) => compare(x.org_id, y.org_id));
}
