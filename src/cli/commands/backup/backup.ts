/**
 * `catalog backup <dir>` and `catalog restore <dir>` (docs/deploy.md "Backup and restore"): a
 * consistent copy of a local data directory taken while it is served, and its restore into a new
 * data directory; both verified. A PostgreSQL catalog is backed up with its own tools (pg_dump
 * and the bucket's versioning; docs/deploy.md): copying refuses --database-url, and
 * `catalog backup --verify-dump FILE` checks such a dump against the bucket instead.
 */
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import type { Invoke } from '../../runner.js';

function localOnly(ctx: CommandContext, verb: string): string {
  if (ctx.config.remote.value !== undefined) throw new UsageError(`catalog ${verb} works on a local data directory (run it on the server's machine), not with --remote`);
  if (ctx.config.databaseUrl.value !== undefined || ctx.config.blobUrl.value !== undefined) {
    throw new UsageError(`catalog ${verb} copies a local data directory; a PostgreSQL catalog is backed up with pg_dump and the bucket's versioning, and \`catalog backup --verify-dump FILE\` checks a dump against the bucket (docs/deploy.md "Backup and restore")`);
  }
  return resolve(ctx.io.cwd, ctx.config.dataDir.value);
}

/** Declares `catalog backup <dir>`. */
export function declareBackup(program: Command, invoke: Invoke): Command {
  return program
    .command('backup')
    .description('copy the local data directory into <dir> (new or empty) while it may be served: a consistent snapshot of the catalog and the image originals it references, verified; or, with --verify-dump, check a pg_dump of a PostgreSQL catalog against its image storage')
    .argument('[dir]')
    .option('--verify-dump <file>', 'check that every image original a pg_dump of the catalog (plain SQL, or an archive pg_restore reads) references is in the image storage (--blob-url, else the data directory) with its size; exit 3 when some are not')
    .action(async (dir: string | undefined, options: { verifyDump?: string }, command: Command) => {
      await invoke(command, (ctx) => {
        if (options.verifyDump !== undefined) {
          if (dir !== undefined) throw new UsageError('catalog backup takes either <dir> (copy a local data directory) or --verify-dump <file> (check a pg_dump), not both');
          return verifyDumpCommand(ctx, options.verifyDump);
        }
        if (dir === undefined) throw new UsageError('catalog backup needs <dir> (where to copy the local data directory), or --verify-dump <file> to check a pg_dump of a PostgreSQL catalog against its image storage');
        return backup(ctx, dir);
      });
    });
}

/** Declares `catalog restore <dir>`. */
export function declareRestore(program: Command, invoke: Invoke): Command {
  return program
    .command('restore')
    .description('verify the backup in <dir> and restore it into the data directory, which must not hold a catalog yet; verified again after')
    .argument('<dir>')
    .action(async (dir: string, _o: unknown, command: Command) => {
      await invoke(command, (ctx) => restore(ctx, dir));
    });
}

async function backup(ctx: CommandContext, dir: string): Promise<number> {
  const dataDir = localOnly(ctx, 'backup');
  const { backupDataDir, discardTemporary } = await import('../../../adapters/sqlite/backup.js');
  const target = resolve(ctx.io.cwd, dir);
  try {
    const manifest = await backupDataDir(dataDir, target);
    if (ctx.format === 'json' || ctx.format === 'ndjson') ctx.io.stdout.write(`${JSON.stringify(manifest)}\n`);
    const c = manifest.counts;
    ctx.info(`backed up ${dataDir} into ${target} at change ${manifest.change}: ${c.parts} parts, ${c.attributes} attributes, ${c.images} images (${c.blobs} originals), ${c.relations} relations, ${c.synonyms} synonym sets; verified`);
    return EXIT.OK;
  } catch (error) {
    await discardTemporary(target);
    throw error;
  }
}

async function verifyDumpCommand(ctx: CommandContext, file: string): Promise<number> {
  if (ctx.config.remote.value !== undefined) throw new UsageError('catalog backup --verify-dump reads the image storage directly (--blob-url, or the data directory), not with --remote');
  const dump = resolve(ctx.io.cwd, file);
  const blobUrl = ctx.config.blobUrl.value;
  let store;
  let where: string;
  let dispose = () => {};
  if (blobUrl !== undefined) {
    const { parseS3Url, S3BlobStore } = await import('../../../adapters/blobs/s3-blob-store.js');
    let location;
    try {
      location = parseS3Url(blobUrl);
    } catch (error) {
      throw new UsageError(`--blob-url: ${(error as Error).message}`);
    }
    const s3 = new S3BlobStore(location);
    store = s3;
    where = blobUrl;
    dispose = () => s3.client.destroy();
  } else {
    const { FileBlobStore } = await import('../../../adapters/blobs/file-blob-store.js');
    const { IMAGES_DIR } = await import('../../../open-catalog.js');
    where = join(resolve(ctx.io.cwd, ctx.config.dataDir.value), IMAGES_DIR);
    store = new FileBlobStore(where);
  }
  const { verifyDump } = await import('../../../adapters/postgres/verify-dump.js');
  let report;
  try {
    report = await verifyDump(dump, store);
  } finally {
    dispose();
  }
  if (ctx.format === 'json' || ctx.format === 'ndjson') ctx.io.stdout.write(`${JSON.stringify(report)}\n`);
  const head = `${dump}: ${report.images} images, ${report.blobs} originals`;
  if (report.problems.length === 0) {
    ctx.info(`${head}: all ${report.blobs} in ${where} with their sizes`);
    return EXIT.OK;
  }
  const shown = report.problems.slice(0, SHOWN);
  for (const p of shown) {
    ctx.io.stderr.write(p.problem === 'missing' ? `  missing: ${p.sha256} (${p.expectedSize} bytes)\n` : `  another size: ${p.sha256} (${p.actualSize} bytes stored, ${p.expectedSize} in the dump)\n`);
  }
  const more = report.missing + report.wrongSize - shown.length;
  if (more > 0) ctx.io.stderr.write(`  … and ${more} more\n`);
  ctx.io.stderr.write(`${head}: ${report.present} present in ${where}, ${report.missing} missing, ${report.wrongSize} with another size (restore their previous versions from the bucket's versioning)\n`);
  return EXIT.PARTIAL;
}

/** How many problem lines `--verify-dump` prints (the JSON report lists more; the counts are totals). */
const SHOWN = 20;

async function restore(ctx: CommandContext, dir: string): Promise<number> {
  const dataDir = localOnly(ctx, 'restore');
  const { restoreDataDir } = await import('../../../adapters/sqlite/backup.js');
  const manifest = await restoreDataDir(resolve(ctx.io.cwd, dir), dataDir);
  if (ctx.format === 'json' || ctx.format === 'ndjson') ctx.io.stdout.write(`${JSON.stringify(manifest)}\n`);
  ctx.info(`restored the backup of change ${manifest.change} (taken ${manifest.takenAt}) into ${dataDir}; verified`);
  return EXIT.OK;
}
