/**
 * `catalog tokens create|list|revoke` (decisions §2): local mode only, on the data directory the
 * server serves. The secret is printed once, alone on stdout, whatever the output format.
 */
import { LOCAL_OWNER } from '../../core/permissions.js';
import type { Catalog } from '../../core/services.js';
import type { CommandContext } from '../context.js';
import { emitRecords } from '../output/emit.js';
import { UsageError } from '../output/usage-error.js';

async function withLocalCatalog<T>(ctx: CommandContext, fn: (catalog: Catalog) => Promise<T>): Promise<T> {
  if (ctx.config.remote.value !== undefined) {
    throw new UsageError('tokens are managed on the server machine, in local mode: run `catalog tokens ...` there with --data-dir (no --remote)');
  }
  const { openCatalog } = await import('../../open-catalog.js');
  const catalog = openCatalog({ dataDir: ctx.config.dataDir.value });
  try {
    return await fn(catalog);
  } finally {
    await catalog.close();
  }
}

/** `tokens create --name <n> --role <r>... [--org <o>]`. */
export async function runTokensCreate(ctx: CommandContext, opts: { name: string; role: string[]; org?: string }): Promise<number> {
  return withLocalCatalog(ctx, async (catalog) => {
    const { secret, token } = await catalog.service.createToken(LOCAL_OWNER, { name: opts.name, roles: opts.role, organization: opts.org });
    ctx.io.stdout.write(`${secret}\n`);
    ctx.info(`created token '${token.name}' with roles ${token.roles.join(', ')}${token.organization ? ` for organization '${token.organization}'` : ''}. The secret above is shown only this once.`);
    return 0;
  });
}

/** `tokens list`: names, roles, organizations, creation times (never secrets). */
export async function runTokensList(ctx: CommandContext): Promise<number> {
  return withLocalCatalog(ctx, async (catalog) => {
    const tokens = await catalog.service.listTokens(LOCAL_OWNER);
    const fields = ['name', 'roles', 'organization', 'createdAt'];
    await emitRecords(ctx, { fields, defaultFields: fields }, tokens.map((t) => ({ ...t })));
    return 0;
  });
}

/** `tokens revoke <name>`: exit 6 when there is no such token. */
export async function runTokensRevoke(ctx: CommandContext, name: string): Promise<number> {
  return withLocalCatalog(ctx, async (catalog) => {
    await catalog.service.revokeToken(LOCAL_OWNER, name);
    ctx.info(`revoked token '${name}'`);
    return 0;
  });
}
