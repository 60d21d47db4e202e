/** `catalog tokens revoke <name>`: local mode or --remote (DELETE /1/auth/tokens/{name}); exit 6 when there is no such token. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import type { Invoke } from '../../runner.js';

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
  const client = await ctx.client();
  await client.revokeToken(name);
  ctx.info(`revoked token '${name}'`);
  return EXIT.OK;
}
