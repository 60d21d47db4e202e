/**
 * `catalog images audit [part_id...] [--since-change n | --uploaded-since when] [--conditions list]
 * [--min-rank1 share]` (docs/cli.md "Image audit"; docs/api.md "Image audit"): how findable each reference image is,
 * by the product's own photo-like queries against the real index, page by page (the server bounds
 * each call). One row per reference; a summary on stderr (images audited, share found at rank 1
 * per condition) and exit 3 when a condition's share is below --min-rank1, for CI.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { AUDIT_CONDITIONS, DEFAULT_AUDIT_IMAGES, type AuditCondition, type ImageAuditResult } from '../../../api/image-schemas.js';
import { MAX_PAGE_LIMIT } from '../../../api/schemas.js';
import type { CatalogClient } from '../../../client/types.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { UsageError } from '../../output/usage-error.js';
import { parseDuration } from '../../duration.js';
import { intInRange, type Invoke } from '../../runner.js';

interface AuditFlags {
  sinceChange?: number;
  uploadedSince?: string;
  conditions?: string;
  minRank1?: number;
}

/** `--min-rank1`: a share in [0, 1]. */
function shareOption(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`expected a share between 0 and 1, got '${value}'`);
  return n;
}

/** `--uploaded-since`: an ISO 8601 time, or a duration ago (`12h`), as an ISO 8601 time. */
function uploadedSince(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))) return value;
  try {
    return new Date(Date.now() - parseDuration(value) * 1000).toISOString();
  } catch {
    throw new InvalidArgumentError(`expected an ISO 8601 time (2026-11-28T17:00:00Z) or a time ago (90m, 12h, 2d), got '${value}'`);
  }
}

/** Declares the verb on the `images` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('audit')
    .description('check how findable reference images are: photo-like copies of each (a copy, closer, turned, at an angle, covered, blurred, dim, lying on a bench) searched against the catalog; rank, score, the part found instead, and advice')
    .argument('[part_id...]', 'only the references of these parts (default: every searchable image)')
    .option('--since-change <n>', 'only images uploaded or changed after this change number (catalog changes; stderr says where to go on from next time)', intInRange(0))
    .option('--uploaded-since <when>', 'only images uploaded or changed since then: an ISO 8601 time (2026-11-28T17:00:00Z) or a time ago (90m, 12h, 2d)', uploadedSince)
    .option('--conditions <list>', `only these conditions, comma-separated: ${AUDIT_CONDITIONS.join(', ')}`)
    .option('--min-rank1 <share>', 'exit 3 when the share of references found at rank 1 is below this (0 to 1) in any condition', shareOption)
    .action(async (partIds: string[], _opts: unknown, command: Command) => {
      const flags = command.opts<AuditFlags>();
      await invoke(command, (ctx) => run(ctx, partIds, flags));
    });
}

function parseConditions(list: string | undefined): AuditCondition[] | undefined {
  if (list === undefined) return undefined;
  const names = list.split(',').map((c) => c.trim()).filter((c) => c.length > 0);
  const unknown = names.filter((c) => !(AUDIT_CONDITIONS as readonly string[]).includes(c));
  if (unknown.length > 0 || names.length === 0) {
    throw new UsageError(`--conditions: ${unknown.length > 0 ? `unknown condition ${unknown.map((c) => `'${c}'`).join(', ')}` : 'no condition given'}; the conditions are ${AUDIT_CONDITIONS.join(', ')}`);
  }
  return names as AuditCondition[];
}

/** The images uploaded or changed after change `since` (the change feed; deleted ones left out), and the feed's position after them. */
async function changedImages(client: CatalogClient, since: number): Promise<{ imageIds: string[]; next: number }> {
  const imageIds = new Set<string>();
  let next = since;
  for (;;) {
    const page = await client.changes({ since: next, limit: 1000, types: ['image'] });
    for (const change of page.changes) {
      if (change.op === 'delete') imageIds.delete(change.id);
      else imageIds.add(change.id);
    }
    next = page.next;
    if (!page.more) break;
  }
  return { imageIds: [...imageIds].sort(), next };
}

/** `list` in slices a request allows (MAX_PAGE_LIMIT ids); `[undefined]` for no list. */
function slices(list: readonly string[] | undefined): (readonly string[] | undefined)[] {
  if (list === undefined) return [undefined];
  return Array.from({ length: Math.ceil(list.length / MAX_PAGE_LIMIT) }, (_, i) => list.slice(i * MAX_PAGE_LIMIT, (i + 1) * MAX_PAGE_LIMIT));
}

/** What to audit: parts, images and a time, each optional. */
interface AuditScope {
  partIds?: readonly string[] | undefined;
  imageIds?: readonly string[] | undefined;
  modifiedSince?: string | undefined;
}

/** Every audited reference of `scope`, page by page (the id lists in slices a request allows). */
async function* audits(client: CatalogClient, scope: AuditScope, conditions: AuditCondition[] | undefined): AsyncGenerator<ImageAuditResult> {
  for (const parts of slices(scope.partIds)) {
    for (const images of slices(scope.imageIds)) {
      const query = { ...(parts ? { part_ids: parts } : {}), ...(images ? { image_ids: images } : {}), ...(scope.modifiedSince !== undefined ? { modifiedSince: scope.modifiedSince } : {}) };
      let after: string | undefined;
      for (;;) {
        const page = await client.auditImages({
          ...(Object.keys(query).length > 0 ? { query } : {}),
          ...(conditions ? { conditions } : {}),
          paging: { limit: DEFAULT_AUDIT_IMAGES, ...(after !== undefined ? { last_object_id: after } : {}) },
        });
        yield* page.result;
        if (!page.more_data) break;
        after = page.last_object_id;
      }
    }
  }
}

/** A condition's cell: `1 0.93`, or the rank and who took rank 1 (`3 ← p7`), or `– ← p7` when not ranked. */
function cell(result: ImageAuditResult, condition: AuditCondition): string {
  const c = result.conditions.find((x) => x.condition === condition);
  if (!c) return '';
  const rank = c.rank === null ? '–' : String(c.rank);
  if (c.rank === 1) return `1 ${c.score?.toFixed(2) ?? ''}`;
  return c.top ? `${rank} ← ${c.top.part_id}` : rank;
}

/** The flat row of one reference (table, csv, tsv). */
function flatRow(result: ImageAuditResult, conditions: readonly AuditCondition[]): Record<string, unknown> {
  const row: Record<string, unknown> = { image_id: result.image_id, part_id: result.part_id, size: `${result.width}×${result.height}`, keypoints: result.keypoints ?? '', contrast: result.contrast };
  for (const condition of conditions) row[condition] = cell(result, condition);
  row.advice = result.advice.join(' | ');
  return row;
}

/** Prints the audit; exit 3 when a condition's rank-1 share is below --min-rank1, else 0. */
export async function run(ctx: CommandContext, partIds: string[], flags: AuditFlags): Promise<number> {
  const conditions = parseConditions(flags.conditions);
  const shown = conditions ? AUDIT_CONDITIONS.filter((c) => conditions.includes(c)) : [...AUDIT_CONDITIONS];
  const { emitRecords } = await import('../../output/emit.js');
  const client = await ctx.client();
  if (flags.sinceChange !== undefined && flags.uploadedSince !== undefined) throw new UsageError('--since-change and --uploaded-since: give one of them');
  const scope: AuditScope = { partIds: partIds.length > 0 ? partIds : undefined, modifiedSince: flags.uploadedSince };
  let next: number | undefined;
  if (flags.sinceChange !== undefined) {
    const changed = await changedImages(client, flags.sinceChange);
    next = changed.next;
    scope.imageIds = changed.imageIds;
  }
  const found = new Map<AuditCondition, { first: number; all: number }>(shown.map((c) => [c, { first: 0, all: 0 }]));
  let audited = 0;
  async function* rows(): AsyncGenerator<Record<string, unknown>> {
    if (scope.imageIds?.length === 0) return;
    for await (const result of audits(client, scope, conditions)) {
      audited++;
      for (const c of result.conditions) {
        const tally = found.get(c.condition);
        if (!tally) continue;
        tally.all++;
        if (c.rank === 1) tally.first++;
      }
      yield ctx.format === 'json' || ctx.format === 'ndjson' ? (result as unknown as Record<string, unknown>) : flatRow(result, shown);
    }
  }
  const fields = ['image_id', 'part_id', 'size', 'keypoints', 'contrast', ...shown, 'advice'];
  await emitRecords(ctx, { fields: [...fields, 'width', 'height', 'conditions'], defaultFields: fields }, rows());
  const share = (c: AuditCondition): number => {
    const t = found.get(c);
    return t && t.all > 0 ? t.first / t.all : 1;
  };
  const shares = shown.map((c) => `${c} ${Math.round(share(c) * 100)} %`).join(', ');
  ctx.info(audited === 0 ? 'audited 0 reference images' : `audited ${audited} reference image${audited === 1 ? '' : 's'}; found at rank 1: ${shares}`);
  if (next !== undefined) ctx.info(`changes read up to ${next}: next time audit with --since-change ${next}`);
  const below = flags.minRank1 === undefined || audited === 0 ? [] : shown.filter((c) => share(c) < (flags.minRank1 ?? 0));
  if (below.length > 0) {
    ctx.io.stderr.write(`error: found at rank 1 below ${flags.minRank1} for ${below.join(', ')}\n`);
    return EXIT.PARTIAL;
  }
  return EXIT.OK;
}
