/**
 * Resolving where the CLI works and how it talks (cli.md, "Modes and configuration"):
 * flags > environment > profile > defaults, each value remembering where it came from so
 * `catalog config` can say so.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from './output/usage-error.js';

/** Where a setting came from. */
export type Source = 'flag' | 'env' | 'profile' | 'default';

export interface Setting<T> {
  value: T;
  source: Source;
}

/** The resolved configuration of one CLI run. */
export interface CliConfig {
  profile: Setting<string | undefined>;
  dataDir: Setting<string>;
  /** PostgreSQL URL of the catalog; undefined: SQLite in dataDir. */
  databaseUrl: Setting<string | undefined>;
  /** s3://bucket/prefix of the image originals; undefined: files in dataDir/images. */
  blobUrl: Setting<string | undefined>;
  remote: Setting<string | undefined>;
  /** The token itself (never printed); `tokenFrom` says where it came from. */
  token: Setting<string | undefined>;
  tokenFrom: string | undefined;
  output: Setting<string | undefined>;
  configFile: string;
}

/** The global flags as commander parses them. */
export interface GlobalFlags {
  dataDir?: string;
  databaseUrl?: string;
  blobUrl?: string;
  remote?: string;
  token?: string;
  tokenFile?: string;
  profile?: string;
  output?: string;
}

// Built on first use (`z.lazy`): only a run that reads a configuration file needs them (start-up).
const ProfileSchema = z.lazy(() => z.strictObject({
  remote: z.string().optional(),
  dataDir: z.string().optional(),
  databaseUrl: z.string().optional(),
  blobUrl: z.string().optional(),
  tokenFile: z.string().optional(),
  output: z.string().optional(),
}));
const ConfigFileSchema = z.lazy(() => z.strictObject({ profiles: z.record(z.string(), ProfileSchema).default({}) }));

/** `$XDG_CONFIG_HOME/catalog/config.json` (default `~/.config/catalog/config.json`). */
function configFilePath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), '.config');
  return join(base, 'catalog', 'config.json');
}

function readProfile(file: string, name: string): z.infer<typeof ProfileSchema> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`profile '${name}' requested but ${file} cannot be read`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  const config = ConfigFileSchema.safeParse(parsed);
  if (!config.success) throw new UsageError(`${file}: ${config.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const profile = config.data.profiles[name];
  if (!profile) throw new UsageError(`${file} has no profile '${name}' (profiles: ${Object.keys(config.data.profiles).join(', ') || 'none'})`);
  return profile;
}

/**
 * A token as given, without the surrounding whitespace that files, `echo >>` and CI secrets add (a
 * trailing newline above all); a token with a control character or a space inside cannot be sent in
 * an HTTP header, so it is a usage error naming where it came from, never "cannot reach".
 */
function cleanToken(raw: string, from: string): string {
  const token = raw.trim();
  if (token === '') throw new UsageError(`${from} is empty`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(token)) throw new UsageError(`${from} holds a space or a control character inside the token; a token is one word`);
  return token;
}

function readTokenFile(path: string): string {
  try {
    return cleanToken(readFileSync(path, 'utf8'), `token file ${path}`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read token file ${path}: ${(error as Error).message}`);
  }
}

function pick<T>(flag: T | undefined, env: T | undefined, profile: T | undefined, fallback: T): Setting<T> {
  if (flag !== undefined) return { value: flag, source: 'flag' };
  if (env !== undefined) return { value: env, source: 'env' };
  if (profile !== undefined) return { value: profile, source: 'profile' };
  return { value: fallback, source: 'default' };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** Resolves the configuration; throws UsageError for an unreadable profile or token file. */
export function resolveConfig(flags: GlobalFlags, env: NodeJS.ProcessEnv, cwd: string): CliConfig {
  const configFile = configFilePath(env);
  const profileName = pick(flags.profile, nonEmpty(env.CATALOG_PROFILE), undefined, undefined as string | undefined);
  const profile = profileName.value !== undefined ? readProfile(configFile, profileName.value) : {};
  const dataDir = pick(flags.dataDir, nonEmpty(env.CATALOG_DATA_DIR), profile.dataDir, './.catalog');
  dataDir.value = resolve(cwd, dataDir.value);
  const databaseUrl = pick(flags.databaseUrl, nonEmpty(env.CATALOG_DATABASE_URL), profile.databaseUrl, undefined as string | undefined);
  if (databaseUrl.value !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl.value)) {
    throw new UsageError('--database-url / CATALOG_DATABASE_URL must be a postgres:// URL (postgres://user:password@host:5432/database)');
  }
  const blobUrl = pick(flags.blobUrl, nonEmpty(env.CATALOG_BLOB_URL), profile.blobUrl, undefined as string | undefined);
  if (blobUrl.value !== undefined && !/^s3:\/\/[^/]+/.test(blobUrl.value)) {
    throw new UsageError(`--blob-url / CATALOG_BLOB_URL must be an s3://bucket/prefix URL, got '${blobUrl.value}'`);
  }
  const remote = pick(flags.remote, nonEmpty(env.CATALOG_URL), profile.remote, undefined as string | undefined);
  let token: Setting<string | undefined> = { value: undefined, source: 'default' };
  let tokenFrom: string | undefined;
  if (flags.token !== undefined) {
    token = { value: cleanToken(flags.token, '--token'), source: 'flag' };
    tokenFrom = '--token';
  } else if (flags.tokenFile !== undefined) {
    token = { value: readTokenFile(resolve(cwd, flags.tokenFile)), source: 'flag' };
    tokenFrom = `--token-file ${flags.tokenFile}`;
  } else if (env.CATALOG_TOKEN !== undefined && env.CATALOG_TOKEN.trim() !== '') {
    token = { value: cleanToken(env.CATALOG_TOKEN, 'CATALOG_TOKEN'), source: 'env' };
    tokenFrom = 'CATALOG_TOKEN';
  } else if (profile.tokenFile !== undefined) {
    token = { value: readTokenFile(resolve(cwd, profile.tokenFile)), source: 'profile' };
    tokenFrom = `profile tokenFile ${profile.tokenFile}`;
  }
  const output = pick(flags.output, nonEmpty(env.CATALOG_OUTPUT), profile.output, undefined as string | undefined);
  if (remote.value !== undefined) {
    try {
      const url = new URL(remote.value);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new UsageError(`--remote / CATALOG_URL must be an http(s) URL, got '${remote.value}'`);
    }
  }
  return { profile: profileName, dataDir, databaseUrl, blobUrl, remote, token, tokenFrom, output, configFile };
}
