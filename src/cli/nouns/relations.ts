/** `catalog relations ...` (design/cli.md; spec 2.3, 4.3). */
import type { Command } from 'commander';
import { RELATION_SOURCES, RELATION_TYPES } from '../../api/schemas.js';
import type { Invoke } from '../runner.js';
import { addImportVerb } from './resource-verbs.js';

const commands = () => import('../commands/relations.js');

export function registerRelations(program: Command, invoke: Invoke): void {
  const noun = program.command('relations').description('relations between parts: duplicate, substitute, equivalent, not_related');
  addImportVerb(noun, { noun: 'relations', idField: 'anchor_part_id' }, async () => (await import('../resources/relations.js')).relationsImport, invoke, 'create relations from CSV (anchor_part_id, related_part_id, type, source), JSON or NDJSON; the latest write for a pair wins');
  noun
    .command('add')
    .description('create or replace the relation of two parts (for substitute: anchor = predecessor)')
    .argument('<anchor>', 'anchor part_id')
    .argument('<related>', 'related part_id')
    .requiredOption('--type <type>', RELATION_TYPES.join(', '))
    .option('--source <source>', `${RELATION_SOURCES.join(', ')} (default ingested)`)
    .action(async (anchor: string, related: string, _o: unknown, command: Command) => {
      const opts = command.opts<{ type: string; source?: string }>();
      await invoke(command, async (ctx) => (await commands()).runRelationsAdd(ctx, anchor, related, opts));
    });
  noun
    .command('get')
    .description("a part's relations (all types, or --type)")
    .argument('<part_id>')
    .option('--type <type>', RELATION_TYPES.join(', '))
    .action(async (partId: string, _o: unknown, command: Command) => {
      const opts = command.opts<{ type?: string }>();
      await invoke(command, async (ctx) => (await commands()).runRelationsGet(ctx, partId, opts));
    });
}
