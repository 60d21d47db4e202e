/** `catalog tokens create --name <n> --role <r>... [--org <o>]`: the secret is printed once, alone on stdout. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { collect, type Invoke } from '../../runner.js';
import { withLocalCatalog } from './local.js';

/** The roles of decisions §2, for the help text (test/cli/usage-errors.test.ts checks them against src/api/schemas.ts ROLES). */
export const ROLE_NAMES = ['catalogAdmin', 'dataContributor', 'dataValidator', 'factoryWorker', 'admin', 'superAdmin', 'csa'] as const;

interface CreateFlags {
  name: string;
  role: string[];
  org?: string;
}

/** Declares the verb on the `tokens` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('create')
    .description('create a token and print its secret once (TOKEN=$(catalog tokens create ...))')
    .requiredOption('--name <name>', 'unique name; shown as user_id on relations')
    .requiredOption('--role <role>', `a role, repeatable: ${ROLE_NAMES.join(', ')}`, collect)
    .option('--org <organization>', 'the organization the token reads as')
    .action(async (_o: unknown, command: Command) => {
      const flags = command.opts<CreateFlags>();
      await invoke(command, (ctx) => run(ctx, flags));
    });
}

/** Creates the token and prints its secret. */
export async function run(ctx: CommandContext, flags: CreateFlags): Promise<number> {
  const { LOCAL_OWNER } = await import('../../../core/permissions.js');
  return withLocalCatalog(ctx, async (catalog) => {
    const { secret, token } = await catalog.service.createToken(LOCAL_OWNER, { name: flags.name, roles: flags.role, organization: flags.org });
    ctx.io.stdout.write(`${secret}\n`);
    ctx.info(`created token '${token.name}' with roles ${token.roles.join(', ')}${token.organization ? ` for organization '${token.organization}'` : ''}. The secret above is shown only this once.`);
    return EXIT.OK;
  });
}
