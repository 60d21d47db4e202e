/** `catalog webhooks ...` (docs/cli.md; docs/api.md "Webhooks"): the noun and its verbs. */
import type { Command } from 'commander';
import { CHANGE_TYPES } from '../../../api/change-schemas.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { declareSimpleVerb, intInRange, type Invoke } from '../../runner.js';

/** Adds the `webhooks` noun to the program. */
export function register(program: Command, invoke: Invoke): Command {
  const noun = program.command('webhooks').description('receivers of every change, posted signed by the server (catalog serve): add, list, remove, deliveries');
  noun
    .command('add')
    .description('add a webhook: every later change (or those of --types) is posted to <url>, signed with its secret (printed once)')
    .argument('<webhook_id>')
    .argument('<url>', 'http:// or https:// URL of the receiver')
    .option('--types <list>', `only these change types, comma-separated: ${CHANGE_TYPES.join(', ')}`)
    .option('--secret-file <file>', 'take the signing secret from this file (default: a new random one)')
    .action(async (id: string, url: string, _o: unknown, command: Command) => {
      const flags = command.opts<{ types?: string; secretFile?: string }>();
      await invoke(command, (ctx) => add(ctx, id, url, flags));
    });
  declareSimpleVerb(noun, invoke, 'list', 'list webhooks with their pending deliveries (never their secrets)', list);
  noun
    .command('remove')
    .description('remove a webhook with its pending deliveries and delivery log (exit 6 if unknown)')
    .argument('<webhook_id>')
    .action(async (id: string, _o: unknown, command: Command) => {
      await invoke(command, (ctx) => remove(ctx, id));
    });
  noun
    .command('deliveries')
    .description('the delivery log, newest first: each attempt with its status and outcome')
    .argument('[webhook_id]', 'only this webhook\'s')
    .option('--limit <n>', 'at most this many attempts (default 100, at most 1000)', intInRange(1, 1000))
    .action(async (id: string | undefined, _o: unknown, command: Command) => {
      const flags = command.opts<{ limit?: number }>();
      await invoke(command, (ctx) => deliveries(ctx, id, flags.limit));
    });
  return noun;
}

async function add(ctx: CommandContext, webhookId: string, url: string, flags: { types?: string; secretFile?: string }): Promise<number> {
  const [{ readFile }, { resolve }] = await Promise.all([import('node:fs/promises'), import('node:path')]);
  const secret = flags.secretFile !== undefined ? (await readFile(resolve(ctx.io.cwd, flags.secretFile), 'utf8')).trim() : undefined;
  const types = flags.types?.split(',').map((t) => t.trim()).filter((t) => t.length > 0);
  const client = await ctx.client();
  const created = await client.addWebhook({ webhook_id: webhookId, url, ...(secret !== undefined ? { secret } : {}), ...(types !== undefined ? { types } : {}) });
  if (ctx.format === 'json' || ctx.format === 'ndjson') ctx.io.stdout.write(`${JSON.stringify(created)}\n`);
  else ctx.io.stdout.write(`${created.secret}\n`);
  ctx.info(`added webhook '${webhookId}' → ${url}; the signing secret above is shown only now (docs/api.md "Webhooks": header Catalog-Signature)`);
  return EXIT.OK;
}

async function list(ctx: CommandContext): Promise<number> {
  const { emitRecords } = await import('../../output/emit.js');
  const client = await ctx.client();
  const fields = ['webhook_id', 'url', 'types', 'pending', 'createdAt'];
  await emitRecords(ctx, { fields, defaultFields: fields }, (await client.listWebhooks()).map((w) => ({ ...w })));
  return EXIT.OK;
}

async function remove(ctx: CommandContext, webhookId: string): Promise<number> {
  const client = await ctx.client();
  await client.removeWebhook(webhookId);
  ctx.info(`removed webhook '${webhookId}'`);
  return EXIT.OK;
}

async function deliveries(ctx: CommandContext, webhookId: string | undefined, limit: number | undefined): Promise<number> {
  const { emitRecords } = await import('../../output/emit.js');
  const client = await ctx.client();
  const fields = ['webhook_id', 'change', 'attempt', 'at', 'status', 'outcome', 'error'];
  await emitRecords(ctx, { fields, defaultFields: fields }, (await client.webhookDeliveries({ webhookId, limit })).map((d) => ({ ...d })));
  return EXIT.OK;
}
