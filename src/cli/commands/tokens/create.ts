/**
 * `catalog tokens create --name <n> --role <r>... [--org <o>] [--scope <s>...] [--expires-in 30d]`:
 * in local mode on the data directory, with --remote over HTTP (POST /1/auth/tokens; a catalogAdmin
 * token with the `tokens` scope). The secret is printed once, alone on stdout.
 */
import type { Command } from 'commander';
import { parseDuration } from '../../duration.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { collect, type Invoke } from '../../runner.js';

/** The roles of decisions §2, for the help text (test/cli/usage-errors.test.ts checks them against src/api/schemas.ts ROLES). */
export const ROLE_NAMES = ['catalogAdmin', 'dataContributor', 'dataValidator', 'factoryWorker', 'admin', 'superAdmin', 'csa'] as const;

interface CreateFlags {
  name: string;
  role: string[];
  org?: string;
  scope?: string[];
  expiresIn?: number;
}

/** Declares the verb on the `tokens` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('create')
    .description('create a token and print its secret once (TOKEN=$(catalog tokens create ...))')
    .requiredOption('--name <name>', 'unique name; shown as user_id on relations')
    .requiredOption('--role <role>', `a role, repeatable: ${ROLE_NAMES.join(', ')}`, collect)
    .option('--org <organization>', 'the organization the token reads as')
    .option('--scope <scope>', 'narrow the token to a scope, repeatable: <resource>:read or :write (attributes, parts, organizations, synonyms, images, relations), search, maintenance, tokens, metrics; default: everything its roles allow', collect)
    .option('--expires-in <duration>', 'the token stops working after this long: 90s, 15m, 12h, 30d, 52w; default: never', parseDuration)
    .action(async (_o: unknown, command: Command) => {
      const flags = command.opts<CreateFlags>();
      await invoke(command, (ctx) => run(ctx, flags));
    });
}

/** Creates the token and prints its secret. */
export async function run(ctx: CommandContext, flags: CreateFlags): Promise<number> {
  const client = await ctx.client();
  const { secret, token } = await client.createToken({
    name: flags.name, roles: flags.role, organization: flags.org, ...(flags.scope ? { scopes: flags.scope } : {}), ...(flags.expiresIn ? { expiresInSeconds: flags.expiresIn } : {}),
  });
  ctx.io.stdout.write(`${secret}\n`);
  const scoped = token.scopes ? ` limited to ${token.scopes.join(', ')}` : '';
  const expires = token.expiresAt ? `, expiring at ${token.expiresAt}` : '';
  ctx.info(`created token '${token.name}' with roles ${token.roles.join(', ')}${token.organization ? ` for organization '${token.organization}'` : ''}${scoped}${expires}. The secret above is shown only this once.`);
  return EXIT.OK;
}
