/**
 * `catalog api <method> <path> [--input file]` (docs/cli.md; like `gh api`): any request of the HTTP
 * API, its answer's body printed as it comes (JSON pretty-printed on a terminal). With --remote it
 * goes through the one transport (the token, profile, retries and errors of every command); in
 * local mode through the server's own routes in-process (fastify's inject), as the data
 * directory's owner, so a path answers the same in both modes. An error answer is reported and
 * exits like every command's (4 auth, 5 unavailable, 6 not found, 2 bad request).
 */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import type { Invoke } from '../../runner.js';
import { UsageError } from '../../output/usage-error.js';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'] as const;
type Method = (typeof METHODS)[number];

/** Declares `catalog api`. */
export function declare(program: Command, invoke: Invoke): Command {
  return program
    .command('api')
    .description('send any request of the HTTP API and print the answer (local mode or --remote)')
    .argument('<method>', `HTTP method: ${METHODS.join(', ')}`)
    .argument('<path>', 'path with its query, e.g. /1/catalog/parts/p1?organization=acme')
    .option('--input <file>', 'JSON request body from this file, or - for stdin')
    .action(async (method: string, path: string, _o: unknown, command: Command) => {
      const flags = command.opts<{ input?: string }>();
      await invoke(command, (ctx) => run(ctx, method, path, flags));
    });
}

/** The request's method, path and body, checked before anything is sent (exit 2 naming what is wrong). */
async function requestOf(ctx: CommandContext, method: string, path: string, input: string | undefined): Promise<{ method: Method; path: string; body: string | undefined }> {
  const upper = method.toUpperCase();
  if (!(METHODS as readonly string[]).includes(upper)) throw new UsageError(`unknown method '${method}': use one of ${METHODS.join(', ')}`);
  if (!path.startsWith('/')) throw new UsageError(`the path must start with "/" (e.g. /1/catalog/info), not '${path}'`);
  if (input === undefined) return { method: upper as Method, path, body: undefined };
  const text = input === '-' ? await readStdin(ctx) : await (await import('node:fs/promises')).readFile(input, 'utf8');
  try {
    JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--input ${input === '-' ? '(stdin)' : input} is not JSON: ${(error as Error).message}`);
  }
  return { method: upper as Method, path, body: text };
}

async function readStdin(ctx: CommandContext): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes an answer's body: JSON pretty-printed on a terminal, anything else as it came. */
function print(ctx: CommandContext, contentType: string, body: string): void {
  if (body === '') return;
  if (/json/i.test(contentType) && ctx.io.stdout.isTTY === true) {
    ctx.io.stdout.write(`${JSON.stringify(JSON.parse(body), null, 2)}\n`);
    return;
  }
  ctx.io.stdout.write(body.endsWith('\n') ? body : `${body}\n`);
}

/** Sends the request; prints the body of a success, throws the CatalogError of an error answer. */
export async function run(ctx: CommandContext, method: string, path: string, flags: { input?: string }): Promise<number> {
  const request = await requestOf(ctx, method, path, flags.input);
  if (ctx.config.remote.value === undefined && request.method === 'GET') {
    const { assertDataDirExists } = await import('../../local-catalog.js');
    assertDataDirExists(ctx.config.dataDir.value);
  }
  const client = await ctx.client();
  const headers = request.body !== undefined ? { 'content-type': 'application/json' } : undefined;
  if (client.mode === 'remote') {
    const { HttpCatalogClient } = await import('../../../client/http-client.js');
    if (!(client instanceof HttpCatalogClient)) throw new Error('remote client expected');
    const [pathname, query] = splitQuery(request.path);
    const response = await client.send({ method: request.method, path: pathname, ...(query ? { query } : {}), ...(request.body !== undefined ? { body: () => ({ body: request.body ?? '', contentType: 'application/json' }) } : {}), headers: { accept: '*/*' } });
    const type = response.headers['content-type'];
    print(ctx, (Array.isArray(type) ? type[0] : type) ?? '', await response.body.text());
    return EXIT.OK;
  }
  const [{ LocalCatalogClient }, { buildApp }, { LOCAL_OWNER }, { fromProblem }] = await Promise.all([
    import('../../../client/local-client.js'), import('../../../http/app.js'), import('../../../core/permissions.js'), import('../../../api/errors.js'),
  ]);
  if (!(client instanceof LocalCatalogClient)) throw new Error('local client expected');
  const app = buildApp({ catalog: client.catalog, accessLog: null, webApp: false, principal: LOCAL_OWNER });
  try {
    const answer = await app.inject({ method: request.method, url: request.path, ...(headers ? { headers } : {}), ...(request.body !== undefined ? { payload: request.body } : {}) });
    const type = String(answer.headers['content-type'] ?? '');
    if (answer.statusCode >= 400) throw fromProblem(answer.statusCode, /json/i.test(type) ? JSON.parse(answer.body) as unknown : {});
    print(ctx, type, answer.body);
    return EXIT.OK;
  } finally {
    await app.close();
  }
}

/** `/a/b?x=1&y=2` → ['/a/b', {x: '1', y: '2'}] (the transport encodes the query again). */
function splitQuery(path: string): [string, Record<string, string> | undefined] {
  const at = path.indexOf('?');
  if (at < 0) return [path, undefined];
  return [path.slice(0, at), Object.fromEntries(new URLSearchParams(path.slice(at + 1)))];
}
