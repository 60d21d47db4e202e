/** `catalog tokens ...` (design/cli.md; decisions §2). */
import type { Command } from 'commander';
import { ROLES } from '../../api/schemas.js';
import { collect, type Invoke } from '../runner.js';

const commands = () => import('../commands/tokens.js');

export function registerTokens(program: Command, invoke: Invoke): void {
  const noun = program.command('tokens').description('access tokens of the data directory (local mode only)');
  noun
    .command('create')
    .description('create a token and print its secret once (TOKEN=$(catalog tokens create ...))')
    .requiredOption('--name <name>', 'unique name; shown as user_id on relations')
    .requiredOption('--role <role>', `a role, repeatable: ${ROLES.join(', ')}`, collect)
    .option('--org <organization>', 'the organization the token reads as')
    .action(async (_o: unknown, command: Command) => {
      const opts = command.opts<{ name: string; role: string[]; org?: string }>();
      await invoke(command, async (ctx) => (await commands()).runTokensCreate(ctx, opts));
    });
  noun
    .command('list')
    .description('list tokens (never their secrets)')
    .action(async (_o: unknown, command: Command) => {
      await invoke(command, async (ctx) => (await commands()).runTokensList(ctx));
    });
  noun
    .command('revoke')
    .description('revoke a token by name')
    .argument('<name>')
    .action(async (name: string, _o: unknown, command: Command) => {
      await invoke(command, async (ctx) => (await commands()).runTokensRevoke(ctx, name));
    });
}
