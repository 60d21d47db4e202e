/**
 * The commander tree of `catalog <noun> <verb>` (design/cli.md): registers the nouns. Each verb lives
 * in src/cli/commands/<noun>/<verb>.ts with its declaration and its run function; building the tree
 * loads only the declarations (commander), and a verb loads what it needs when it runs, so
 * `catalog --version` and `--help` stay cheap.
 */
import { VERSION } from './version.js';
import { Command, Option } from 'commander';
import * as attributes from './commands/attributes/index.js';
import * as completion from './commands/completion/completion.js';
import * as config from './commands/config/config.js';
import * as images from './commands/images/index.js';
import * as maintenance from './commands/maintenance/index.js';
import * as migrate from './commands/migrate/migrate.js';
import * as parts from './commands/parts/index.js';
import * as relations from './commands/relations/index.js';
import * as search from './commands/search/search.js';
import * as serve from './commands/serve/serve.js';
import * as tokens from './commands/tokens/index.js';
import { addExamples } from './help-examples.js';
import type { Invoke } from './runner.js';

/** Version shown by `catalog --version` and in bug reports. */
export { VERSION };

/** Builds the program; `invoke` runs a verb (src/cli/main.ts). */
export function buildProgram(invoke: Invoke): Command {
  const program = new Command('catalog')
    // Every command's help lists the global options too (-o, --fields, --data-dir ...): they apply there.
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .description('Manage a parts catalog and search it: locally in a data directory, or on a catalog server.')
    .version(VERSION, '-V, --version')
    .option('--data-dir <dir>', 'local data directory (env CATALOG_DATA_DIR; default ./.catalog)')
    .option('--database-url <url>', 'keep the catalog in PostgreSQL: postgres://user:password@host:5432/db (env CATALOG_DATABASE_URL)')
    .option('--blob-url <url>', 'keep image originals in S3-compatible storage: s3://bucket/prefix (env CATALOG_BLOB_URL)')
    .option('--remote <url>', 'work against a catalog server instead (env CATALOG_URL)')
    .option('--token-file <file>', 'file holding the access token for --remote (or env CATALOG_TOKEN)')
    .addOption(new Option('--token <token>', 'access token (leaks into shell history: prefer CATALOG_TOKEN or --token-file)').hideHelp(false))
    .option('--profile <name>', 'profile from $XDG_CONFIG_HOME/catalog/config.json (env CATALOG_PROFILE)')
    .addOption(new Option('-o, --output <format>', 'output format: table, json, ndjson, csv, tsv (default: table on a terminal, tsv when piped)'))
    .option('--fields <list>', 'comma-separated fields to print, the same in every format: top-level (name), nested (name.en) or CSV columns (attr:vendor.en)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('-q, --quiet', 'no progress or summaries on stderr')
    .showHelpAfterError('(run with --help for usage)')
    .enablePositionalOptions(false);
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
  for (const noun of [attributes, parts, images, relations]) noun.register(program, invoke);
  for (const command of [search]) command.declare(program, invoke);
  tokens.register(program, invoke);
  maintenance.register(program, invoke);
  for (const command of [serve, migrate, config, completion]) command.declare(program, invoke);
  addExamples(program);
  return program;
}
