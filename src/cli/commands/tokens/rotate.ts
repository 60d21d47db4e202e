/**
 * `catalog tokens rotate <name> [--expires-in 30d]`: a new secret for the token, printed once
 * alone on stdout; the old secret stops working at once. Roles, organization and scopes stay.
 * Local mode or --remote (POST /1/auth/tokens/{name}/rotate). Exit 6 when there is no such token.
 */
import type { Command } from 'commander';
import { parseDuration } from '../../duration.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import type { Invoke } from '../../runner.js';

/** Declares the verb on the `tokens` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('rotate')
    .description('give a token a new secret (printed once); the old one stops working at once')
    .argument('<name>')
    .option('--expires-in <duration>', 'the new secret stops working after this long (90s, 15m, 12h, 30d, 52w); default: the lifetime the token had', parseDuration)
    .action(async (name: string, _o: unknown, command: Command) => {
      const flags = command.opts<{ expiresIn?: number }>();
      await invoke(command, (ctx) => run(ctx, name, flags));
    });
}

/** Rotates the token and prints its new secret. */
export async function run(ctx: CommandContext, name: string, flags: { expiresIn?: number }): Promise<number> {
  const client = await ctx.client();
  const { secret, token } = await client.rotateToken(name, flags.expiresIn ? { expiresInSeconds: flags.expiresIn } : {});
  ctx.io.stdout.write(`${secret}\n`);
  ctx.info(`rotated token '${token.name}'${token.expiresAt ? `, expiring at ${token.expiresAt}` : ''}. The secret above is shown only this once; the old one no longer works.`);
  return EXIT.OK;
}
