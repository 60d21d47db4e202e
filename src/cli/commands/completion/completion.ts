/**
 * `catalog completion bash|zsh|fish`: shell completion scripts generated from the commander tree,
 * so they list exactly the nouns, verbs and options the program has.
 */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import type { Invoke } from '../../runner.js';

/** Declares `catalog completion <shell>` on the program (whose tree the scripts list). */
export function declare(program: Command, invoke: Invoke): Command {
  return program
    .command('completion')
    .description('print a shell completion script (bash: eval "$(catalog completion bash)")')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell: string, _o: unknown, command: Command) => {
      await invoke(command, (ctx) => run(ctx, shell, program));
    });
}

/** Nouns with their verbs, and the long options of each verb plus the global ones. */
export interface CompletionTree {
  globalOptions: string[];
  nouns: { name: string; verbs: { name: string; options: string[] }[]; options: string[] }[];
}

function longOptions(command: Command): string[] {
  return command.options.flatMap((o) => (o.long ? [o.long] : []));
}

/** Reads the tree from the built program (the `completion` command itself left out). */
function completionTree(program: Command): CompletionTree {
  return {
    globalOptions: [...longOptions(program), '--help', '--version'],
    nouns: program.commands
      .filter((c) => c.name() !== 'completion' && c.name() !== 'help')
      .map((noun) => ({
        name: noun.name(),
        options: longOptions(noun),
        verbs: noun.commands.map((verb) => ({ name: verb.name(), options: longOptions(verb) })),
      })),
  };
}

/** The completion script of a shell. Throws UsageError for an unknown shell. */
function completionScript(shell: string, tree: CompletionTree): string {
  const nouns = tree.nouns.map((n) => n.name).join(' ');
  const global = tree.globalOptions.join(' ');
  switch (shell) {
    case 'bash': {
      const cases = tree.nouns
        .map((n) => {
          const verbCases = n.verbs.map((v) => `        ${v.name}) opts="${[...v.options, ...tree.globalOptions].join(' ')}" ;;`).join('\n');
          return `    ${n.name})\n      if [ "$cword" -eq 2 ]; then COMPREPLY=($(compgen -W "${n.verbs.map((v) => v.name).join(' ')}" -- "$cur")); return; fi\n      case "\${COMP_WORDS[2]}" in\n${verbCases}\n        *) opts="${[...n.options, ...tree.globalOptions].join(' ')}" ;;\n      esac ;;`;
        })
        .join('\n');
      return `# catalog bash completion: eval "$(catalog completion bash)"
_catalog() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cword=$COMP_CWORD opts=""
  if [ "$cword" -eq 1 ]; then COMPREPLY=($(compgen -W "${nouns} ${global}" -- "$cur")); return; fi
  case "\${COMP_WORDS[1]}" in
${cases}
    *) opts="${global}" ;;
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -F _catalog catalog
`;
    }
    case 'zsh': {
      const verbLines = tree.nouns.map((n) => `    ${n.name}) verbs=(${n.verbs.map((v) => v.name).join(' ')}) ;;`).join('\n');
      return `#compdef catalog
# catalog zsh completion: eval "$(catalog completion zsh)"
_catalog() {
  local -a nouns verbs
  nouns=(${nouns})
  if (( CURRENT == 2 )); then compadd -- $nouns ${global}; return; fi
  case $words[2] in
${verbLines}
  esac
  if (( CURRENT == 3 )); then compadd -- $verbs; else _files; fi
}
compdef _catalog catalog
`;
    }
    case 'fish': {
      const lines = [`# catalog fish completion: catalog completion fish | source`, `complete -c catalog -f`];
      lines.push(`complete -c catalog -n '__fish_use_subcommand' -a '${nouns}'`);
      for (const o of tree.globalOptions) lines.push(`complete -c catalog -l ${o.slice(2)}`);
      for (const n of tree.nouns) {
        lines.push(`complete -c catalog -n '__fish_seen_subcommand_from ${n.name}' -a '${n.verbs.map((v) => v.name).join(' ')}'`);
        for (const v of n.verbs) for (const o of v.options) lines.push(`complete -c catalog -n '__fish_seen_subcommand_from ${v.name}' -l ${o.slice(2)}`);
      }
      return `${lines.join('\n')}\n`;
    }
    default:
      throw new UsageError(`unknown shell '${shell}'; use bash, zsh or fish`);
  }
}

/** Prints the script on stdout; exit 2 for an unknown shell. */
export async function run(ctx: CommandContext, shell: string, program: Command): Promise<number> {
  ctx.io.stdout.write(completionScript(shell, completionTree(program)));
  return EXIT.OK;
}
