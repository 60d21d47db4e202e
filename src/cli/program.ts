/**
 * The commander tree of `catalog <noun> <verb>` (design/cli.md). Building it has no side effects;
 * each verb imports its module only when it runs, so start-up stays cheap.
 */
import { Command, Option } from 'commander';
import { registerAttributes } from './nouns/attributes.js';
import { registerCompletion } from './nouns/completion.js';
import { registerConfig } from './nouns/config.js';
import { registerMaintenance } from './nouns/maintenance.js';
import { registerParts } from './nouns/parts.js';
import { registerImages } from './nouns/images.js';
import { registerRelations } from './nouns/relations.js';
import { registerSearch } from './nouns/search.js';
import { registerServe } from './nouns/serve.js';
import { registerTokens } from './nouns/tokens.js';
import type { Invoke } from './runner.js';

/** Version shown by `catalog --version` and in bug reports. */
export const VERSION = '0.1.0';

/** Builds the program; `invoke` runs a verb (src/cli/main.ts). */
export function buildProgram(invoke: Invoke): Command {
  const program = new Command('catalog')
    .description('Manage a parts catalog and search it: locally in a data directory, or on a catalog server.')
    .version(VERSION, '-V, --version')
    .option('--data-dir <dir>', 'local data directory (env CATALOG_DATA_DIR; default ./.catalog)')
    .option('--remote <url>', 'work against a catalog server instead (env CATALOG_URL)')
    .option('--token-file <file>', 'file holding the access token for --remote (or env CATALOG_TOKEN)')
    .addOption(new Option('--token <token>', 'access token (leaks into shell history: prefer CATALOG_TOKEN or --token-file)').hideHelp(false))
    .option('--profile <name>', 'profile from $XDG_CONFIG_HOME/catalog/config.json (env CATALOG_PROFILE)')
    .addOption(new Option('-o, --output <format>', 'output format: table, json, ndjson, csv, tsv (default: table on a terminal, tsv when piped)'))
    .option('--fields <list>', 'comma-separated columns to show')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('-q, --quiet', 'no progress or summaries on stderr')
    .showHelpAfterError('(run with --help for usage)')
    .enablePositionalOptions(false);
  program.addHelpText(
    'after',
    `
Exit codes: 0 ok, 1 error, 2 usage, 3 partial (some items rejected), 4 auth, 5 unavailable/maintenance, 6 not found, 130 interrupted.
Examples:
  catalog attributes import fixtures/attributes.csv
  catalog parts list -o json
  catalog --remote http://127.0.0.1:8080 search "ethernet controller"`,
  );
  registerAttributes(program, invoke);
  registerParts(program, invoke);
  registerImages(program, invoke);
  registerRelations(program, invoke);
  registerSearch(program, invoke);
  registerTokens(program, invoke);
  registerMaintenance(program, invoke);
  registerServe(program, invoke);
  registerConfig(program, invoke);
  registerCompletion(program, invoke);
  return program;
}
