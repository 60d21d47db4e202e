/** `catalog parts delete <id...> [--with-images]`: exit 3 when some ids are rejected. */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Invoke } from '../../runner.js';
import { declareDelete, runDelete, walkPages } from '../resource-verbs.js';

/** Ids per request when listing or deleting many images. */
const CHUNK = 1000;

/** Declares the verb on the `parts` noun. */
export function declare(noun: Command, invoke: Invoke): Command {
  return declareDelete(noun, { noun: 'parts', idField: 'part_id' }, invoke, run).option(
    '--with-images',
    "delete the parts' images first (a part with images cannot be deleted otherwise)",
  );
}

/** Deletes the parts; with `--with-images` their images first. Exit 3 when some were rejected. */
export async function run(ctx: CommandContext, ids: string[], flags: { withImages?: boolean }): Promise<number> {
  if (flags.withImages) {
    const client = await ctx.client();
    let deleted = 0;
    const failed: Record<string, string[]> = {};
    for (let i = 0; i < ids.length; i += CHUNK) {
      const partIds = ids.slice(i, i + CHUNK);
      const imageIds: string[] = [];
      for await (const image of walkPages((request) => client.listImages({ ...request, query: { part_ids: partIds }, projection: ['part_id'] }), {})) imageIds.push(image.image_id);
      for (let j = 0; j < imageIds.length; j += CHUNK) {
        const result = await client.deleteImages(imageIds.slice(j, j + CHUNK));
        deleted += result.deleted.length;
        Object.assign(failed, result.errors);
      }
    }
    ctx.info(`images delete: ${deleted} deleted${Object.keys(failed).length > 0 ? `, ${Object.keys(failed).length} rejected` : ''}`);
    for (const [id, messages] of Object.entries(failed)) ctx.io.stderr.write(`  ${id}: ${messages.join('; ')}\n`);
  }
  const { partsResource } = await import('./resource.js');
  return runDelete(ctx, partsResource, ids);
}
