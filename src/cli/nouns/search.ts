/** `catalog search ...` (design/cli.md; spec 2.5, 4.4). */
import { Command } from 'commander';
import { collect, positiveInt, type Invoke } from '../runner.js';

export function registerSearch(program: Command, invoke: Invoke): void {
  program
    .command('search')
    .description('search parts by text, filters and/or an image; or read a page of a search session')
    .argument('[text]', 'words to find in part ids, names and searchable attribute values (prefix on the last word, one typo tolerated)')
    .option('--image <file>', 'search by image similarity to this photo')
    .option('--org <organization>', 'search values as this organization sees them')
    .option('--lang <language>', 'language of the result names, e.g. en')
    .option('--filter <attr=value>', 'only parts whose filterable attribute has this value (repeatable)', collect)
    .option('--limit <n>', 'hits per page (default 25, at most 1000)', positiveInt('--limit'))
    .option('--page <n>', 'page number, from 1', positiveInt('--page'))
    .option('--session <sessionId>', 'read a page of an existing search session (24 h)')
    .option('--all', 'every hit, streamed (NDJSON unless -o says otherwise)')
    .option('--max-items <n>', 'with --all: at most this many hits', positiveInt('--max-items'))
    .action(async (text: string | undefined, _o: unknown, command: Command) => {
      const flags = command.opts();
      await invoke(command, async (ctx) => {
        if (flags.all && ctx.config.output.value === undefined) ctx.format = 'ndjson';
        return (await import('../commands/search.js')).runSearch(ctx, text, flags);
      });
    });
}
