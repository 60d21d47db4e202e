/**
 * `catalog changes [--since n] [--follow]` (docs/cli.md; docs/api.md "Changes"): prints the change
 * feed after change number n, oldest first; with --follow it keeps printing new changes as they
 * commit until Ctrl-C or SIGTERM. Stderr ends with the number to continue from.
 */
import type { Command } from 'commander';
import { CHANGE_TYPES, type Change, type ChangeType } from '../../../api/change-schemas.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import { intInRange, positiveInt, type Invoke } from '../../runner.js';

/** Options of `catalog changes`. */
interface ChangesFlags {
  since?: number;
  limit?: number;
  types?: string;
  follow?: boolean;
  interval?: number;
}

const FIELDS = ['change', 'at', 'type', 'op', 'id', 'related_part_id'];
/** Changes read per request. */
const PAGE = 1000;

/** Declares the command. */
export function declare(program: Command, invoke: Invoke): Command {
  return program
    .command('changes')
    .description('print the change feed: every write and deletion after --since, oldest first (--follow: keep printing new ones)')
    .option('--since <n>', 'start after this change number (default 0: every kept change)', intInRange(0))
    .option('--limit <n>', 'at most this many changes', positiveInt)
    .option('--types <list>', `only these types, comma-separated: ${CHANGE_TYPES.join(', ')}`)
    .option('--follow', 'keep printing new changes until Ctrl-C or SIGTERM (ndjson or tsv: one line each, as they come)')
    .option('--interval <ms>', 'with --follow: how often to ask for new changes (default 1000)', intInRange(50, 3_600_000))
    .action(async (_opts: unknown, command: Command) => {
      const flags = command.opts<ChangesFlags>();
      await invoke(command, (ctx) => run(ctx, flags));
    });
}

function parseTypes(list: string | undefined): ChangeType[] | undefined {
  if (list === undefined) return undefined;
  const types = list.split(',').map((t) => t.trim()).filter((t) => t.length > 0);
  const unknown = types.filter((t) => !(CHANGE_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0 || types.length === 0) throw new UsageError(`--types: ${unknown.length > 0 ? `unknown type ${unknown.map((t) => `'${t}'`).join(', ')}` : 'no type given'}; the types are ${CHANGE_TYPES.join(', ')}`);
  return types as ChangeType[];
}

/** Prints the changes; exit 0 (130 when --follow is interrupted). */
export async function run(ctx: CommandContext, flags: ChangesFlags): Promise<number> {
  const types = parseTypes(flags.types);
  if (flags.follow === true && (ctx.format === 'json' || ctx.format === 'table')) {
    throw new UsageError(`--follow prints changes as they come: use -o ndjson, tsv or csv (not ${ctx.format})`);
  }
  const { emitRecords } = await import('../../output/emit.js');
  const client = await ctx.client();
  const state = { next: flags.since ?? 0, stopped: false };
  const stop = () => {
    state.stopped = true;
    wake?.();
  };
  let wake: (() => void) | undefined;
  const signals = ['SIGINT', 'SIGTERM'] as const;
  if (flags.follow === true) for (const signal of signals) process.on(signal, stop);
  async function* changes(): AsyncGenerator<Change & Record<string, unknown>> {
    let remaining = flags.limit ?? Number.POSITIVE_INFINITY;
    while (remaining > 0 && !state.stopped) {
      const page = await client.changes({ since: state.next, limit: Math.min(PAGE, remaining), ...(types ? { types } : {}) });
      for (const change of page.changes) {
        yield change as Change & Record<string, unknown>;
        remaining--;
      }
      state.next = page.next;
      if (page.more) continue;
      if (flags.follow !== true) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, flags.interval ?? 1000).unref();
      });
    }
  }
  try {
    await emitRecords(ctx, { fields: FIELDS, defaultFields: FIELDS }, changes());
  } finally {
    for (const signal of signals) process.off(signal, stop);
  }
  ctx.info(`changes read up to ${state.next}; continue with: catalog changes --since ${state.next}`);
  return state.stopped ? EXIT.INTERRUPTED : EXIT.OK;
}
