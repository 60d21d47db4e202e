/** `catalog maintenance on|off|status` (decisions §7). */
import type { Command } from 'commander';
import type { Invoke } from '../runner.js';

export function registerMaintenance(program: Command, invoke: Invoke): void {
  const noun = program.command('maintenance').description('maintenance mode: while on, every catalog write answers 503');
  const verb = (name: 'on' | 'off' | 'status', description: string) =>
    noun
      .command(name)
      .description(description)
      .action(async (_o: unknown, command: Command) => {
        await invoke(command, async (ctx) => {
          const client = await ctx.client();
          const state = name === 'status' ? await client.getMaintenance() : await client.setMaintenance(name === 'on');
          if (ctx.format === 'json' || ctx.format === 'ndjson') ctx.io.stdout.write(`${JSON.stringify(state)}\n`);
          else ctx.io.stdout.write(`maintenance mode is ${state.enabled ? 'on' : 'off'}\n`);
          return 0;
        });
      });
  verb('on', 'switch maintenance mode on (catalogAdmin)');
  verb('off', 'switch maintenance mode off (catalogAdmin)');
  verb('status', 'show whether maintenance mode is on');
}
