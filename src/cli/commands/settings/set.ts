/**
 * `catalog settings set --custom-ranking <attr>[:desc|asc]` (catalogAdmin; PUT /1/catalog/ranking):
 * changes the settings named, keeps the others, and prints them as stored.
 */
import type { Command } from 'commander';
import { CatalogError } from '../../../api/errors.js';
import type { RankingSettings } from '../../../api/schemas.js';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../output/usage-error.js';
import type { Invoke } from '../../runner.js';
import { printSettings } from './get.js';

interface SetFlags {
  customRanking?: string | false;
}

/** `--custom-ranking attr[:desc|asc]` (desc by default: the largest value first), or `none`. */
export function parseCustomRanking(value: string): RankingSettings['customRanking'] {
  if (value === 'none') return null;
  const match = /^(.*):(asc|desc)$/u.exec(value);
  const attribute = match ? (match[1] ?? '') : value;
  if (attribute.trim() === '') throw new UsageError(`--custom-ranking '${value}' must name an attribute, optionally followed by :desc or :asc (or be none)`);
  return { attribute_id: attribute, order: match?.[2] === 'asc' ? 'asc' : 'desc' };
}

/** Declares `set` on the `settings` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('set')
    .description('change the ranking settings (catalogAdmin); settings not named keep their value')
    .option('--custom-ranking <attr[:desc|asc]>', 'a filterable attribute whose values are all numbers (popularity, stock) breaks the ties of the ranking rules, before relevance; desc (largest first) by default; none removes it')
    .action(async (_o: unknown, command: Command) => {
      const flags = command.opts<SetFlags>();
      await invoke(command, (ctx) => run(ctx, flags));
    });
}

/** Reads the settings, applies the flags, writes them back; a 400 comes back in the flag's words (exit 2). */
export async function run(ctx: CommandContext, flags: SetFlags): Promise<number> {
  if (flags.customRanking === undefined || flags.customRanking === false) throw new UsageError('nothing to set: give --custom-ranking <attr>[:desc|asc] (or none)');
  const customRanking = parseCustomRanking(flags.customRanking);
  const client = await ctx.client();
  const current = await client.getRanking();
  try {
    return printSettings(ctx, await client.setRanking({ ...current, customRanking }));
  } catch (error) {
    if (error instanceof CatalogError && error.code === 'bad_request') {
      throw new UsageError((error.errors ?? []).length > 0 ? (error.errors ?? []).map((p) => `--custom-ranking ${flags.customRanking as string}: ${p.message}`).join('; ') : error.detail);
    }
    throw error;
  }
}
