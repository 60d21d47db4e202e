/** `catalog tokens list`: names, roles, organizations, creation times (never secrets). */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { declareSimpleVerb, type Invoke } from '../../runner.js';
import { withLocalCatalog } from './local.js';

/** Declares `list` on its parent command. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareSimpleVerb(noun, invoke, 'list', 'list tokens (never their secrets)', run);
}

/** Prints the tokens. */
export async function run(ctx: CommandContext): Promise<number> {
  const [{ LOCAL_OWNER }, { emitRecords }] = await Promise.all([import('../../../core/permissions.js'), import('../../output/emit.js')]);
  return withLocalCatalog(ctx, async (catalog) => {
    const tokens = await catalog.service.listTokens(LOCAL_OWNER);
    const fields = ['name', 'roles', 'organization', 'createdAt'];
    await emitRecords(ctx, { fields, defaultFields: fields }, tokens.map((t) => ({ ...t })));
    return EXIT.OK;
  });
}
