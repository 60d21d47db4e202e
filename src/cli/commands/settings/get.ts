/** `catalog settings get`: the catalog's ranking settings (GET /1/catalog/ranking). */
import type { Command } from 'commander';
import type { RankingSettings } from '../../../api/schemas.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { declareSimpleVerb, type Invoke } from '../../runner.js';

/** Prints the settings: the API's object for json/ndjson, one `name: value` line each otherwise. */
export function printSettings(ctx: CommandContext, settings: RankingSettings): number {
  if (ctx.format === 'json' || ctx.format === 'ndjson') ctx.io.stdout.write(`${JSON.stringify(settings)}\n`);
  else {
    const custom = settings.customRanking;
    ctx.io.stdout.write(`custom-ranking: ${custom ? `${custom.attribute_id}:${custom.order}` : 'none'}\n`);
    const identifiers = settings.identifierAttributes ?? [];
    ctx.io.stdout.write(`identifier-attributes: ${identifiers.length > 0 ? identifiers.join(',') : 'none'}\n`);
    const order = settings.attributeOrder ?? [];
    ctx.io.stdout.write(`attribute-order: ${order.length > 0 ? order.join(',') : 'none'}\n`);
  }
  return EXIT.OK;
}

/** Declares `get` on the `settings` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareSimpleVerb(noun, invoke, 'get', 'show the ranking settings (any token with the search scope)', run);
}

/** Prints the ranking settings. */
export async function run(ctx: CommandContext): Promise<number> {
  const client = await ctx.client();
  return printSettings(ctx, await client.getRanking());
}
