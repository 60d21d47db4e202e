/**
 * Syncing a folder of photos from the browser (docs/cli.md "Sync", as `catalog images sync` does
 * it): a folder chosen (webkitdirectory) or dropped (DataTransfer entries), each photo bound to a
 * part by the naming convention (`<part_id>.<ext>` or `<part_id>_<n>.<ext>`), its image id its
 * path in the folder with `/` written as `~`. Each photo's SHA-256 (crypto.subtle) is compared
 * with the stored original's ETag (POST /1/catalog/images/select, projection etag): only new and
 * changed photos are sent; a changed one keeps its stored info tokens. An image id stored on
 * another part is not taken (listed, like photos naming no part). A summary says what happened.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, request, type BulkWriteResult } from './api';
import { forgetImages } from './images';
import { setTitle } from './router';

/** The naming convention of `catalog images sync` (src/cli/sync/naming.ts). */
const PART_FROM = /^(?<part_id>.+?)(?:_(?<n>\d+))?\.[^.]+$/u;
const IMAGE_EXTENSIONS = /\.(jpe?g|png|webp|gif|tiff?|avif)$/i;
/** Ids per select request, photos per upload request. */
const SELECT_CHUNK = 1000;
const UPLOAD_CHUNK = 20;

/** A photo of the folder: its path in it (`/`-separated) and its file. */
interface FolderFile {
  path: string;
  file: File;
}

/** A photo with what the comparison decided. */
interface Planned extends FolderFile {
  imageId: string;
  partId: string;
  sha256: string | null;
}

/** What a sync found and did. */
interface Summary {
  created: number;
  changed: number;
  unchanged: number;
  /** Photos not sent, each with why. */
  unmatched: string[];
  errors: string[];
}

/** The image files of a chosen folder (`webkitRelativePath` starts with the folder's own name). */
function fromInput(files: FileList): FolderFile[] {
  return [...files].map((file) => ({ file, path: (file.webkitRelativePath || file.name).split('/').slice(1).join('/') || file.name }));
}

/** A dropped file, or every file under a dropped folder (paths relative to it; read through its reader, in batches). */
async function fromEntry(entry: FileSystemEntry, prefix = ''): Promise<FolderFile[]> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    return [{ file, path: `${prefix}${entry.name}` }];
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const out: FolderFile[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return out;
    for (const child of batch) out.push(...(await fromEntry(child, child.isFile ? prefix : `${prefix}${child.name}/`)));
  }
}

async function sha256(file: File): Promise<string | null> {
  if (!crypto.subtle) return null;
  return [...new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Compares the folder's photos with the catalog and sends the new and changed ones. */
async function syncFolder(files: FolderFile[], progress: (text: string) => void): Promise<Summary> {
  const summary: Summary = { created: 0, changed: 0, unchanged: 0, unmatched: [], errors: [] };
  const photos: Planned[] = [];
  for (const f of files) {
    const name = f.path.slice(f.path.lastIndexOf('/') + 1);
    if (name.startsWith('.') || f.path.split('/').some((s) => s.startsWith('.')) || !IMAGE_EXTENSIONS.test(name)) continue;
    const partId = PART_FROM.exec(name)?.groups?.part_id;
    if (partId === undefined || partId === '') summary.unmatched.push(`${f.path}: the name does not match <part_id>.<ext> or <part_id>_<n>.<ext>`);
    else photos.push({ ...f, imageId: f.path.replaceAll('/', '~'), partId, sha256: null });
  }
  for (const [i, p] of photos.entries()) {
    progress(`Comparing ${i + 1} of ${photos.length} photos…`);
    p.sha256 = await sha256(p.file);
  }
  const stored = new Map<string, { part_id?: string; etag?: string }>();
  const parts = new Set<string>();
  for (const chunk of chunks(photos, SELECT_CHUNK)) {
    const [images, found] = await Promise.all([
      api<Array<{ image_id: string; part_id?: string; etag?: string }>>('POST', '/1/catalog/images/select', { image_ids: chunk.map((p) => p.imageId), projection: ['part_id', 'etag'] }),
      api<Array<{ part_id: string }>>('POST', '/1/catalog/parts/select', { part_ids: [...new Set(chunk.map((p) => p.partId))], projection: ['serviceId'] }),
    ]);
    for (const image of images) stored.set(image.image_id, image);
    for (const part of found) parts.add(part.part_id);
  }
  const create: Planned[] = [];
  const replace: Planned[] = [];
  for (const p of photos) {
    const image = stored.get(p.imageId);
    if (!parts.has(p.partId)) summary.unmatched.push(`${p.path}: part '${p.partId}' does not exist`);
    else if (image === undefined) create.push(p);
    else if (image.part_id !== p.partId) summary.unmatched.push(`${p.path}: image ${p.imageId} is on part '${image.part_id ?? '?'}'; not taken from it`);
    else if (p.sha256 !== null && image.etag === `"${p.sha256}"`) summary.unchanged++;
    else replace.push(p);
  }
  const send = async (batch: Planned[], mode: 'create' | 'upsert') => {
    const body = new FormData();
    // A replaced photo keeps its stored info tokens; a new one is shown on its part.
    body.append('images', JSON.stringify(batch.map((p) => ({ image_id: p.imageId, part_id: p.partId, ...(mode === 'create' ? { info: 'display' } : {}) }))));
    for (const p of batch) body.append('files', p.file, p.imageId);
    const result = (await (await request('POST', `/1/catalog/images?mode=${mode}`, body)).json()) as BulkWriteResult;
    forgetImages([...result.created, ...result.updated]);
    summary.created += result.created.length;
    summary.changed += result.updated.length;
    for (const [key, messages] of Object.entries(result.errors)) summary.errors.push(`${key}: ${messages.join('; ')}`);
  };
  let sent = 0;
  for (const [batches, mode] of [[chunks(create, UPLOAD_CHUNK), 'create'], [chunks(replace, UPLOAD_CHUNK), 'upsert']] as const) {
    for (const batch of batches) {
      progress(`Uploading ${sent + 1}–${sent + batch.length} of ${create.length + replace.length} photos…`);
      await send(batch, mode);
      sent += batch.length;
    }
  }
  return summary;
}

/** The page at /sync: choose or drop a folder, see what moved. */
export function FolderSyncPage() {
  const [status, setStatus] = useState<string | null>(null);
  const [summary, setSummary] = useState<Summary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    setTitle('Sync a folder of photos');
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, []);
  const run = async (files: Promise<FolderFile[]>) => {
    setSummary(null);
    setError(null);
    setStatus('Reading the folder…');
    try {
      setSummary(await syncFolder(await files, setStatus));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setStatus(null);
    }
  };
  return (
    <main id="main" class="folder-sync">
      <h1 tabIndex={-1}>Sync a folder of photos</h1>
      <p class="hint">
        Photos named <code>&lt;part_id&gt;.jpg</code> or <code>&lt;part_id&gt;_2.jpg</code> become images of those parts. Only new and changed photos are uploaded; a photo of an unknown part is listed, not guessed.
      </p>
      <div
        class={`dropzone ${dragging ? 'dragging' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          const entries = [...(e.dataTransfer?.items ?? [])].map((item) => item.webkitGetAsEntry()).filter((entry): entry is FileSystemEntry => entry !== null);
          void run(Promise.all(entries.map((entry) => fromEntry(entry))).then((lists) => lists.flat()));
        }}
      >
        <label for="sync-folder">Folder of photos (choose, or drop it here)</label>
        <input
          id="sync-folder"
          type="file"
          // Set as the property (true): Preact sets a property an element has, and '' would be false.
          {...({ webkitdirectory: true } as Record<string, boolean>)}
          multiple
          disabled={status !== null}
          onChange={(e) => {
            const input = e.currentTarget as HTMLInputElement;
            if (input.files) void run(Promise.resolve(fromInput(input.files))).then(() => (input.value = ''));
          }}
        />
      </div>
      {status !== null && <p role="status">{status}</p>}
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {summary !== null && (
        <section aria-labelledby="sync-summary" role="status">
          <h2 id="sync-summary">Synced</h2>
          <p class="sync-counts">{`${summary.created} created, ${summary.changed} changed, ${summary.unchanged} unchanged, ${summary.unmatched.length} unmatched${summary.errors.length > 0 ? `, ${summary.errors.length} rejected` : ''}`}</p>
          {summary.unmatched.length > 0 && (
            <ul class="unmatched">
              {summary.unmatched.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          )}
          {summary.errors.length > 0 && (
            <ul class="error">
              {summary.errors.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          )}
        </section>
      )}
    </main>
  );
}
