/**
 * A V8 code cache for the CLI bundle's CommonJS chunks (issue 12, start-up). Without one, every
 * `catalog` run parses and compiles the ~900 KB of JavaScript a local search loads (commander, zod,
 * the API schemas, the core) before doing anything: ~30 ms CPU of a ~150 ms `catalog search x`,
 * measured. Node 22 has this built in (`module.enableCompileCache()`, used when present); on Node 20
 * it does not, and the one library for it (v8-compile-cache) caches only what compiles before the
 * code runs and hooks every CommonJS module.
 *
 * import(): Node 20 loses it in a script compiled from cached data (ERR_VM_DYNAMIC_IMPORT_CALLBACK_
 * MISSING). So the bundle's chunks require() the CommonJS packages they load on demand
 * (rolldown's dynamicImportInCjs: false, scripts/bundle-cli.js), and the one ES-module-only package
 * (ora) comes through {@link importEsModule}, whose import() this module, compiled by Node itself,
 * creates.
 *
 * How: bin/catalog.js installs the hook before it requires dist/bundle/main.cjs. Each chunk of that
 * directory is compiled as Node compiles CommonJS (the same wrapper) by a vm.Script given the cached
 * data of an earlier run; chunks compiled without usable data get their data written at exit,
 * after the run, so it holds the functions the run compiled lazily too (a one-shot search then
 * starts with its whole path compiled). V8 checks the data against the source's length, its own
 * version and its flags, and rejects a mismatch (then the chunk compiles as usual and its data is
 * rewritten).
 *
 * Where: `$TMPDIR/catalog-compile-cache-<uid>/<node version>-<arch>/<hash of the bundle's
 * directory>/<chunk file name>.<key of its content>.bin`. The content key is what keeps a rebuilt
 * chunk from running its old code: V8 checks cached data against the source's length only (a
 * rebuilt main.cjs naming chunks of new hashes has the same length). A chunk named by its content
 * (`<name>-<8-character hash>.cjs`, scripts/bundle-cli.js chunkFileNames) is keyed by its name
 * and length; any other file (the entries: main.cjs, version.cjs, a few hundred bytes each) by an
 * FNV-1a hash of its content. No node:crypto: loading it cost a local search ~2.8 ms CPU, and
 * sha1 over the ~750 KB it loads another ~0.8 (issue 12). A run that writes entries
 * removes the older entries of the same files and those of files its bundle no longer has (an
 * install's directory is its own, so two installs never remove each other's). Cached data is
 * code: the directory must be ours and writable by no one else, or the cache is not used.
 * `CATALOG_COMPILE_CACHE=<dir>` puts it under another directory; `CATALOG_COMPILE_CACHE=0` turns it
 * off, as do source maps (`--enable-source-maps`: error reports then go through Node's own loader,
 * which maps positions to src/*.ts).
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

/** Set once V8's flags changed at run time: cached data produced from then on would not match a normal run's. */
let flagsChanged = false;

/**
 * Tells the cache that V8's flags changed at run time (src/cli/bulk/streaming-heap.ts): V8 stamps
 * cached data with its flags, so data written at the exit of such a run would be rejected by the
 * next normal run, and the run after would write it again. The run writes no data instead.
 */
export function noteV8FlagsChanged(): void {
  flagsChanged = true;
}

/**
 * An import() made in this module's own code. In the CommonJS bundle (this file is then
 * compile-cache.cjs) rolldown would turn an import() into require(), so there it is a function
 * body, out of rolldown's reach; elsewhere (tests, dist/ as tsc writes it) a plain import().
 */
const importUrl: (url: string) => Promise<unknown> = import.meta.url.endsWith('.cjs')
  ? (new Function('url', 'return import(url)') as (url: string) => Promise<unknown>)
  : (url) => import(url);

/**
 * Imports the ES module at the absolute `path` (e.g. from require.resolve): the import() for code
 * the cache compiled, where Node 20 has none. Rejects as import() does.
 */
export function importEsModule<T>(path: string): Promise<T> {
  return importUrl(pathToFileURL(path).href) as Promise<T>;
}

/** What installCompileCache did: the directory used, or why there is none. */
export type CompileCacheState = { enabled: true; directory: string } | { enabled: false; reason: string };

/** Node's CommonJS internals the hook stands in for (node:module types do not declare them). */
interface CommonJsModule {
  exports: unknown;
  filename: string;
  require(id: string): unknown;
}
type CompileMethod = (this: CommonJsModule, content: string, filename: string) => unknown;
const ModuleInternals = Module as unknown as {
  prototype: { _compile: CompileMethod };
  wrap(content: string): string;
  enableCompileCache?: (directory?: string) => unknown;
  _resolveFilename(request: string, parent: CommonJsModule, isMain: boolean, options?: { paths?: string[] }): string;
  _cache: Record<string, unknown>;
};

/** The `require` a CommonJS module sees, as Node builds it (require.resolve, .cache, .main). */
function requireOf(module: CommonJsModule): NodeJS.Require {
  const require = ((id: string) => module.require(id)) as NodeJS.Require;
  const resolve = ((request: string, options?: { paths?: string[] }) => ModuleInternals._resolveFilename(request, module, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => createRequire(module.filename).resolve.paths(request);
  require.resolve = resolve;
  require.cache = ModuleInternals._cache as NodeJS.Require['cache'];
  // The entry (bin/catalog.js) is an ES module: there is no main CommonJS module, as Node says too.
  require.main = undefined;
  return require;
}

/** FNV-1a of `text` from `seed` (the offset basis), as 8 hex digits; no node:crypto (see the module's doc). */
function fnv1a(text: string, seed = 0x811c9dc5): string {
  let hash = seed;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

/** Names a bundle's directory in the cache. */
function shortHash(text: string): string {
  return fnv1a(text);
}

/** A chunk file named by its content: rolldown's `[name]-[hash].cjs`, the hash 8 characters of base64url. */
const CONTENT_NAMED = /-[A-Za-z0-9_-]{8}\.cjs$/;

/**
 * The 16 hex digits that key `content` of the file `name` in the cache: its length for a chunk
 * named by its content, else two FNV-1a hashes of the content (different offset bases).
 */
export function contentKey(name: string, content: string): string {
  if (CONTENT_NAMED.test(name)) return content.length.toString(16).padStart(16, '0');
  return fnv1a(content) + fnv1a(content, 0x050c5d1f);
}

/**
 * The cache directory of the bundle in `bundleDir` for this user, Node version and architecture
 * under `root`, each level created (mode 0700) if missing; a reason instead when one of them is not
 * safe to use (owned by someone else, writable by group or others, not a directory: a symbolic link
 * is not followed) or cannot be made. Each level is checked before anything is made in it.
 */
export function cacheDirectory(bundleDir: string, root: string = join(tmpdir(), `catalog-compile-cache-${process.getuid?.() ?? 'user'}`)): { directory: string } | { reason: string } {
  const versionDir = join(root, `${process.version}-${process.arch}`);
  const directory = join(versionDir, shortHash(bundleDir));
  try {
    for (const path of [root, versionDir, directory]) {
      mkdirSync(path, { recursive: true, mode: 0o700 });
      const stat = lstatSync(path);
      if (!stat.isDirectory()) return { reason: `${path} is not a directory` };
      if (process.getuid !== undefined && stat.uid !== process.getuid()) return { reason: `${path} belongs to another user` };
      if ((stat.mode & 0o022) !== 0) return { reason: `${path} is writable by others` };
    }
    return { directory };
  } catch (error) {
    return { reason: (error as Error).message };
  }
}

/**
 * Installs the code cache for the CommonJS files under `bundleDir` (other modules load as before).
 * Call once, before requiring the bundle. Never throws: a cache that cannot be read or written
 * only costs the compile it would have saved.
 *
 * @param bundleDir the absolute directory of the bundle's chunks (dist/bundle).
 * @param env the environment: CATALOG_COMPILE_CACHE=0 turns the cache off, CATALOG_COMPILE_CACHE=<dir>
 *   keeps it under `<dir>` instead of the temporary directory.
 */
export function installCompileCache(bundleDir: string, env: NodeJS.ProcessEnv = process.env): CompileCacheState {
  const setting = env.CATALOG_COMPILE_CACHE;
  if (setting === '0') return { enabled: false, reason: 'CATALOG_COMPILE_CACHE=0' };
  if (process.sourceMapsEnabled) return { enabled: false, reason: 'source maps are enabled' };
  const place = cacheDirectory(bundleDir, setting !== undefined && setting !== '' ? setting : undefined);
  if ('reason' in place) return { enabled: false, reason: place.reason };
  const { directory } = place;
  if (typeof ModuleInternals.enableCompileCache === 'function') {
    // Node 22+: its own cache covers every module, ES modules too.
    ModuleInternals.enableCompileCache(directory);
    return { enabled: true, directory };
  }
  const prefix = bundleDir.endsWith(sep) ? bundleDir : bundleDir + sep;
  const compile = ModuleInternals.prototype._compile;
  /** Chunks compiled without accepted data this run: their data is written at exit. */
  const toWrite: Array<{ script: Script; file: string }> = [];
  /** The entry of each chunk this run loaded, by chunk file name: others of those chunks are stale. */
  const current = new Map<string, string>();
  ModuleInternals.prototype._compile = function compileWithCache(this: CommonJsModule, content: string, filename: string): unknown {
    if (!filename.startsWith(prefix) || !filename.endsWith('.cjs')) return compile.call(this, content, filename);
    const file = join(directory, `${basename(filename)}.${contentKey(basename(filename), content)}.bin`);
    current.set(basename(filename), basename(file));
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(file);
    } catch {
      cachedData = undefined;
    }
    const script = new Script(ModuleInternals.wrap(content), {
      filename,
      ...(cachedData ? { cachedData } : {}),
    });
    if (cachedData === undefined || script.cachedDataRejected === true) toWrite.push({ script, file });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    // What Node's own _compile passes: exports, require, module, __filename, __dirname.
    return wrapper.call(this.exports, this.exports, requireOf(this), this, filename, dirname(filename));
  };
  process.once('exit', () => {
    if (flagsChanged || toWrite.length === 0) return;
    for (const { script, file } of toWrite) {
      try {
        const temp = `${file}.${process.pid}.tmp`;
        writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
        renameSync(temp, file);
      } catch {
        // A full disk or a removed directory: the next run compiles again.
      }
    }
    try {
      // Entries of an earlier build: of files this run loaded in another version, or gone.
      for (const entry of readdirSync(directory)) {
        const chunk = /^(.+\.cjs)\.[0-9a-f]{16}\.bin$/.exec(entry)?.[1];
        if (chunk === undefined) continue;
        const loaded = current.get(chunk);
        if (loaded !== undefined ? loaded !== entry : !existsSync(join(bundleDir, chunk))) rmSync(join(directory, entry), { force: true });
      }
    } catch {
      // Pruning is housekeeping: the next run that writes tries again.
    }
  });
  return { enabled: true, directory };
}
