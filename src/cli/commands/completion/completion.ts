/**
 * `catalog completion bash|zsh|fish`: shell completion scripts generated from the commander tree,
 * so they list exactly the nouns, verbs and options the program has.
 */
import { Argument, type Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import type { Invoke } from '../../runner.js';

/** Declares `catalog completion <shell>` on the program (whose tree the scripts list). */
export function declare(program: Command, invoke: Invoke): Command {
  return program
    .command('completion')
    .description('print a shell completion script (bash: eval "$(catalog completion bash)")')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .action(async (shell: string, _o: unknown, command: Command) => {
      await invoke(command, (ctx) => run(ctx, shell, program));
    });
}

/** One command of the tree as completion sees it: where it is, what follows it, what it takes. */
export interface CompletionNode {
  /** The command words after `catalog`, e.g. `parts import`; `''` for the program itself. */
  path: string;
  /** Its subcommands (nouns under the program, verbs under a noun). */
  commands: string[];
  /** Its own option spellings (`--limit`, `-o`), and for the program the global ones. */
  options: string[];
  /** Choices of its first argument (`completion <shell>`), when it has a fixed set. */
  argumentChoices: string[];
}

/** The whole tree: every command, every option that takes a value, and the values some of them take. */
export interface CompletionTree {
  nodes: CompletionNode[];
  /** Every option spelling that takes a value, anywhere (the word after it is that value, not a command). */
  valued: string[];
  /** Options whose value is a file or a directory, by spelling. */
  paths: { files: string[]; directories: string[] };
  /** Fixed values of options (`-o` → table json ...), by spelling. */
  choices: Record<string, string[]>;
}

/** Options whose value names a directory (completed with directory names). */
const DIRECTORY_VALUE = /<(dir|directory)>/;
/** Options whose value names a file (completed with file names). */
const FILE_VALUE = /<(file|manifest)>/;
/** The global -o values (commander's option has no choices: a profile may set it too). */
const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'];

interface CommandInternals {
  registeredArguments?: readonly { argChoices?: string[] }[];
}

/** Reads the tree from the built program, every command of it (completion and help included). */
function completionTree(program: Command): CompletionTree {
  const nodes: CompletionNode[] = [];
  const valued = new Set<string>();
  const files = new Set<string>();
  const directories = new Set<string>();
  const choices: Record<string, string[]> = { '-o': OUTPUT_FORMATS, '--output': OUTPUT_FORMATS };
  const visit = (command: Command, path: string[]): void => {
    const spellings: string[] = [];
    for (const option of command.options) {
      const names = [option.short, option.long].filter((n): n is string => n !== undefined);
      spellings.push(...names);
      if (option.required || option.optional) {
        for (const n of names) valued.add(n);
        if (DIRECTORY_VALUE.test(option.flags)) for (const n of names) directories.add(n);
        else if (FILE_VALUE.test(option.flags)) for (const n of names) files.add(n);
        if (option.argChoices) for (const n of names) choices[n] = [...option.argChoices];
      }
    }
    const subcommands = command.commands.map((c) => c.name());
    if (subcommands.length > 0 && !subcommands.includes('help')) subcommands.push('help');
    const argumentChoices = (command as unknown as CommandInternals).registeredArguments?.[0]?.argChoices ?? [];
    nodes.push({ path: path.join(' '), commands: subcommands, options: [...new Set([...spellings, '--help'])], argumentChoices: [...argumentChoices] });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return { nodes, valued: [...valued], paths: { files: [...files], directories: [...directories] }, choices };
}

/** A word list for a shell script (double-quoted, no expansion). */
function words(list: readonly string[]): string {
  return list.join(' ').replace(/["\\$`]/g, '\\$&');
}

/**
 * bash: the command path is the words typed so far that are neither options nor an option's value
 * (so `catalog --data-dir cc search --im<TAB>` completes search's `--images`); options complete
 * the path's own and the global ones; after an option that takes a value, its choices, file or
 * directory names, or nothing; otherwise the path's subcommands, its argument's choices, or files.
 */
function bashScript(tree: CompletionTree): string {
  const global = tree.nodes.find((n) => n.path === '')?.options ?? [];
  const cases = tree.nodes
    .map((n) => `    "${n.path}") subs="${words([...n.commands, ...n.argumentChoices])}"; opts="${words(n.path === '' ? global : [...new Set([...n.options, ...global])])}" ;;`)
    .join('\n');
  const choiceCases = Object.entries(tree.choices).map(([o, values]) => `    ${o}) COMPREPLY=($(compgen -W "${words(values)}" -- "$cur")); return ;;`).join('\n');
  const fileOptions = tree.paths.files.join('|') || '--no-such-option';
  const directoryOptions = tree.paths.directories.join('|') || '--no-such-option';
  return `# catalog bash completion: eval "$(catalog completion bash)"
_catalog() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" valued=" ${words(tree.valued)} " path="" subs="" opts="" i w skip=0
  (( COMP_CWORD > 1 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for (( i = 1; i < COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    if (( skip )); then skip=0; continue; fi
    if [[ "$w" == -* ]]; then [[ "$w" != *=* && "$valued" == *" $w "* ]] && skip=1; continue; fi
    path="\${path:+$path }$w"
  done
  if [[ "$prev" == -* && "$valued" == *" $prev "* ]]; then
    case "$prev" in
${choiceCases}
    ${fileOptions}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    ${directoryOptions}) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    *) COMPREPLY=(); return ;;
    esac
  fi
  case "$path" in
${cases}
    *) return ;;
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [[ -n "$subs" ]]; then COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -F _catalog catalog
`;
}

/** The completion script of a shell. Throws UsageError for an unknown shell. */
function completionScript(shell: string, tree: CompletionTree): string {
  switch (shell) {
    case 'bash':
      return bashScript(tree);
    case 'zsh':
      // zsh runs the bash function through its bash-completion layer: one generator, one behaviour.
      return `#compdef catalog
# catalog zsh completion: eval "$(catalog completion zsh)"
autoload -U +X bashcompinit && bashcompinit
${bashScript(tree).split('\n').slice(1).join('\n')}`;
    case 'fish': {
      const lines = [`# catalog fish completion: catalog completion fish | source`, `complete -c catalog -f`];
      for (const node of tree.nodes) {
        const path = node.path.split(' ').filter((w) => w !== '');
        // The path's words typed and none of its subcommands yet.
        const here = [...path.map((w) => `__fish_seen_subcommand_from ${w}`), ...(node.commands.length > 0 ? [`not __fish_seen_subcommand_from ${node.commands.join(' ')}`] : [])];
        const condition = path.length === 0 ? '__fish_use_subcommand' : here.join('; and ');
        const values = [...node.commands, ...node.argumentChoices];
        if (values.length > 0) lines.push(`complete -c catalog -n '${condition}' -a '${values.join(' ')}'`);
        for (const option of node.options) {
          const flag = option.startsWith('--') ? `-l ${option.slice(2)}` : `-s ${option.slice(1)}`;
          const takes = tree.valued.includes(option) ? ` -r${tree.choices[option] ? ` -a '${tree.choices[option].join(' ')}'` : tree.paths.files.includes(option) || tree.paths.directories.includes(option) ? ' -F' : ''}` : '';
          lines.push(`complete -c catalog${path.length === 0 ? '' : ` -n '${condition}'`} ${flag}${takes}`);
        }
      }
      return `${[...new Set(lines)].join('\n')}\n`;
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
