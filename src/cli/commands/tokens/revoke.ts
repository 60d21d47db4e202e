/** `catalog tokens revoke <name>`: exit 6 when there is no such token. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import type { Invoke } from '../../runner.js';
import { withLocalCatalog } from './local.js';

/** Declares the verb on the `tokens` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('revoke')
    .description('revoke a token by name')
    .argument('<name>')
    .action(async (name: string, _o: unknown, command: Command) => {
      await invoke(command, (ctx) => run(ctx, name));
    });
}

/** Revokes the token. */
export async function run(ctx: CommandContext, name: string): Promise<number> {
  const { LOCAL_OWNER } = await import('../../../core/permissions.js');
  return withLocalCatalog(ctx, async (catalog) => {
    await catalog.service.revokeToken(LOCAL_OWNER, name);
    ctx.info(`revoked token '${name}'`);
    return EXIT.OK;
  });
}
