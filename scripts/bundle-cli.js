// Bundles the CLI (start-up): `npm run build` runs it after tsc. Node resolves and links
// every ESM file separately, and zod alone is ~230 of them, so `catalog search x` spent most of its
// start-up in the module loader. The bundle puts our code, zod and commander in a few files under
// dist/bundle/, split at every dynamic import() so a command loads only what it needs (the --help
// path does not load the catalog). bin/catalog.js runs dist/bundle/main.cjs.
//
// - Entries: the CLI (src/cli/main.ts, CommonJS), and
//   as ES modules the serve thread pool's worker, which pooled-catalog.ts finds beside itself
//   (`./catalog-worker.js`), the photo-feature worker (`./feature-worker.js`), the session writer
//   (`./session-writer-worker.js`) and the import reader
//   thread (`./entries-worker.js`), so every chunk lands in the one directory.
// - Native, large or path-sensitive packages stay external (sharp, pg, the AWS SDK, OpenCV,
//   fastify, piscina, ...): Node loads them from node_modules as before. better-sqlite3's
//   JavaScript is bundled, its addon loaded by path (src/adapters/sqlite/database.ts).
// - Source maps map to src/*.ts, for error reports (`node --enable-source-maps bin/catalog.js`).
// dist/ as tsc writes it stays as it is: tests, benchmarks and the e2e error table import from it.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'bundle');
/**
 * Chunks grouped by what a command loads together (start-up). Split only at dynamic
 * import(), the bundle came out as ~100 chunks, and `catalog search x` loaded 37 of them: Node's ESM
 * loader resolves, reads and links each one separately (~0.4 ms apiece on this machine, measured
 * with 40 one-line modules). Each group is the static closure of its roots (rolldown's
 * includeDependenciesRecursively), so it holds exactly the code its roots load today: no module runs
 * earlier than it did, and a command that never loads a root never loads its group.
 * - `version`: the version, which `catalog --version` loads alone.
 * - `cli`: what every start loads (the entry's static imports: commander, the command tree).
 * - `command`: what every command that runs loads (its context: the configuration, the output).
 * - `local`: the embedded catalog (the local client and the composition root, without the
 *   optional adapters they import() themselves: sharp, OpenCV, PostgreSQL, S3).
 * A module two groups would hold stays in the first (the higher priority).
 */
const CHUNK_GROUPS = [
  // `catalog --version` (bin/catalog.js) loads the version alone.
  { name: 'version', roots: ['src/cli/version.ts'] },
  { name: 'cli', roots: ['src/cli/main.ts'] },
  // The routes table is shared by the remote client, which must not load the local group.
  { name: 'command', roots: ['src/cli/context.ts', 'src/cli/output/emit.ts', 'src/cli/command-line.ts', 'src/api/routes.ts'] },
  { name: 'local', roots: ['src/cli/local-catalog.ts', 'src/client/local-client.ts', 'src/open-catalog.ts'] },
];

/**
 * Packages bundled in: pure ESM/CJS JavaScript whose many small files dominate start-up. Of
 * better-sqlite3 only the JavaScript: adapters/sqlite/database.ts loads its native addon itself.
 */
const BUNDLED = ['zod', 'commander', 'better-sqlite3'];

function isExternal(id) {
  if (id.startsWith('node:')) return true;
  if (id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false;
  const name = id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0];
  return !BUNDLED.includes(name);
}

/**
 * Built-in modules the CLI's chunks require on first use instead of when the chunk loads (issue 12,
 * start-up): a local `catalog search` uses none of them, and loading them cost it ~4 ms CPU
 * (node:crypto ~2.8 ms with its ~20 internal modules, node:child_process ~1.2 ms for commander's
 * executable subcommands, which the CLI has none of, node:fs/promises ~0.8 ms). Rolldown hoists
 * every import of a built-in to a `require()` at the top of the chunk; this turns each of those
 * into a namespace that requires the module at its first member access. Only where the chunk uses
 * the namespace for member access alone (the build fails otherwise, rather than change behaviour).
 */
const LAZY_BUILTINS = ['node:crypto', 'node:child_process', 'node:fs/promises', 'node:stream/promises', 'node:stream/consumers'];

/** The rolldown plugin of {@link LAZY_BUILTINS}. */
const lazyBuiltins = {
  name: 'catalog-lazy-builtins',
  renderChunk(code, chunk) {
    const declaration = /^(\s*)(let|const) (\w+) = require\("(node:[\w/]+)"\);$/gm;
    const lazy = code.replace(declaration, (line, indent, kind, name, id) => {
      if (!LAZY_BUILTINS.includes(id)) return line;
      const uses = code.match(new RegExp(`\\b${name}\\b(?!\\.)`, 'g')) ?? [];
      // The declaration itself is the one use that is not a member access.
      if (uses.length !== 1) throw new Error(`${chunk.fileName}: ${name} (${id}) is used other than by member access; cannot require it lazily`);
      return `${indent}${kind} ${name} = ((id, loaded) => new Proxy({}, { get: (_, key) => (loaded ??= require(id))[key] }))(${JSON.stringify(id)});`;
    });
    return lazy === code ? null : { code: lazy, map: null };
  },
};

rmSync(OUT, { recursive: true, force: true });

/** The two builds' shared settings: external packages, the build tsconfig, source maps. */
const common = {
  platform: 'node', external: isExternal, tsconfig: join(ROOT, 'tsconfig.build.json'), logLevel: 'warn',
  // INEFFECTIVE_DYNAMIC_IMPORT says a module that one place import()s is also imported statically
  // elsewhere, so it lands in that chunk: CHUNK_GROUPS decide which chunk holds what (measured for
  // start-up, above), not the import() sites; the four warnings only made `npm ci` and `npm run demo` noisy.
  onLog(level, log, handler) {
    if (log.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') handler(level, log);
  },
};

// The worker threads: ES modules (.js), found beside the CLI's chunks by the code that starts them.
await build({
  ...common,
  input: {
    'catalog-worker': join(ROOT, 'src', 'http', 'pool', 'catalog-worker.ts'),
    // The photo-feature thread (adapters/images/local-features/feature-threads.ts finds it beside itself).
    'feature-worker': join(ROOT, 'src', 'adapters', 'images', 'local-features', 'feature-worker.ts'),
    // The session-writer thread of `catalog serve` (adapters/sqlite/session-writer finds it beside itself).
    'session-writer-worker': join(ROOT, 'src', 'adapters', 'sqlite', 'session-writer', 'session-writer-worker.ts'),
    // The reader thread of large imports (src/cli/import/entries-thread.ts finds it beside itself).
    'entries-worker': join(ROOT, 'src', 'cli', 'import', 'entries-worker.ts'),
  },
  output: { dir: OUT, format: 'esm', sourcemap: true, entryFileNames: '[name].js', chunkFileNames: 'worker-[name]-[hash].js' },
});

// The CLI: CommonJS (.cjs), which Node's compile cache covers (bin/catalog.js enables it where Node
// has it). import() of our own chunks and of packages becomes require() (dynamicImportInCjs:
// false): a chunk loads synchronously, without the ES module loader; the one ES-module-only
// package, ora, comes through Node's require() of ES modules.
await build({
  ...common,
  plugins: [lazyBuiltins],
  input: {
    main: join(ROOT, 'src', 'cli', 'main.ts'),
    // `catalog --version`'s fast path (bin/catalog.js): the version alone.
    version: join(ROOT, 'src', 'cli', 'version.ts'),
  },
  output: {
    dir: OUT,
    format: 'cjs',
    dynamicImportInCjs: false,
    // Less text to read and decode at every start (the code itself comes from the code cache):
    // JSDoc dropped (licence comments kept), non-ASCII escaped so V8 holds each chunk as a one-byte
    // string. ~4 ms CPU of a local search, measured; lines and names stay as they are.
    charset: 'ascii',
    comments: { legal: true, annotation: false, jsdoc: false },
    sourcemap: true,
    entryFileNames: '[name].cjs',
    // Beside the entries: code that finds a file relative to its own module (the pool's worker,
    // the web app in dist/web) must sit where the entry does.
    chunkFileNames: '[name]-[hash].cjs',
    codeSplitting: {
      groups: CHUNK_GROUPS.map(({ name, roots }, i) => {
        const ids = new Set(roots.map((root) => join(ROOT, ...root.split('/'))));
        return { name, priority: CHUNK_GROUPS.length - i, includeDependenciesRecursively: true, test: (id) => ids.has(id) };
      }),
    },
  },
});
