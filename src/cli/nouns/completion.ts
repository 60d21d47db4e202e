/** `catalog completion bash|zsh|fish`. */
import type { Command } from 'commander';
import type { Invoke } from '../runner.js';

export function registerCompletion(program: Command, invoke: Invoke): void {
  program
    .command('completion')
    .description('print a shell completion script (bash: eval "$(catalog completion bash)")')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell: string, _o: unknown, command: Command) => {
      await invoke(command, async (ctx) => (await import('../commands/completion.js')).runCompletion(ctx, shell, program));
    });
}
