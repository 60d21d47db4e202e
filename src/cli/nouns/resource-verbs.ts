/**
 * Registers the generic verbs (import, list, get, delete) of a bulk resource on its noun command.
 * Only the resource's names are needed to build the command tree; its spec (mappers, schemas,
 * csv-parse) loads when a verb runs, which keeps `catalog --help` and every other command fast.
 */
import type { Command } from 'commander';
import type { ImportSpec } from '../import/run-import.js';
import type { ResourceSpec } from '../resources/resource.js';
import { positiveInt, type Invoke } from '../runner.js';

const commands = () => import('../commands/resource-commands.js');

/** Adds `import <file|->` with the bulk import options of cli.md. */
/** What the command tree needs to know of a resource before it is loaded. */
export interface ResourceNames {
  noun: string;
  idField: string;
}

/** Items per request at most (decisions §9), for help texts. */
const MAX_BATCH = 1000;

export function addImportVerb(noun: Command, names: ResourceNames, load: () => Promise<ImportSpec>, invoke: Invoke, description: string): Command {
  return noun
    .command('import')
    .description(description)
    .argument('<file>', 'CSV, JSON or NDJSON file, or - for stdin (then --format is required)')
    .option('--format <format>', 'csv, json or ndjson (default: from the file extension)')
    .option('--dry-run', 'validate and count would-create / would-update / rejected; write nothing')
    .option('--errors <file>', 'where rejected rows go (default <input>.errors.<ext>)')
    .option('--max-errors <n>', 'stop after this many rejected rows', positiveInt('--max-errors'))
    .option('--batch-size <n>', `items per request (at most ${MAX_BATCH})`, positiveInt('--batch-size'))
    .option('--resume', 'skip the batches a previous interrupted run finished')
    .action(async (file: string, _opts: unknown, command: Command) => {
      const opts = command.opts();
      const resume = `catalog ${names.noun} import ${file}`;
      await invoke(command, async (ctx) => (await commands()).runImportCommand(ctx, await load(), file, opts, resume));
    });
}

/** Adds `list`, `get <id...>` and `delete <id...>`. */
export function addReadDeleteVerbs(noun: Command, spec: ResourceNames, load: () => Promise<ResourceSpec>, invoke: Invoke): void {
  noun
    .command('list')
    .description(`list ${spec.noun} in ${spec.idField} order (all of them, streamed page by page)`)
    .option('--limit <n>', 'at most this many', positiveInt('--limit'))
    .option('--after <id>', `start after this ${spec.idField}`)
    .action(async (_opts: unknown, command: Command) => {
      const opts = command.opts<{ limit?: number; after?: string }>();
      await invoke(command, async (ctx) => (await commands()).runList(ctx, await load(), opts));
    });
  noun
    .command('get')
    .description(`fetch ${spec.noun} by id (exit 6 if any is unknown)`)
    .argument('<id...>', spec.idField)
    .action(async (ids: string[], _opts: unknown, command: Command) => {
      await invoke(command, async (ctx) => (await commands()).runGet(ctx, await load(), ids));
    });
  noun
    .command('delete')
    .description(`delete ${spec.noun} by id (exit 3 if some are rejected)`)
    .argument('<id...>', spec.idField)
    .action(async (ids: string[], _opts: unknown, command: Command) => {
      await invoke(command, async (ctx) => (await commands()).runDelete(ctx, await load(), ids));
    });
}
