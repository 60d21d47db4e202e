/**
 * The commander tree of `catalog <noun> <verb>` (design/cli.md): registers the nouns. Each verb lives
 * in src/cli/commands/<noun>/<verb>.ts with its declaration and its run function; building the tree
 * loads only the declarations (commander), and a verb loads what it needs when it runs, so
 * `catalog --version` and `--help` stay cheap.
 */
import { VERSION } from './version.js';
import { Command, Option } from 'commander';
import * as api from './commands/api/api.js';
import * as attributes from './commands/attributes/index.js';
import * as synonyms from './commands/synonyms/index.js';
import * as completion from './commands/completion/completion.js';
import * as config from './commands/config/config.js';
import * as images from './commands/images/index.js';
import * as maintenance from './commands/maintenance/index.js';
import * as settings from './commands/settings/index.js';
import * as migrate from './commands/migrate/migrate.js';
import * as organizations from './commands/organizations/index.js';
import * as parts from './commands/parts/index.js';
import * as relations from './commands/relations/index.js';
import * as search from './commands/search/search.js';
import * as serve from './commands/serve/serve.js';
import * as tokens from './commands/tokens/index.js';
import * as changes from './commands/changes/changes.js';
import * as webhooks from './commands/webhooks/index.js';
import * as backup from './commands/backup/backup.js';
import { addExamples } from './help-examples.js';
import type { Invoke } from './runner.js';

/** Version shown by `catalog --version` and in bug reports. */
export { VERSION };

/** Registers one top-level command (a noun with its verbs, or a single command) on the program. */
type Registration = (program: Command, invoke: Invoke) => unknown;

/** Every top-level command in help order, by name. */
const COMMANDS: ReadonlyArray<readonly [string, Registration]> = [
  ['attributes', attributes.register],
  ['parts', parts.register],
  ['images', images.register],
  ['relations', relations.register],
  ['synonyms', synonyms.register],
  ['organizations', organizations.register],
  ['search', search.declare],
  ['tokens', tokens.register],
  ['maintenance', maintenance.register],
  ['settings', settings.register],
  ['changes', changes.declare],
  ['webhooks', webhooks.register],
  ['backup', backup.declareBackup],
  ['restore', backup.declareRestore],
  ['serve', serve.declare],
  ['migrate', migrate.declare],
  ['api', api.declare],
  ['config', config.declare],
  ['completion', completion.declare],
];

/** The program's own options, which every command's help lists too (-o, --fields, --data-dir ...). */
function globalOptions(): Option[] {
  return [
    new Option('--data-dir <dir>', 'local data directory (env CATALOG_DATA_DIR; default ./.catalog)'),
    new Option('--database-url <url>', 'keep the catalog in PostgreSQL: postgres://user:password@host:5432/db (env CATALOG_DATABASE_URL)'),
    new Option('--blob-url <url>', 'keep image originals in S3-compatible storage: s3://bucket/prefix (env CATALOG_BLOB_URL)'),
    new Option('--remote <url>', 'work against a catalog server instead (env CATALOG_URL)'),
    new Option('--token-file <file>', 'file holding the access token for --remote (or env CATALOG_TOKEN)'),
    new Option('--token <token>', 'access token (leaks into shell history: prefer CATALOG_TOKEN or --token-file)'),
    new Option('--profile <name>', 'profile from $XDG_CONFIG_HOME/catalog/config.json (env CATALOG_PROFILE)'),
    new Option('-o, --output <format>', 'output format: table, json, ndjson, csv, tsv (default: table on a terminal, tsv when piped)'),
    new Option('--fields <list>', 'comma-separated fields to print, the same in every format: top-level (name), nested (name.en) or CSV columns (attr:vendor.en)'),
    new Option('--raw-csv', "csv/tsv cells exactly as stored: no ' before a text beginning with =, +, -, @ (a spreadsheet runs such a cell as a formula)"),
    new Option('--no-color', 'no colour (also NO_COLOR)'),
    new Option('-q, --quiet', 'no progress or summaries on stderr'),
  ];
}

/** The program's options that take a value (short and long spellings): the word after them is not a command. */
const GLOBAL_OPTIONS_WITH_VALUE = new Set(
  globalOptions().filter((o) => o.required || o.optional).flatMap((o) => [o.short, o.long].filter((f): f is string => f !== undefined)),
);

/**
 * The top-level command that `args` (process.argv after node and the script) runs, when it is one
 * of ours; undefined for `--help`, `help`, a typo or no command at all.
 */
export function invokedCommand(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    if (arg.startsWith('-')) {
      if (GLOBAL_OPTIONS_WITH_VALUE.has(arg)) i++;
      continue;
    }
    return COMMANDS.some(([name]) => name === arg) ? arg : undefined;
  }
  return undefined;
}

/**
 * Builds the program; `invoke` runs a verb (src/cli/main.ts). With `only`, the tree holds that one
 * top-level command (the one being run: building all forty commands, their options and help costs
 * every start-up a few ms); without it, every command (help, completion, docs/cli.md).
 */
export function buildProgram(invoke: Invoke, only?: string): Command {
  const program = new Command('catalog')
    // Every command's help lists the global options too: they apply there.
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .description('Manage a parts catalog and search it: locally in a data directory, or on a catalog server.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .enablePositionalOptions(false);
  for (const option of globalOptions()) program.addOption(option);
  program.addHelpText(
    'after',
    `
Exit codes: 0 ok, 1 error, 2 usage, 3 partial (some items rejected), 4 auth, 5 unavailable/maintenance, 6 not found, 130 interrupted.
Profiles: $XDG_CONFIG_HOME/catalog/config.json, e.g. {"profiles": {"prod": {"remote": "https://catalog.example.com", "tokenFile": "/home/me/.catalog-token", "output": "json"}}}
Examples:
  catalog attributes import attributes.csv
  catalog parts list -o json
  catalog --remote http://127.0.0.1:8080 search ethernet controller`,
  );
  for (const [name, register] of COMMANDS) if (only === undefined || name === only) register(program, invoke);
  addExamples(program);
  return program;
}
