/**
 * `catalog tokens whoami`: the token this command runs with, as the catalog sees it (GET
 * /1/auth/token, docs/api.md "Authentication"): its name, roles, organization and what they allow.
 * Works in local mode (the data directory's owner: `local`, every role) and with --remote, where it
 * is the quick check that a token is valid and has the roles a job needs. Never prints a secret.
 */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { declareSimpleVerb, type Invoke } from '../../runner.js';

/** Declares `whoami` on its parent command. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareSimpleVerb(noun, invoke, 'whoami', 'show the token in use (local mode or --remote): name, roles, organization, what it may do', run);
}

/** Prints the calling token: one record (name, roles, organization, permissions). */
export async function run(ctx: CommandContext): Promise<number> {
  const [client, { emitRecords }] = await Promise.all([ctx.client(), import('../../output/emit.js')]);
  const token = await client.getTokenInfo();
  const may = Object.entries(token.permissions).filter(([, allowed]) => allowed).map(([what]) => what);
  const record = { name: token.name, roles: token.roles.join(' '), organization: token.organization ?? '', may: may.length > 0 ? may.join(' ') : 'read', permissions: token.permissions };
  const fields = ['name', 'roles', 'organization', 'may', 'permissions'];
  await emitRecords(ctx, { fields, defaultFields: ['name', 'roles', 'organization', 'may'] }, [record]);
  return EXIT.OK;
}
