/**
 * `catalog migrate --to postgres://… [--blob-url s3://…]` (docs/deploy.md, "Moving a local
 * catalog"): copies the local data directory's catalog into PostgreSQL (and its image originals into
 * S3), resumably, and verifies counts and content at the end (core/migration/copy-catalog.ts).
 * Progress on a terminal only; Ctrl-C saves the position, prints the command to continue, exits 130.
 */
import type { Command } from 'commander';
import { commandLine } from '../../command-line.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import type { Invoke } from '../../runner.js';

interface MigrateFlags {
  to?: string;
  batchSize?: number;
}

/** Declares `catalog migrate` on the program. */
export function declare(program: Command, invoke: Invoke): Command {
  return program
    .command('migrate')
    .description('copy the local data directory (SQLite and image files) into PostgreSQL and S3-compatible storage (--blob-url), resumably, verified at the end')
    .option('--to <url>', 'the target catalog database: postgres://user:password@host:5432/db (empty, or an interrupted migrate of this catalog)')
    .option('--batch-size <n>', 'items per transaction (default 500; images: a tenth)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new UsageError(`--batch-size must be an integer from 1 to 10000, got '${v}'`);
      return n;
    })
    .action(async (_o: unknown, command: Command) => {
      const flags = command.opts<MigrateFlags>();
      await invoke(command, (ctx) => run(ctx, flags, command));
    });
}

/** `url` without its password (node-postgres takes it from PGPASSWORD or ~/.pgpass instead). */
function withoutPassword(url: string): string {
  const u = new URL(url);
  if (u.password === '') return url;
  u.password = '';
  return u.toString();
}

/** The command to run again, the password of --to left out (a printed command never holds a secret). */
function again(command: Command, ctx: CommandContext, to: string): string {
  const note = withoutPassword(to) !== to ? '\n  (the password is left out: set PGPASSWORD or use ~/.pgpass, or put it back in --to)' : '';
  return `${commandLine(command, ctx, { set: { to: withoutPassword(to) } })}${note}`;
}

/** Where the target is, for messages: host and database only (never a password). */
function describeTarget(url: string, blobUrl: string | undefined): string {
  const u = new URL(url);
  return `PostgreSQL ${u.host}${u.pathname}${blobUrl !== undefined ? ` and ${blobUrl}` : ' (image originals stay in the data directory)'}`;
}

/** Runs the migration; exit 0 verified, 1 when verification found differences, 130 interrupted. */
export async function run(ctx: CommandContext, flags: MigrateFlags, command: Command): Promise<number> {
  if (ctx.config.remote.value !== undefined) throw new UsageError('migrate copies a local data directory; drop --remote / CATALOG_URL');
  if (ctx.config.databaseUrl.value !== undefined) {
    throw new UsageError('migrate reads the data directory (--data-dir) and writes the database named by --to; drop --database-url / CATALOG_DATABASE_URL');
  }
  if (flags.to === undefined) throw new UsageError('migrate needs --to postgres://user:password@host:5432/database');
  if (!/^postgres(ql)?:\/\//.test(flags.to)) throw new UsageError(`--to must be a postgres:// URL (postgres://user:password@host:5432/database), got '${flags.to.replace(/\/\/[^@/]*@/, '//…@')}'`);
  const dataDir = ctx.config.dataDir.value;
  const blobUrl = ctx.config.blobUrl.value;
  const [{ assertDataDirExists }, { openMigration }, migration, { randomUUID }] = await Promise.all([
    import('../../local-catalog.js'),
    import('../../../open-catalog.js'),
    import('../../../core/migration/copy-catalog.js'),
    import('node:crypto'),
  ]);
  assertDataDirExists(dataDir);
  const where = describeTarget(flags.to, blobUrl);
  const opened = await openMigration({ dataDir, databaseUrl: flags.to, blobUrl });
  const watching = !ctx.flags.quiet && (ctx.io.stderr as NodeJS.WriteStream).isTTY === true;
  const progress = watching
    ? await (await import('../../output/progress.js')).createProgress(ctx.io.stderr as NodeJS.WriteStream, true, ctx.io.env)
    : { update: () => undefined, stop: () => undefined, succeed: () => undefined, fail: () => undefined };
  const controller = new AbortController();
  // `on`, not `once` (as run-bulk.ts): the batch in flight finishes and its position is saved.
  const onSigint = () => controller.abort();
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  try {
    ctx.info(`migrating ${dataDir} into ${where}`);
    const result = await migration.copyCatalog(opened.source, opened.target, {
      signal: controller.signal,
      newCatalogId: randomUUID,
      ...(flags.batchSize !== undefined ? { batchSize: flags.batchSize } : {}),
      onProgress: ({ phase, done, total }) => progress.update(`${phase} ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`),
    });
    progress.stop();
    if (ctx.format === 'json' || ctx.format === 'ndjson') ctx.io.stdout.write(`${JSON.stringify({ catalogId: result.catalogId, resumed: result.resumed, counts: result.counts, differences: result.differences })}\n`);
    const counts = Object.entries(result.counts).map(([kind, n]) => `${n.toLocaleString('en-US')} ${kind}`).join(', ');
    if (result.differences.length > 0) {
      ctx.io.stderr.write(
        `migrate: the target differs from the source after the copy (it stays in maintenance mode):\n${result.differences.map((d) => `  ${d.what}: ${d.detail}\n`).join('')}` +
          `Was either written during the copy? Run the same command again to copy everything once more and verify (what was deleted from the data directory since stays in the target: then start over with an empty target):\n  ${again(command, ctx, flags.to)}\n`,
      );
      return EXIT.ERROR;
    }
    ctx.info(`${result.resumed ? 'continued and ' : ''}migrated catalog ${result.catalogId}: ${counts}; verified (counts and content). Serve it with --database-url${blobUrl !== undefined ? ' and --blob-url' : ''}.`);
    return EXIT.OK;
  } catch (error) {
    progress.stop();
    if (error instanceof migration.MigrationInterrupted) {
      ctx.io.stderr.write(`interrupted during ${error.phase}: finished batches are recorded in the target. Continue with\n  ${again(command, ctx, flags.to)}\n`);
      return EXIT.INTERRUPTED;
    }
    if (error instanceof migration.MigrationTargetError) throw new UsageError(`cannot migrate into ${where}: ${error.message}`);
    throw error;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    await opened.close();
  }
}
