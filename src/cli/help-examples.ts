/**
 * The examples of every command's help (every command's help shows at least one example),
 * kept in one table so the reference (docs/cli.md, generated from the command tree) and the help
 * agree, and so a verb without an example is caught by test/cli/output-help.test.ts. Examples name
 * only files the user has (no paths into this repository: they do not ship with the package).
 */
import type { EventEmitter } from 'node:events';
import type { Command } from 'commander';

/** Examples by command path (`parts list`); a noun shows the first example of each of its verbs. */
export const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  'attributes import': ['catalog attributes import attributes.csv', 'catalog attributes import - --format ndjson < attributes.ndjson', 'catalog attributes import attributes.csv --dry-run'],
  'attributes list': ['catalog attributes list', 'catalog attributes list -o csv > attributes.csv   # imports again as it is'],
  'attributes get': ['catalog attributes get vendor class -o json'],
  'attributes delete': ['catalog attributes delete stock_bin'],
  'parts import': [
    'catalog parts import parts.csv',
    'catalog parts import parts.ndjson --batch-size 500 --errors rejected.ndjson',
    'catalog parts import erp-export.csv --sync --prune --dry-run   # what would change and what would be deleted',
    'catalog parts import erp-export.csv --sync --prune --scope part_id=ACME-*',
    "catalog parts import npm.csv --id-replace '/=:'   # npm/react is stored as npm:react",
  ],
  'parts list': ['catalog parts list                         # one page on a terminal, with the next page\'s command', 'catalog parts list --fields part_id,name.en,attr:vendor.en', 'catalog parts list -o ndjson > parts.ndjson   # every part, streamed', 'catalog parts list --changed-since 1200 -o ndjson > delta.ndjson   # then: catalog --remote <copy> parts import delta.ndjson'],
  changes: ['catalog changes --since 1200 -o ndjson', 'catalog changes --follow --types part,image -o ndjson'],
  'webhooks add': ['catalog webhooks add erp https://erp.example.com/catalog-hook --types part'],
  'webhooks list': ['catalog webhooks list'],
  'webhooks remove': ['catalog webhooks remove erp'],
  'webhooks deliveries': ['catalog webhooks deliveries erp --limit 20'],
  backup: ['catalog --data-dir /srv/catalog backup /backups/catalog-$(date +%F)', 'catalog --blob-url s3://catalog-images/prod backup --verify-dump catalog.dump'],
  restore: ['catalog --data-dir /srv/catalog-restored restore /backups/catalog-2026-11-28'],
  'parts get': ['catalog parts get pci:8086:1539 -o json'],
  'parts delete': ['catalog parts delete pci:8086:1539 pci:8086:15b8'],
  'parts show': ['catalog parts show pci:8086:1539'],
  'images upload': ['catalog images upload images.csv --dir photos/', 'catalog images upload wrench.jpg wrench-side.jpg --part tool:wrench-10 --info "display searchable"'],
  'images sync': [
    'catalog images sync photos/                       # photos/AB-123.jpg, photos/AB-123_2.jpg ...',
    'catalog images sync photos/ --part-from \'^(?<part_id>[^_]+)_(?<n>\\d+)\\.jpg$\' --info "display searchable"',
    'catalog images sync photos/ --prune --dry-run     # lists the images --prune would delete',
  ],
  'images list': ['catalog images list --part tool:wrench-10'],
  'images get': ['catalog images get wrench -o json'],
  'images download': ['catalog images download wrench -O wrench.jpg', 'catalog images download wrench -O - > wrench.jpg'],
  'images delete': ['catalog images delete wrench'],
  'images order': ['catalog images order tool:wrench-10'],
  'images audit': [
    'catalog images audit tool:wrench-10',
    'catalog images audit --since-change 1200 --min-rank1 0.9   # after an upload batch, in CI: exit 3 below 90 % at rank 1',
    'catalog images audit --conditions copy -o csv > findability.csv',
  ],
  'relations import': ['catalog relations import relations.csv', 'catalog relations import relations.csv --dry-run   # checks that the parts exist'],
  'relations add': ['catalog relations add pci:8086:1539 pci:8086:15b8 --type equivalent'],
  'relations get': ['catalog relations get pci:8086:1539 --type substitute'],
  'synonyms import': ['catalog synonyms import synonyms.csv   # synonym_id,input,synonyms: fasteners,,bolt|screw and hex,hex,hexagon', 'catalog synonyms import - --format ndjson < synonyms.ndjson'],
  'synonyms list': ['catalog synonyms list', 'catalog synonyms list -o csv > synonyms.csv   # imports again as it is'],
  'synonyms delete': ['catalog synonyms delete fasteners'],
  'organizations import': ['catalog organizations import organizations.csv   # org_id,parent_id: acme, and acme-eu,acme', 'catalog organizations import - --format ndjson < organizations.ndjson'],
  'organizations list': ['catalog organizations list', 'catalog organizations list -o csv > organizations.csv   # imports again as it is'],
  api: [
    'catalog api GET /1/catalog/info',
    'catalog api POST /1/catalog/parts/list --input request.json',
    'echo \'{"matches": {"text": "pump"}}\' | catalog --remote https://catalog.example api POST /1/find/search --input -',
    'catalog --remote https://catalog.example api GET /metrics   # a token allowed the metrics scope',
  ],
  search: [
    'catalog search gigabit ethernet',
    'catalog search ethernet --highlights --attributes --images',
    'catalog search ethernet --facet-values vendor --prefix int',
    'catalog search ethernet --filter "class=Ethernet controller" --limit 10',
    'catalog search --image photo.jpg',
    'cat photo.jpg | catalog search --image -',
    'catalog search --session <sessionId> --page 2',
    'catalog search ethernet --all -o ndjson > hits.ndjson',
    'catalog search bearing --sort price:asc',
  ],
  'search eval': [
    'catalog search eval judgments.csv',
    'catalog search eval judgments.csv --save relevance.json   # keep the figures',
    'catalog --remote https://catalog.example search eval judgments.csv --baseline relevance.json   # exit 3 when a figure got worse',
  ],
  serve: [
    'catalog tokens create --name admin --role catalogAdmin   # serve needs a token first',
    'catalog serve --port 8080 --access-log serve.log',
    './node_modules/.bin/catalog serve &   # then kill $! stops the server ($! of "npx catalog serve &" is npx)',
  ],
  migrate: [
    'catalog --data-dir ./.catalog migrate --to postgres://catalog@db.internal:5432/catalog --blob-url s3://my-catalog/originals',
    'catalog migrate --to "$CATALOG_TARGET_URL" --blob-url s3://my-catalog/originals   # again after Ctrl-C or a crash: continues',
  ],
  'tokens create': ['TOKEN=$(catalog tokens create --name ci --role catalogAdmin)', 'catalog tokens create --name acme-reader --role factoryWorker --org acme', 'catalog tokens create --name shop --role factoryWorker --scope search --scope parts:read --expires-in 30d', 'catalog --remote https://catalog.example tokens create --name ci2 --role dataContributor   # over HTTP'],
  'tokens list': ['catalog tokens list', 'catalog --remote https://catalog.example tokens list -o json'],
  'tokens rotate': ['NEW=$(catalog tokens rotate shop)', 'catalog tokens rotate shop --expires-in 90d'],
  'tokens revoke': ['catalog tokens revoke ci'],
  'tokens whoami': ['catalog --remote http://127.0.0.1:8080 tokens whoami   # exit 4 for a bad token'],
  'maintenance on': ['catalog --remote http://127.0.0.1:8080 maintenance on'],
  'maintenance off': ['catalog maintenance off'],
  'maintenance status': ['catalog maintenance status   # exit 5 while on'],
  'settings get': ['catalog settings get', 'catalog --remote https://catalog.example settings get -o json'],
  'settings set': ['catalog settings set --custom-ranking popularity:desc', 'catalog settings set --custom-ranking none'],
  config: ['catalog config', 'catalog --profile prod config'],
  completion: ['eval "$(catalog completion bash)"', 'catalog completion zsh > ~/.zfunc/_catalog'],
};

/** The command path of `command` without the program name, e.g. `parts list`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The examples shown by `command`'s help: its own, or for a noun the first of each verb's. */
export function examplesOf(command: Command): string[] {
  const own = EXAMPLES[commandPath(command)];
  if (own) return [...own];
  return command.commands.flatMap((verb) => EXAMPLES[commandPath(verb)]?.slice(0, 1) ?? []);
}

/**
 * Adds an "Examples:" section to the help of every command of the tree below `root` that has no
 * text after its help yet (a verb may declare its own examples with addHelpText).
 */
export function addExamples(root: Command): void {
  for (const command of root.commands) {
    const examples = examplesOf(command);
    // A Command is an EventEmitter (commander's typings leave it out); addHelpText adds an 'afterHelp' listener.
    const own = (command as unknown as EventEmitter).listenerCount('afterHelp') > 0;
    if (examples.length > 0 && !own) command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`);
    addExamples(command);
  }
}
