/**
 * Registers the generic verbs (import, list, get, delete) of a bulk resource on its noun command.
 */
import type { Command } from 'commander';
import type { ImportSpec } from '../import/run-import.js';
import type { ResourceSpec } from '../resources/resource.js';
import { positiveInt, type Invoke } from '../runner.js';

const commands = () => import('../commands/resource-commands.js');

/** Adds `import <file|->` with the bulk import options of cli.md. */
export function addImportVerb(noun: Command, spec: ImportSpec, invoke: Invoke, description: string): Command {
  return noun
    .command('import')
    .description(description)
    .argument('<file>', 'CSV, JSON or NDJSON file, or - for stdin (then --format is required)')
    .option('--format <format>', 'csv, json or ndjson (default: from the file extension)')
    .option('--dry-run', 'validate and count would-create / would-update / rejected; write nothing')
    .option('--errors <file>', 'where rejected rows go (default <input>.errors.<ext>)')
    .option('--max-errors <n>', 'stop after this many rejected rows', positiveInt('--max-errors'))
    .option('--batch-size <n>', `items per request (at most ${spec.maxBatch})`, positiveInt('--batch-size'))
    .option('--resume', 'skip the batches a previous interrupted run finished')
    .action(async (file: string, _opts: unknown, command: Command) => {
      const opts = command.opts();
      const resume = `catalog ${spec.noun} import ${file}`;
      await invoke(command, async (ctx) => (await commands()).runImportCommand(ctx, spec, file, opts, resume));
    });
}

/** Adds `list`, `get <id...>` and `delete <id...>`. */
export function addReadDeleteVerbs(noun: Command, spec: ResourceSpec, invoke: Invoke): void {
  noun
    .command('list')
    .description(`list ${spec.noun} in ${spec.idField} order (all of them, streamed page by page)`)
    .option('--limit <n>', 'at most this many', positiveInt('--limit'))
    .option('--after <id>', `start after this ${spec.idField}`)
    .action(async (_opts: unknown, command: Command) => {
      const opts = command.opts<{ limit?: number; after?: string }>();
      await invoke(command, async (ctx) => (await commands()).runList(ctx, spec, opts));
    });
  noun
    .command('get')
    .description(`fetch ${spec.noun} by id (exit 6 if any is unknown)`)
    .argument('<id...>', spec.idField)
    .action(async (ids: string[], _opts: unknown, command: Command) => {
      await invoke(command, async (ctx) => (await commands()).runGet(ctx, spec, ids));
    });
  noun
    .command('delete')
    .description(`delete ${spec.noun} by id (exit 3 if some are rejected)`)
    .argument('<id...>', spec.idField)
    .action(async (ids: string[], _opts: unknown, command: Command) => {
      await invoke(command, async (ctx) => (await commands()).runDelete(ctx, spec, ids));
    });
}
