/**
 * `catalog parts show <id> [--org <o>]` (design/cli.md): one part as a person reads it: names,
 * attribute values in display order, display images in UI order, relations.
 */
import type { Command } from 'commander';
import { CatalogError } from '../../../api/errors.js';
import type { DisplayImages, ImageView } from '../../../api/image-schemas.js';
import type { LangMap, Part, PartValue, Relation } from '../../../api/schemas.js';
import type { AttributeView } from '../../../client/types.js';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import type { Invoke } from '../../runner.js';

/** Ids per request when listing or deleting many images. */
const CHUNK = 1000;

/** One attribute of a part as `parts show` prints it. */
export interface ShownAttribute {
  attribute_id: string;
  name: LangMap;
  display_order?: number;
  values: PartValue[];
}

/** Everything `parts show` prints, also its `-o json` document. */
export interface PartShow {
  part: Part;
  attributes: ShownAttribute[];
  display_images: DisplayImages & { images: ImageView[] };
  relations?: Relation[];
}

/**
 * The part's attributes in the order of the part detail page (spec 2.1 display_order): lower
 * display_order first; attributes without one after them, in creation order (`creation_order`,
 * docs/api.md), then by attribute_id (a server without creation_order).
 */
function orderAttributes(part: Part, attributes: readonly AttributeView[]): ShownAttribute[] {
  const byId = new Map(attributes.map((a) => [a.attribute_id, a]));
  const shown = part.attributes.map((entry) => {
    const attribute = byId.get(entry.attribute_id);
    const out: ShownAttribute = { attribute_id: entry.attribute_id, name: attribute?.name ?? {}, values: entry.values };
    if (attribute?.display_order !== undefined && attribute.display_order !== null) out.display_order = attribute.display_order;
    return out;
  });
  const created = (id: string) => byId.get(id)?.creation_order ?? Number.POSITIVE_INFINITY;
  return shown.sort((a, b) => {
    const da = a.display_order ?? Number.POSITIVE_INFINITY;
    const db = b.display_order ?? Number.POSITIVE_INFINITY;
    if (da !== db) return da < db ? -1 : 1;
    const ca = created(a.attribute_id);
    const cb = created(b.attribute_id);
    if (ca !== cb) return ca < cb ? -1 : 1;
    return a.attribute_id < b.attribute_id ? -1 : a.attribute_id > b.attribute_id ? 1 : 0;
  });
}

function langText(map: LangMap): string {
  return Object.entries(map).map(([lang, text]) => (Object.keys(map).length === 1 ? text : `${lang}: ${text}`)).join('; ');
}

function valueText(value: PartValue): string {
  const org = value.organization !== '' ? `@${value.organization} ` : '';
  const source = value.source !== undefined && value.source !== 'own' && value.source !== 'global' ? ` (${value.source})` : '';
  return `${org}${langText(value.value)}${source}`;
}

/** The human-readable page of `parts show`. */
function renderPartShow(show: PartShow): string {
  const lines: string[] = [];
  const { part } = show;
  // One fact per line: together they are wider than a terminal of 100 columns.
  lines.push(`part ${part.part_id}`, `  serviceId ${part.serviceId}`, `  created   ${part.createdAt} · modified ${part.modifiedAt}`);
  lines.push('names');
  for (const [lang, text] of Object.entries(part.name)) lines.push(`  ${lang.padEnd(6)}${text}`);
  lines.push('attributes (display order)');
  if (show.attributes.length === 0) lines.push('  (none)');
  const labels = show.attributes.map((a) => {
    const name = a.name.en ?? Object.values(a.name)[0];
    return name !== undefined ? `${name} [${a.attribute_id}]` : a.attribute_id;
  });
  const width = Math.min(Math.max(0, ...labels.map((l) => l.length)) + 2, 48);
  show.attributes.forEach((a, i) => {
    const label = (labels[i] ?? a.attribute_id).padEnd(width);
    a.values.forEach((v, j) => lines.push(`  ${j === 0 ? label : ' '.repeat(width)}${valueText(v)}`));
  });
  const d = show.display_images;
  lines.push(`display images (UI order; the UI shows ${d.shown.length} of ${d.ordered.length}, at most ${d.max_display_images}; * = shown)`);
  if (d.ordered.length === 0) lines.push('  (none)');
  const info = new Map(d.images.map((i) => [i.image_id, i]));
  const shown = new Set(d.shown);
  d.ordered.forEach((id, i) => {
    const image = info.get(id);
    const details = [image?.info, image?.position !== undefined ? `position ${image.position}` : undefined].filter((x) => x !== undefined).join(', ');
    lines.push(`  ${shown.has(id) ? '*' : ' '} ${String(i + 1).padStart(3)}  ${id}${details ? `  (${details})` : ''}`);
  });
  if (show.relations !== undefined) {
    lines.push('relations');
    if (show.relations.length === 0) lines.push('  (none)');
    for (const r of show.relations) lines.push(`  ${r.type.padEnd(12)}${r.part_id}  ${r.part_role}, ${r.source}${r.user_id ? `, by ${r.user_id}` : ''}, ${r.created}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Declares the verb on the `parts` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return noun
    .command('show')
    .description('one part as a person reads it: names, attribute values in display order, display images in UI order, relations')
    .argument('<id>', 'part_id')
    .option('--org <organization>', 'show the values this organization sees')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const flags = command.opts<{ org?: string }>();
      await invoke(command, (ctx) => run(ctx, id, flags));
    });
}

/** Prints the part (exit 6 for an unknown part); json prints {@link PartShow}. */
export async function run(ctx: CommandContext, partId: string, flags: { org?: string }): Promise<number> {
  const client = await ctx.client();
  const part = await client.getPart(partId, flags.org !== undefined ? { organization: flags.org } : {});
  const attributeIds = part.attributes.map((a) => a.attribute_id);
  const [attributes, display] = await Promise.all([
    attributeIds.length > 0 ? client.selectAttributes({ attribute_ids: attributeIds, projection: ['name', 'display_order', 'creation_order'] }) : Promise.resolve([]),
    client.displayImages(partId),
  ]);
  const images = display.ordered.length > 0 ? await client.selectImages({ image_ids: display.ordered.slice(0, CHUNK), projection: ['info', 'position'] }) : [];
  const show: PartShow = { part, attributes: orderAttributes(part, attributes), display_images: { ...display, images } };
  if (typeof client.getRelations === 'function') {
    try {
      show.relations = await client.getRelations(partId);
    } catch (error) {
      // A server without the relations API answers 404 for the route: show the rest.
      if (!(error instanceof CatalogError && error.code === 'not_found')) throw error;
    }
  }
  if (ctx.format === 'json') (await import('../../output/json.js')).emitJson(ctx, show);
  else ctx.io.stdout.write(renderPartShow(show));
  return EXIT.OK;
}
