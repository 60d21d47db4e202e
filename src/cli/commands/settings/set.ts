/**
 * `catalog settings set [--custom-ranking <attr>[:desc|asc]] [--identifier-attributes <attr,...>]
 * [--attribute-order <attr,...>]`
 * (catalogAdmin; PUT /1/catalog/ranking): changes the settings named, keeps the others, and prints
 * them as stored.
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
  identifierAttributes?: string | false;
  attributeOrder?: string | false;
}

/** `--identifier-attributes a,b` (comma-separated attribute ids), or `none`. */
export function parseIdentifierAttributes(value: string): string[] {
  return parseAttributeList(value, '--identifier-attributes');
}

/** A flag's comma-separated attribute ids (`a,b`), or `none` (no attribute). */
function parseAttributeList(value: string, flag: string): string[] {
  if (value.trim() === 'none') return [];
  const ids = value.split(',').map((id) => id.trim());
  if (ids.some((id) => id === '')) throw new UsageError(`${flag} '${value}' must be attribute ids separated by commas (or none)`);
  return ids;
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
    .option('--identifier-attributes <attr,...>', 'searchable attributes whose values are identifiers (manufacturer part numbers): a part whose value equals the query, with or without separators, comes first; none removes them')
    .option('--attribute-order <attr,...>', 'searchable attributes, most important first (at most 8): a word found in an earlier one ranks a part above the same word found only in a later or unlisted one (names stay first); re-indexes the parts holding them; none removes it')
    .action(async (_o: unknown, command: Command) => {
      const flags = command.opts<SetFlags>();
      await invoke(command, (ctx) => run(ctx, flags));
    });
}

/** Reads the settings, applies the flags, writes them back; a 400 comes back in the flag's words (exit 2). */
export async function run(ctx: CommandContext, flags: SetFlags): Promise<number> {
  const custom = typeof flags.customRanking === 'string' ? flags.customRanking : undefined;
  const identifiers = typeof flags.identifierAttributes === 'string' ? flags.identifierAttributes : undefined;
  const order = typeof flags.attributeOrder === 'string' ? flags.attributeOrder : undefined;
  if (custom === undefined && identifiers === undefined && order === undefined) {
    throw new UsageError('nothing to set: give --custom-ranking <attr>[:desc|asc] (or none), --identifier-attributes <attr,...> (or none) and/or --attribute-order <attr,...> (or none)');
  }
  const changes: Partial<RankingSettings> = {};
  if (custom !== undefined) changes.customRanking = parseCustomRanking(custom);
  if (identifiers !== undefined) changes.identifierAttributes = parseIdentifierAttributes(identifiers);
  if (order !== undefined) changes.attributeOrder = parseAttributeList(order, '--attribute-order');
  const client = await ctx.client();
  const current = await client.getRanking();
  try {
    return printSettings(ctx, await client.setRanking({ ...current, ...changes }));
  } catch (error) {
    if (error instanceof CatalogError && error.code === 'bad_request') {
      // Each problem in the words of the flag that set its field.
      const flag = (path: string) => (path.startsWith('identifierAttributes') ? `--identifier-attributes ${identifiers ?? ''}` : path.startsWith('attributeOrder') ? `--attribute-order ${order ?? ''}` : `--custom-ranking ${custom ?? ''}`);
      throw new UsageError((error.errors ?? []).length > 0 ? (error.errors ?? []).map((p) => `${flag(p.path)}: ${p.message}`).join('; ') : error.detail);
    }
    throw error;
  }
}
