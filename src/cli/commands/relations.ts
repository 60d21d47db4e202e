/** `catalog relations add|get` (design/cli.md; spec 4.3). */
import type { CommandContext } from '../context.js';
import { emitRecords } from '../output/emit.js';

export const RELATION_FIELDS = ['part_id', 'part_role', 'type', 'source', 'user_id', 'created'];

/** `relations add <anchor> <related> --type <t> [--source <s>]`. */
export async function runRelationsAdd(ctx: CommandContext, anchor: string, related: string, opts: { type: string; source?: string }): Promise<number> {
  const client = await ctx.client();
  const result = await client.createRelations([{ anchor_part_id: anchor, related_part_id: related, type: opts.type, ...(opts.source ? { source: opts.source } : {}) }]);
  if (ctx.format === 'json') ctx.io.stdout.write(`${JSON.stringify(result)}\n`);
  ctx.info(`relation ${opts.type} ${anchor} -> ${related} written`);
  return 0;
}

/** `relations get <part_id> [--type <t>]`: the part's relations (404 -> exit 6). */
export async function runRelationsGet(ctx: CommandContext, partId: string, opts: { type?: string }): Promise<number> {
  const client = await ctx.client();
  const relations = await client.getRelations(partId, opts.type);
  await emitRecords(ctx, { fields: RELATION_FIELDS, defaultFields: RELATION_FIELDS }, relations.map((r) => ({ ...r })));
  return 0;
}
