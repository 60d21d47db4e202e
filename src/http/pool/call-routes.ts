/**
 * Where each service call of `catalog serve`'s pooled catalog runs (pooled-catalog.ts). Every public
 * method of every pooled service is classified, and the compiler checks it: a method added to a
 * service without a place here does not type-check, so nothing runs on the main thread by omission.
 *
 * - `write`: on the one writer thread (SQLite has one writer at a time; one thread keeps writes in
 *   arrival order without lock waits).
 * - `read`: on a reader thread (WAL lets readers read while the writer writes).
 * - `main`: on the main thread, with the reason: what is cheap, what streams or holds files, what
 *   is the main thread's own state, and what the pooled catalog schedules itself (`scheduled`).
 */
import type { CatalogService } from '../../core/catalog/service.js';
import type { ImageService } from '../../core/images/service.js';
import type { RelationService } from '../../core/relations/service.js';
import type { SearchService } from '../../core/search/service.js';
import type { PooledServiceName } from './protocol.js';

/** Where one call runs. */
export type CallRoute = 'write' | 'read' | { main: string };

/** The names of `T`'s public methods. */
type PublicMethods<T> = { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T];

const CHEAP = { main: 'cheap: one indexed row or in-memory state' };
const OWN_STATE = { main: "the main thread's own state (its sessions, its timers, its connections)" };
const SCHEDULED = { main: 'scheduled by the pooled catalog itself: on the main thread within its postings, else on a reader' };
const STEP = { main: "a step of a search the pool runs itself (main-thread-search.ts, answer-early.ts), on that search's thread" };

const SERVICE: Record<PublicMethods<CatalogService>, CallRoute> = {
  authenticate: { main: 'cheap: one indexed row or in-memory state; its last-used write (at most once a minute a token) never waits for the lock' },
  createToken: { main: 'rare, one row; the secret never crosses a thread' },
  listTokens: CHEAP,
  rotateToken: { main: 'rare, one row; the new secret never crosses a thread' },
  revokeToken: { main: 'rare, one row' },
  countTokens: CHEAP,
  getMaintenance: CHEAP,
  setMaintenance: { main: 'one row; every thread reads it through its own connection' },
  getCatalogInfo: CHEAP,
  describeToken: CHEAP,
  assertWritable: CHEAP,
  viewContext: CHEAP,
  getPart: { main: 'one indexed row: the hop to a thread costs more than the read' },
  upsertAttributes: 'write',
  deleteAttributes: 'write',
  upsertParts: 'write',
  upsertValidatedParts: 'write',
  upsertPartBatches: 'write',
  deleteParts: 'write',
  upsertOrganizations: 'write',
  upsertSynonyms: 'write',
  deleteSynonyms: 'write',
  listAttributes: 'read',
  selectAttributes: 'read',
  listParts: 'read',
  selectParts: 'read',
  listOrganizations: 'read',
  listSynonyms: 'read',
  close: OWN_STATE,
};

const RELATIONS: Record<PublicMethods<RelationService>, CallRoute> = {
  createRelations: 'write',
  listRelations: 'read',
  getRelations: 'read',
};

const SEARCH: Record<PublicMethods<SearchService>, CallRoute> = {
  search: SCHEDULED,
  searchState: SCHEDULED,
  planTextSearch: STEP,
  rankPlan: STEP,
  rankPlanWithin: STEP,
  answerPlan: STEP,
  readSnapshot: STEP,
  facetValues: 'read',
  getRanking: CHEAP,
  setRanking: 'write',
  storeSessions: OWN_STATE,
  flushSessions: OWN_STATE,
  purgeExpired: OWN_STATE,
  warm: OWN_STATE,
  sampleNames: STEP,
  prepareImageSearch: { main: 'image search runs on the main thread (its decodes already run in a bounded pool)' },
  close: OWN_STATE,
};

const UPLOAD_STEP = { main: "a step of an upload the HTTP route drives as the body streams in: this thread's blob gate and photo index" };
const FILES = { main: "streams or decodes stored files, or keeps this thread's blob gate and photo index" };
const IMAGE_ROWS = { main: "a few image rows through this thread's own connection" };

const IMAGES: Record<PublicMethods<ImageService>, CallRoute> = {
  beginUpload: UPLOAD_STEP,
  uploadImages: UPLOAD_STEP,
  storeFile: UPLOAD_STEP,
  features: UPLOAD_STEP,
  // The upload's metadata: in arrival order with the other writes, in their transactions, so no
  // upload takes a turn at the write lock of its own.
  writeUploadedImages: 'write',
  deleteImages: FILES,
  listImages: IMAGE_ROWS,
  selectImages: IMAGE_ROWS,
  getImage: IMAGE_ROWS,
  openOriginal: FILES,
  displayImages: IMAGE_ROWS,
  shownImagesOf: IMAGE_ROWS,
  auditImages: FILES,
  thumbnail: FILES,
  sweepOrphans: FILES,
  close: OWN_STATE,
};

/** Every pooled service's calls and where they run. */
export const CALL_ROUTES: Readonly<Record<PooledServiceName, Readonly<Record<string, CallRoute>>>> = { service: SERVICE, relations: RELATIONS, search: SEARCH, images: IMAGES };

/** The methods of `service` that run on a thread of `kind`. */
export function methodsRunOn(service: PooledServiceName, kind: 'read' | 'write'): string[] {
  return Object.entries(CALL_ROUTES[service]).filter(([, route]) => route === kind).map(([method]) => method);
}
