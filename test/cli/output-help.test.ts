/**
 * Every command's help: its options and the global ones (-o, --fields ...),
 * at least one example, and no pointer at files that do not ship with the package. docs/cli.md is
 * the reference generated from the same command tree; this test fails when it is stale.
 * Regenerate: `UPDATE_CLI_DOCS=1 npx vitest run test/cli/output-help.test.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandPath } from '../../src/cli/help-examples.js';
import { buildProgram } from '../../src/cli/program.js';

const DOC = join(import.meta.dirname, '..', '..', 'docs', 'cli.md');
const SHIPPED = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { files: string[] };

/** Every command of the tree, depth first, the program first. */
function commands(root: Command): Command[] {
  return [root, ...root.commands.flatMap((c) => commands(c))];
}

/** The full help of `command` as `catalog ... --help` prints it, 100 columns wide. */
function helpOf(command: Command): string {
  let text = '';
  command.configureHelp({ ...command.configureHelp(), helpWidth: 100 });
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.outputHelp();
  return text;
}

const PREFACE = `# The \`catalog\` command line: reference

Generated from the command tree (every command's \`--help\`) by test/cli/output-help.test.ts, which
fails when this file is stale. Regenerate with
\`UPDATE_CLI_DOCS=1 npx vitest run test/cli/output-help.test.ts\`; do not edit by hand.
The error messages and their exit codes are in [cli-errors.md](cli-errors.md).

## Modes and configuration

- Local mode (the default) works on a data directory: \`--data-dir <dir>\`, env \`CATALOG_DATA_DIR\`,
  default \`./.catalog\`. The directory is created by the first write (an import, an upload,
  \`tokens create\`); a read (\`list\`, \`get\`, \`show\`, \`search\` ...) of a directory that does not
  exist fails with exit 6 naming it, instead of answering from an empty catalog.
- Remote mode: \`--remote <url>\` or env \`CATALOG_URL\`, with a token from env \`CATALOG_TOKEN\` or
  \`--token-file <file>\`. An address that answers something other than the catalog API (an HTML
  page, a proxy error) is reported in one line naming the URL, the status and the content type.
- Precedence: flags > environment > profile > defaults. \`catalog config\` shows each value and where
  it came from.

### Profiles: \`$XDG_CONFIG_HOME/catalog/config.json\`

\`--profile <name>\` (or env \`CATALOG_PROFILE\`) reads the named profile from
\`$XDG_CONFIG_HOME/catalog/config.json\` (\`~/.config/catalog/config.json\` when \`XDG_CONFIG_HOME\` is
not set). The file is one JSON object with a \`profiles\` map; each profile may set \`remote\` (the
server URL), \`tokenFile\` (a file holding the token; relative paths are resolved from the current
directory), \`dataDir\` (a local data directory) and \`output\` (a default \`-o\` format). Any other key
is an error naming it (exit 2).

\`\`\`json
{
  "profiles": {
    "prod": { "remote": "https://catalog.example.com", "tokenFile": "/home/me/.config/catalog/prod.token", "output": "json" },
    "scratch": { "dataDir": "/tmp/catalog-scratch" }
  }
}
\`\`\`

\`catalog --profile prod parts list\` then lists the parts of the production server as JSON.

## Output

- \`-o table|json|ndjson|csv|tsv\`. Default: a table on a terminal, TSV with a header in a pipe. Data
  goes to stdout; progress, summaries, hints and errors to stderr.
- Tables fit the terminal's width (long cells end with \`…\`), show nested values as text
  (\`en: Colour\`, attribute values as \`class: Ethernet controller; stock_bin@acme: R0-0\`) and draw no
  line between rows.
- \`list\` on a terminal prints one page of 30 rows and, on stderr, the commands for the next page and
  for all of them; in a pipe (or with \`--all\`) it prints every record, page by page as they arrive.
- \`--fields a,b,c\` means the same in every format: a top-level field (\`name\`), a nested one
  (\`name.en\`), or for parts a CSV column (\`attr:vendor.en\`). json and ndjson keep the record's shape
  (\`name.en\` prints \`{"name": {"en": ...}}\`); csv and tsv print a top-level field as its CSV
  columns (\`name\` → \`name.en\`, \`name.de\` ...; \`attributes\` → every \`attr:\` column).
- csv and tsv are safe to open in a spreadsheet: a text beginning with \`=\`, \`+\`, \`-\`, \`@\`, a tab or
  CR (a formula to Excel, LibreOffice, Google Sheets) is written with a leading \`'\`, and every
  import removes that one \`'\` again, so an export re-imports exactly (docs/import-formats.md).
  \`--raw-csv\` writes such cells as stored, for programs.
- Bulk runs (imports, uploads) end with a summary on stderr: the counts, the first rejected rows
  (line or id, and message) and the errors file holding all of them in input order. A CSV header
  naming an unknown column is refused before any row, with a "did you mean" (exit 2).

## Sync: a folder of photos and a parts sheet, run again and again

Contributors who keep their catalog in files (a parts sheet exported nightly, a folder of photos
named after part numbers) re-run the same two commands; only what changed moves.

- \`parts import <sheet> --sync\`: a row equal to the stored part (the same names, the same values
  of each attribute it gives, any order) is not sent; one select per batch compares the rows the
  sync state (below) does not already know to be equal. The
  summary counts it as unchanged. Checkpoints and \`--resume\` are those of an import.
- \`images sync <folder>\`: every image file under the folder (recursively; .jpg .jpeg .png .webp
  .gif .tif .tiff .avif; hidden files skipped) is the image whose image_id is its path relative to
  the folder with \`/\` written as \`~\` (\`2024/AB-123_2.jpg\` → \`2024~AB-123_2.jpg\`), so a re-run
  updates what it stored before. The naming convention binds it to a part: the file name is
  \`<part_id>.<ext>\` or \`<part_id>_<n>.<ext>\`. \`--part-from '<regex>'\` replaces it: a JavaScript
  regular expression with a named group \`part_id\`, matched against the file name (against the
  relative path when it contains \`/\`). Info tokens: a side-car \`<photo>.info\` file
  (\`AB-123_2.jpg.info\` holding \`display weight=2\`), else \`--info\`, else \`display\`. A photo
  whose SHA-256 equals the stored original's ETag is not sent; one whose info or part changed
  alone is sent without its bytes. Photos whose name does not match, or whose part does not exist,
  are unmatched: not sent, listed in the summary and in \`<folder>.unmatched.txt\`. An interrupted
  or killed sync resumes by running it again (what is stored is skipped, ids are paths, so nothing
  is stored twice).
- \`--prune\` (with \`--sync\` for parts): the source is the whole truth for what \`--scope\` covers
  (\`part_id=<prefix>*\`, or \`<attribute_id>=<value>\`: parts with that value in any language and
  organization; images of such parts; default everything), and the stored items in scope it no
  longer holds are deleted once every row or photo is done, their ids printed on stdout (\`-o json\`:
  \`deletedIds\`). \`--dry-run\` changes nothing and prints what would be deleted
  (\`wouldDelete\`). More than \`--max-delete\` (a count, or a share of the items in scope; default
  10 %) is refused: nothing is deleted, exit 1, so a truncated export never empties a catalog. A
  part that still has images is not pruned (rejected, exit 3): prune its images first.
- The sync state: a run remembers what it learnt in \`$XDG_CACHE_HOME/catalog/sync/\` (default
  \`~/.cache/catalog/sync/\`; one file per source and catalog), so the next run over unchanged
  sources does not redo it. \`images sync\` remembers each photo's SHA-256 by path, size and
  modification time and stats a photo instead of reading it when both are unchanged; a remembered
  hash the stored ETag disagrees with is hashed again from the file before anything is sent.
  \`parts import --sync\` remembers, per part, the row the catalog was seen to hold and the change
  feed's number at the end of the run; the next run asks the feed (\`POST /1/catalog/changes\`)
  which parts anyone wrote since and compares only those, and rows that differ from the
  remembered one, with the stored part; a sheet with the very bytes of the last finished run
  (same format and \`--id-replace\`), every row of which was remembered, on parts and attributes
  nobody wrote since, is not read at all, and nothing is written, not even the state (it still
  says all there is; the next run reads the feed from its number). A changed sheet is read whole,
  but a row the state knows (the row as mapped hashes to the one remembered for that part, and
  nobody wrote the part since) is neither validated nor compared: one changed cell changes the
  row's hash, so that row alone is compared, and sent if it differs from the stored part.
  \`--prune\` lists the catalog's part_ids alone, not their values. A feed that no longer reaches
  back (retention) means a full comparison. The state is a cache: deleting it costs time, not
  correctness, and \`--no-sync-state\` ignores it. Blind spots, by design: a photo rewritten with
  other bytes of the same size *and* its old modification time put back is taken as unchanged
  (photos whose time is within 2 s of the run are always hashed); a catalog restored from a backup
  to an older state at the same data directory or URL, whose feed has since grown past the
  remembered number, is not noticed. Use \`--no-sync-state\` after either.
- The summary: created, updated, unchanged, pruned, unmatched, rejected, with the errors file
  (\`<sheet>.errors.<ext>\`, \`<folder>.errors.ndjson\`) holding every rejected row or photo; on a
  terminal a progress line with the rate and (for a folder) the time left.

## Image audit: how findable are the references

\`catalog images audit [part_id...]\` runs the image audit (docs/api.md "Image audit") page by page,
in local mode and with \`--remote\` alike: one row per reference with its size, keypoints, contrast,
one column per condition (\`1 0.93\`: found first with that score; \`3 ← p7\`: rank 3, part p7 found
first; \`–\`: not in the first 20) and the advice. \`-o json\` gives the full results. Stderr ends
with a summary, \`audited 120 reference images; found at rank 1: copy 100 %, closer 98 %, ...\`. For
CI, \`--min-rank1 0.9\` exits 3 when a condition's share at rank 1 is below 0.9 (naming those
conditions); 0 otherwise. After an upload batch, \`--since-change N\` audits only the images uploaded
or changed after change N of the change feed (\`catalog changes\`) and prints the number to pass next
time; \`--uploaded-since 12h\` (or an ISO 8601 time) those uploaded since then. \`--conditions
copy,angle\` runs only those conditions (cheaper).

## Exit codes

| code | meaning |
|---|---|
| 0 | success, including an empty result |
| 1 | runtime error, or a bug (then the message says so, with versions) |
| 2 | usage error |
| 3 | partial: some items of a bulk operation were rejected; \`search eval\`: a figure worse than \`--baseline\` |
| 4 | authentication or permission |
| 5 | service unavailable: maintenance mode, the server unreachable, or not a catalog server |
| 6 | not found (an id, a search session, a data directory to read) |
| 130 | interrupted |

## Commands
`;

function reference(program: Command): string {
  const sections = commands(program).map((c) => {
    const path = commandPath(c);
    return `### catalog${path ? ` ${path}` : ''}\n\n\`\`\`text\n${helpOf(c).trimEnd()}\n\`\`\`\n`;
  });
  return `${PREFACE}\n${sections.join('\n')}`;
}

describe('help of every command', () => {
  const program = buildProgram(async () => undefined);
  const all = commands(program);

  it.each(all.map((c) => [commandPath(c) || '(program)', c] as const))('%s: options, global -o and --fields, an example, no unshipped file', (_name, command) => {
    const help = helpOf(command);
    expect(help).toMatch(/-o, --output <format>/);
    expect(help).toMatch(/--fields <list>/);
    for (const option of command.options) expect(help).toContain(option.flags);
    const examples = /\nExamples:\n((?: {2}\S.*\n?)+)/.exec(help);
    expect(examples, help).not.toBeNull();
    // Files of this repository that the package does not ship (package.json "files": bin, dist).
    for (const m of help.matchAll(/(?:^|[\s(])((?:\.\/)?(?:fixtures|docs|test|scripts|src)\/\S*|\S+\.md)\b/g)) {
      expect(SHIPPED.files.some((f) => (m[1] ?? '').replace(/^\.\//, '').startsWith(`${f}/`)), `${m[1]} in:\n${help}`).toBe(true);
    }
  });

  it('docs/cli.md is the reference of the current command tree', () => {
    const doc = reference(buildProgram(async () => undefined));
    if (process.env.UPDATE_CLI_DOCS === '1') writeFileSync(DOC, doc);
    expect(readFileSync(DOC, 'utf8'), 'docs/cli.md is stale: run UPDATE_CLI_DOCS=1 npx vitest run test/cli/output-help.test.ts').toBe(doc);
  });
});
