/** `catalog images ...` (design/cli.md; spec 2.2, 4.2; decisions §4). */
import type { Command } from 'commander';
import { collect, positiveInt, type Invoke } from '../runner.js';

const commands = () => import('../commands/images.js');
const upload = () => import('../commands/image-upload.js');

export function registerImages(program: Command, invoke: Invoke): void {
  const noun = program.command('images').description('part images: upload, list, download, display order');
  noun
    .command('upload')
    .description(
      'upload images: a CSV/JSON/NDJSON manifest (image_id, part_id, info, position, file) with files relative to --dir, ' +
        'or files for one part with --part and --info (image_id = file name without extension)',
    )
    .argument('<inputs...>', 'one manifest file, or image files with --part and --info')
    .option('--dir <dir>', 'where manifest files are found (default: the manifest\'s directory)')
    .option('--part <part_id>', 'upload the given files for this part')
    .option('--info <tokens>', 'info tokens for --part uploads, e.g. "display weight=2"')
    .option('--position <n>', 'position for --part uploads (dataContributor/dataValidator only)', positiveInt('--position'))
    .option('--format <format>', 'manifest format: csv, json or ndjson (default: from the extension)')
    .option('--concurrency <n>', 'requests in flight (default 4)', positiveInt('--concurrency'))
    .option('--batch-size <n>', 'files per request (default 50)', positiveInt('--batch-size'))
    .option('--batch-mb <n>', 'megabytes per request, at most (default 32)', positiveInt('--batch-mb'))
    .option('--dry-run', 'check every row and file (exists, is an image) and count would-create / would-update; upload nothing')
    .option('--errors <file>', 'where rejected manifest rows go (default <manifest>.errors.<ext>)')
    .option('--max-errors <n>', 'stop after this many rejected rows', positiveInt('--max-errors'))
    .option('--resume', 'skip the batches a previous interrupted run finished')
    .action(async (inputs: string[], _opts: unknown, command: Command) => {
      const opts = command.opts();
      const resume = `catalog images upload ${inputs.join(' ')}`;
      await invoke(command, async (ctx) => (await upload()).runImagesUpload(ctx, inputs, opts, resume));
    });
  noun
    .command('list')
    .description('list image descriptions in image_id order (all, or only of some parts)')
    .option('--part <part_id>', 'only images of this part (repeatable)', collect)
    .option('--limit <n>', 'at most this many', positiveInt('--limit'))
    .option('--after <id>', 'start after this image_id')
    .action(async (_opts: unknown, command: Command) => {
      const opts = command.opts<{ part?: string[]; limit?: number; after?: string }>();
      await invoke(command, async (ctx) => (await commands()).runImagesList(ctx, opts));
    });
  noun
    .command('get')
    .description('fetch image descriptions by id (exit 6 if any is unknown)')
    .argument('<id...>', 'image_id')
    .action(async (ids: string[], _opts: unknown, command: Command) => {
      await invoke(command, async (ctx) => (await commands()).runImagesGet(ctx, ids));
    });
  noun
    .command('download')
    .description('download the original file of an image (default: ./<image_id>.<ext>)')
    .argument('<id>', 'image_id')
    .option('-O, --output-file <file>', 'where to write it; - for stdout')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const opts = command.opts<{ outputFile?: string }>();
      await invoke(command, async (ctx) => (await commands()).runImagesDownload(ctx, id, opts));
    });
  noun
    .command('delete')
    .description('delete images by id; a stored file goes with its last image (exit 3 if some are rejected)')
    .argument('<id...>', 'image_id')
    .action(async (ids: string[], _opts: unknown, command: Command) => {
      await invoke(command, async (ctx) => (await commands()).runImagesDelete(ctx, ids));
    });
  noun
    .command('order')
    .description('the display order of a part\'s images and which ones the UI shows (spec 2.2 rules 1-4)')
    .argument('<part_id>')
    .action(async (partId: string, _opts: unknown, command: Command) => {
      await invoke(command, async (ctx) => (await commands()).runImagesOrder(ctx, partId));
    });
}
