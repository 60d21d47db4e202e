/** `catalog tokens list`: names, roles, organizations, creation times (never secrets). */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import type { Invoke } from '../../runner.js';
import { withLocalCatalog } from './local.js';

/** Declares the verb on the `tokens` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('list')
    .description('list tokens (never their secrets)')
    .action(async (_o: unknown, command: Command) => {
      await invoke(command, (ctx) => run(ctx));
    });
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
