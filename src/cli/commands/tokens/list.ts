/** `catalog tokens list`: names, roles, organizations, scopes, creation, expiry and last-use times (never secrets). */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { declareSimpleVerb, type Invoke } from '../../runner.js';

/** Declares `list` on its parent command. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareSimpleVerb(noun, invoke, 'list', 'list tokens (never their secrets)', run);
}

/** Prints the tokens. */
export async function run(ctx: CommandContext): Promise<number> {
  const [client, { emitRecords }] = await Promise.all([ctx.client(), import('../../output/emit.js')]);
  const tokens = await client.listTokens();
  const fields = ['name', 'roles', 'organization', 'scopes', 'createdAt', 'expiresAt', 'lastUsedAt'];
  await emitRecords(ctx, { fields, defaultFields: fields }, tokens.map((t) => ({ ...t })));
  return EXIT.OK;
}
