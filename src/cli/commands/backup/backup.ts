/**
 * `catalog backup <dir>` and `catalog restore <dir>` (docs/deploy.md "Backup and restore"): a
 * consistent copy of a local data directory taken while it is served, and its restore into a new
 * data directory; both verified. A PostgreSQL catalog is backed up with its own tools (pg_dump
 * and the bucket's versioning; docs/deploy.md), so both commands refuse --database-url.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import type { Invoke } from '../../runner.js';

function localOnly(ctx: CommandContext, verb: string): string {
  if (ctx.config.remote.value !== undefined) throw new UsageError(`catalog ${verb} works on a local data directory (run it on the server's machine), not with --remote`);
  if (ctx.config.databaseUrl.value !== undefined || ctx.config.blobUrl.value !== undefined) {
    throw new UsageError(`catalog ${verb} copies a local data directory; a PostgreSQL catalog is backed up with pg_dump and the bucket's versioning (docs/deploy.md "Backup and restore")`);
  }
  return resolve(ctx.io.cwd, ctx.config.dataDir.value);
}

/** Declares `catalog backup <dir>`. */
export function declareBackup(program: Command, invoke: Invoke): Command {
  return program
    .command('backup')
    .description('copy the local data directory into <dir> (new or empty) while it may be served: a consistent snapshot of the catalog and the image originals it references, verified')
    .argument('<dir>')
    .action(async (dir: string, _o: unknown, command: Command) => {
      await invoke(command, (ctx) => backup(ctx, dir));
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

async function restore(ctx: CommandContext, dir: string): Promise<number> {
  const dataDir = localOnly(ctx, 'restore');
  const { restoreDataDir } = await import('../../../adapters/sqlite/backup.js');
  const manifest = await restoreDataDir(resolve(ctx.io.cwd, dir), dataDir);
  if (ctx.format === 'json' || ctx.format === 'ndjson') ctx.io.stdout.write(`${JSON.stringify(manifest)}\n`);
  ctx.info(`restored the backup of change ${manifest.change} (taken ${manifest.takenAt}) into ${dataDir}; verified`);
  return EXIT.OK;
}
