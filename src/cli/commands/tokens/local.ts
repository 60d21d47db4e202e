/**
 * The tokens verbs work on the data directory itself, in local mode only (decisions §2): tokens are
 * managed on the server machine.
 */
import type { Catalog } from '../../../core/services.js';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../output/usage-error.js';

/** Runs `fn` on the local catalog and closes it. Throws UsageError in remote mode. */
export async function withLocalCatalog<T>(ctx: CommandContext, fn: (catalog: Catalog) => Promise<T>): Promise<T> {
  if (ctx.config.remote.value !== undefined) {
    throw new UsageError('tokens are managed on the server machine, in local mode: run `catalog tokens ...` there with --data-dir (no --remote)');
  }
  const { openLocalCatalog } = await import('../../local-catalog.js');
  const catalog = await openLocalCatalog(ctx.config.dataDir.value, { databaseUrl: ctx.config.databaseUrl.value, blobUrl: ctx.config.blobUrl.value });
  try {
    return await fn(catalog);
  } finally {
    await catalog.close();
  }
}
