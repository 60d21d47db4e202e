/**
 * Online backup and restore of a local data directory (docs/deploy.md "Backup and restore"):
 * catalog.db copied with `VACUUM INTO` — one read transaction, so a consistent snapshot at one
 * change number while servers and CLIs keep writing (WAL: they never wait for it; SQLite's
 * backup API instead restarts whenever another connection writes, and may never finish under
 * a steady write load) — then the image originals that snapshot references, each copied and its
 * SHA-256 checked. search sessions (sessions.db) are a cache and are not kept.
 *
 * A backup directory holds `catalog.db`, `images/blobs/ab/cd/<sha256>` (the layout of a data
 * directory) and `backup.json` (written last: a directory without it is not a backup).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CatalogError } from '../../api/errors.js';
import { openConnection, type SqliteDatabase } from './database.js';
import { DATABASE_FILE } from './stores.js';

/** The manifest of a backup (`backup.json`). */
export interface BackupManifest {
  format: 'catalog-backup/1';
  /** The catalog's identity (settings catalog_id), when it has one. */
  catalogId: string | null;
  /** The newest change number in the snapshot: the backup equals the catalog at this change. */
  change: number;
  /** When the snapshot was taken (ISO 8601). */
  takenAt: string;
  /** The schema version (user_version) of the snapshot. */
  schemaVersion: number;
  counts: { attributes: number; parts: number; images: number; relations: number; synonyms: number; blobs: number };
}

/** What a verification found; `problems` empty means the backup (or restored directory) is sound. */
export interface VerifyReport {
  manifest: BackupManifest | undefined;
  problems: string[];
}

const MANIFEST = 'backup.json';

/** Where a blob lives under a directory with a data directory's layout. */
function blobPath(root: string, sha256: string): string {
  return join(root, 'images', 'blobs', sha256.slice(0, 2), sha256.slice(2, 4), sha256);
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

function snapshotFacts(db: SqliteDatabase): Omit<BackupManifest, 'format' | 'takenAt'> & { blobs: string[] } {
  const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  const blobs = (db.prepare('SELECT DISTINCT sha256 FROM images ORDER BY sha256').all() as { sha256: string }[]).map((r) => r.sha256);
  const change = (db.prepare("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'changes'), 0) AS n").get() as { n: number }).n;
  const catalogId = (db.prepare("SELECT value FROM settings WHERE key = 'catalog_id'").get() as { value: string } | undefined)?.value ?? null;
  return {
    catalogId,
    change,
    schemaVersion: db.pragma('user_version', { simple: true }) as number,
    counts: { attributes: count('attributes'), parts: count('parts'), images: count('images'), relations: count('part_relations'), synonyms: count('synonyms'), blobs: blobs.length },
    blobs,
  };
}

/**
 * Backs up the data directory `dataDir` into `target` (which must not exist or be empty), while
 * others may write. Returns the manifest.
 *
 * @throws CatalogError bad_request when `target` is not empty, `dataDir` holds no catalog, a referenced blob is
 *   missing from the data directory (deleted after the snapshot: run it again) or the result
 *   fails verification.
 */
export async function backupDataDir(dataDir: string, target: string, now: () => Date = () => new Date()): Promise<BackupManifest> {
  const source = join(resolve(dataDir), DATABASE_FILE);
  if (!existsSync(source)) throw new CatalogError('not_found', `${dataDir} holds no catalog (no ${DATABASE_FILE}): nothing to back up`);
  await assertEmpty(target);
  await mkdir(target, { recursive: true });
  const snapshot = join(target, `${DATABASE_FILE}.${randomBytes(6).toString('hex')}.tmp`);
  const db = openConnection(source);
  try {
    db.pragma('busy_timeout = 30000');
    db.prepare('VACUUM INTO ?').run(snapshot);
  } finally {
    db.close();
  }
  const copy = openConnection(snapshot);
  let facts;
  try {
    facts = snapshotFacts(copy);
  } finally {
    copy.close();
  }
  await rename(snapshot, join(target, DATABASE_FILE));
  for (const sha256 of facts.blobs) {
    const from = blobPath(resolve(dataDir), sha256);
    if (!existsSync(from)) throw new CatalogError('gone', `the original ${sha256} of an image in the snapshot is gone from ${dataDir} (its image was deleted meanwhile): run the backup again`);
    const to = blobPath(target, sha256);
    await mkdir(dirname(to), { recursive: true });
    await copyFile(from, `${to}.tmp`);
    await rename(`${to}.tmp`, to);
  }
  const { blobs: _blobs, ...rest } = facts;
  const manifest: BackupManifest = { format: 'catalog-backup/1', takenAt: now().toISOString(), ...rest };
  const report = await verifyDirectory(target, manifest);
  if (report.problems.length > 0) throw new CatalogError('internal', `the backup in ${target} failed verification: ${report.problems.join('; ')}`);
  await writeFile(join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Checks a directory with a data directory's layout against `expected` (a manifest): SQLite's
 * integrity and foreign-key checks, the counts, and every referenced original present with its
 * SHA-256. Returns the problems found (none: sound).
 */
export async function verifyDirectory(dir: string, expected: BackupManifest | undefined): Promise<VerifyReport> {
  const problems: string[] = [];
  const path = join(dir, DATABASE_FILE);
  if (!existsSync(path)) return { manifest: expected, problems: [`no ${DATABASE_FILE} in ${dir}`] };
  const db = openConnection(path);
  let facts;
  try {
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    if (integrity.join() !== 'ok') problems.push(`integrity check: ${integrity.slice(0, 5).join('; ')}`);
    const foreign = db.pragma('foreign_key_check') as unknown[];
    if (foreign.length > 0) problems.push(`${foreign.length} rows break a foreign key`);
    facts = snapshotFacts(db);
  } finally {
    db.close();
  }
  if (expected !== undefined) {
    if (facts.change !== expected.change) problems.push(`change number ${facts.change}, expected ${expected.change}`);
    for (const [name, n] of Object.entries(expected.counts) as [keyof BackupManifest['counts'], number][]) {
      if (facts.counts[name] !== n) problems.push(`${facts.counts[name]} ${name}, expected ${n}`);
    }
  }
  for (const sha256 of facts.blobs) {
    const blob = blobPath(dir, sha256);
    if (!existsSync(blob)) problems.push(`original ${sha256} is missing`);
    else if ((await sha256Of(blob)) !== sha256) problems.push(`original ${sha256} does not match its SHA-256`);
  }
  return { manifest: expected, problems };
}

/** Reads and checks a backup directory (its manifest, then {@link verifyDirectory}). */
export async function verifyBackup(dir: string): Promise<VerifyReport> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as BackupManifest;
  } catch {
    return { manifest: undefined, problems: [`${dir} is not a complete backup (no readable ${MANIFEST})`] };
  }
  if (manifest.format !== 'catalog-backup/1') return { manifest, problems: [`${join(dir, MANIFEST)} is not a catalog backup manifest`] };
  return verifyDirectory(dir, manifest);
}

/**
 * Restores the backup in `backup` into the data directory `dataDir`, which must not hold a
 * catalog: the backup is verified first, copied, and the copy verified again. Returns the manifest.
 *
 * @throws CatalogError bad_request when the backup fails verification, `dataDir` holds a catalog, or the copy fails verification.
 */
export async function restoreDataDir(backup: string, dataDir: string): Promise<BackupManifest> {
  const checked = await verifyBackup(backup);
  if (checked.problems.length > 0 || checked.manifest === undefined) throw new CatalogError('bad_request', `the backup in ${backup} cannot be restored: ${checked.problems.join('; ')}`);
  if (existsSync(join(dataDir, DATABASE_FILE))) throw new CatalogError('bad_request', `${dataDir} holds a catalog already: restore into a new data directory (then swap the directories while nothing serves them)`);
  await mkdir(join(dataDir, 'images', 'blobs'), { recursive: true });
  const blobs = join(backup, 'images', 'blobs');
  for (const a of existsSync(blobs) ? await readdir(blobs) : []) {
    for (const b of await readdir(join(blobs, a))) {
      for (const name of await readdir(join(blobs, a, b))) {
        const to = blobPath(dataDir, name);
        await mkdir(dirname(to), { recursive: true });
        await copyFile(join(blobs, a, b, name), to);
      }
    }
  }
  const tmp = join(dataDir, `${DATABASE_FILE}.restoring`);
  await copyFile(join(backup, DATABASE_FILE), tmp);
  await rename(tmp, join(dataDir, DATABASE_FILE));
  const report = await verifyDirectory(dataDir, checked.manifest);
  if (report.problems.length > 0) throw new CatalogError('internal', `the restored catalog in ${dataDir} failed verification: ${report.problems.join('; ')}`);
  return checked.manifest;
}

async function assertEmpty(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (entries.length > 0) throw new CatalogError('bad_request', `${dir} is not empty: back up into a new or empty directory`);
}

/** Removes a half-written backup directory's temporary files (after a failure). */
export async function discardTemporary(dir: string): Promise<void> {
  for (const name of existsSync(dir) ? await readdir(dir) : []) if (name.endsWith('.tmp')) await rm(join(dir, name), { force: true });
}
