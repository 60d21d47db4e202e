/**
 * Uploading images onto a part (POST /1/catalog/images?mode=create, multipart): files chosen or
 * dropped, each with its image id, info tokens, weight and optional position; the API's answer is
 * shown on each file's row. Uploads are create-only: an id that exists is refused by the API and
 * never replaced or moved silently. An id that exists on this part can be replaced on purpose (the
 * row's "Replace" button: mode=upsert, keeping the stored info tokens unless the row's were
 * changed); one on another part cannot be taken from here. Ids are derived so that two phones'
 * `image.jpg` never meet: `<part_id>~<file stem>-<8 hex of the file's SHA-256>`.
 */
import { Fragment } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { ApiError, type BulkWriteResult } from './api';
import { forgetImages } from './images';
import { Link } from './router';
import { uploadWithProgress, type UploadProgress } from './upload-request';

interface Row {
  key: number;
  file: File;
  imageId: string;
  searchable: boolean;
  display: boolean;
  weight: string;
  position: string;
  /** Whether the user changed the info tokens (a replace then sends them; else the stored ones stay). */
  tokensChanged: boolean;
  /** Set when the API said this id exists on this part: the row offers "Replace". */
  existsHere?: boolean;
}

let nextKey = 1;

/** The longest image id (decisions §1: 1 to 256 characters). */
const MAX_ID = 256;

/** Hex of the first 4 bytes of the file's SHA-256 (random where the browser has no crypto.subtle: plain http). */
async function shortHash(file: File): Promise<string> {
  const bytes = crypto.subtle ? new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer())) : crypto.getRandomValues(new Uint8Array(4));
  return [...bytes.slice(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** An image id for a file on a part: unique per part and per content, never with "/". */
export async function deriveImageId(partId: string, file: File): Promise<string> {
  const stem = (file.name.replace(/\.[^.]*$/, '') || 'photo').replaceAll('/', '_');
  const hash = await shortHash(file);
  const prefix = `${partId.replaceAll('/', '_')}~`;
  return `${prefix}${stem.slice(0, Math.max(1, MAX_ID - prefix.length - hash.length - 1))}-${hash}`;
}

/** What is wrong with an image id before anything is sent (the API's rules, decisions §1), or null. */
export function idProblem(id: string, others: string[]): string | null {
  if (id.trim() === '') return 'image id: required';
  if (id.includes('/')) return 'image id: must not contain "/" (it would not work in the image\'s address)';
  if (id.length > MAX_ID) return `image id: at most ${MAX_ID} characters (this one has ${id.length})`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(id)) return 'image id: must not contain control characters';
  if (others.includes(id)) return `image id: '${id}' is given to two files`;
  return null;
}

function extensionOf(name: string): string {
  return /\.[A-Za-z0-9]{1,5}$/.exec(name)?.[0] ?? '';
}

/** The already-exists message of mode=create (docs/api.md "Part images"): the part named in it. */
function existingPart(messages: string[]): string | null {
  for (const m of messages) {
    const match = /already exists on part '(.*)'; mode=create/.exec(m);
    if (match) return match[1] ?? null;
  }
  return null;
}

export function infoOf(row: Pick<Row, 'searchable' | 'display' | 'weight'>): string {
  const tokens: string[] = [];
  if (row.searchable) tokens.push('searchable');
  if (row.display) tokens.push('display');
  if (row.display && row.weight.trim() !== '') tokens.push(`weight=${row.weight.trim()}`);
  return tokens.join(' ');
}

/** The upload form; shown only to a token that may write, with a position column only for one that may set positions (spec 2.2). */
export function Upload(props: { partId: string; canSetPosition: boolean; maintenance: boolean; onUploaded: (imageIds: string[]) => Promise<void> }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [busy, setBusy] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [requestError, setRequestError] = useState<ApiError | Error | null>(null);
  /** Errors by row key (item errors of the API, or problems found before sending). */
  const [rowErrors, setRowErrors] = useState<Record<number, string[]>>({});
  const [otherErrors, setOtherErrors] = useState<Array<[string, string[]]>>([]);
  const [done, setDone] = useState<string | null>(null);
  /** Bytes of the running upload's request body sent so far; null when none runs. */
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const running = useRef<AbortController | null>(null);

  const add = async (files: FileList | File[] | null | undefined) => {
    if (!files) return;
    const added = await Promise.all(
      [...files].map(async (file) => ({ key: nextKey++, file, imageId: await deriveImageId(props.partId, file), searchable: false, display: true, weight: '', position: '', tokensChanged: false })),
    );
    setRows((r) => [...r, ...added]);
    setDone(null);
  };
  const update = (key: number, change: Partial<Row>) => setRows((r) => r.map((row) => (row.key === key ? { ...row, ...change, ...('imageId' in change ? { existsHere: false } : {}) } : row)));

  /** Sends `chosen` rows: create-only, or (replace) the one row's image replaced on purpose. */
  const send = async (chosen: Row[], mode: 'create' | 'upsert') => {
    const problems: Record<number, string[]> = {};
    chosen.forEach((row) => {
      const problem = idProblem(row.imageId, chosen.filter((o) => o.key !== row.key).map((o) => o.imageId));
      if (problem) problems[row.key] = [problem];
    });
    setRequestError(null);
    setOtherErrors([]);
    setDone(null);
    if (Object.keys(problems).length > 0) {
      setRowErrors(problems);
      return;
    }
    setBusy(true);
    setRowErrors({});
    const controller = new AbortController();
    running.current = controller;
    setProgress({ sent: 0, total: 0 });
    try {
      const definitions = chosen.map((row) => ({
        image_id: row.imageId,
        part_id: props.partId,
        // A replace keeps the stored tokens unless the row's were changed.
        ...(mode === 'upsert' && !row.tokensChanged ? {} : { info: infoOf(row) }),
        ...(row.position.trim() !== '' ? { position: Number(row.position) } : {}),
      }));
      const body = new FormData();
      body.append('images', JSON.stringify(definitions));
      // The file name is the image id plus its extension: the API matches files to definitions by it.
      const sentName = (row: Row) => `${row.imageId}${extensionOf(row.file.name)}`;
      for (const row of chosen) body.append('files', row.file, sentName(row));
      const result = await uploadWithProgress<BulkWriteResult>('POST', `/1/catalog/images?mode=${mode}`, body, setProgress, controller.signal);
      const stored = [...result.created, ...result.updated];
      forgetImages(stored);
      // Every error on its row: keyed by image id, by the file name sent, or by the definition's index.
      const claimed = new Set<string>();
      const errs: Record<number, string[]> = {};
      chosen.forEach((row, i) => {
        for (const key of [row.imageId, sentName(row), `items[${i}]`]) {
          const messages = result.errors[key];
          if (!messages) continue;
          claimed.add(key);
          (errs[row.key] ??= []).push(...messages);
        }
      });
      setRowErrors(errs);
      setOtherErrors(Object.entries(result.errors).filter(([key]) => !claimed.has(key)));
      setRows((r) =>
        r
          .filter((row) => !stored.includes(row.imageId))
          .map((row) => {
            const part = errs[row.key] ? existingPart(errs[row.key] ?? []) : null;
            return part === null ? row : { ...row, existsHere: part === props.partId };
          }),
      );
      setDone(stored.length ? `Stored ${stored.join(', ')}.` : null);
      if (stored.length) await props.onUploaded(stored);
    } catch (e) {
      setProgress(null);
      // A cancelled upload stores nothing: the API commits an upload only once its whole body has arrived.
      if ((e as Error).name === 'AbortError') setDone('Upload cancelled: nothing was stored.');
      else setRequestError(e instanceof Error ? e : new Error(String(e)));
    } finally {
      // A finished upload's progress stays shown (all bytes sent) until the next one starts.
      running.current = null;
      setBusy(false);
    }
  };

  const submit = (event: Event) => {
    event.preventDefault();
    if (rows.length > 0) void send(rows, 'create');
  };

  const orphanErrors = otherErrors;

  return (
    <section aria-labelledby="upload-title" class="upload">
      <h2 id="upload-title">Add images</h2>
      {props.maintenance && <p class="note">The catalog is in maintenance mode: uploads are refused until it ends.</p>}
      <p class="hint">
        A whole folder of photos named after their parts? <Link href="/sync">Sync a folder</Link>: only new and changed photos are sent.
      </p>
      {!props.canSetPosition && <p class="hint">Your token may not set positions (that needs dataContributor or dataValidator): use a weight to order images.</p>}
      <form onSubmit={submit}>
        <div
          class={`dropzone ${dragging ? 'dragging' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            e.stopPropagation();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault();
            e.stopPropagation();
            setDragging(false);
            void add(e.dataTransfer?.files);
          }}
        >
          <label for="upload-files">Image files (choose, or drop them here)</label>
          <input id="upload-files" type="file" accept="image/*" multiple onChange={(e) => {
              const input = e.currentTarget as HTMLInputElement;
              void add(input.files).then(() => (input.value = ''));
            }} />
        </div>
        {rows.length > 0 && (
          <table class="upload-rows">
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Image id</th>
                <th scope="col">Info tokens</th>
                <th scope="col">Weight</th>
                {props.canSetPosition && <th scope="col">Position</th>}
                <th scope="col">
                  <span class="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const errs = rowErrors[row.key] ?? [];
                const errId = `upload-error-${row.key}`;
                return (
                  <Fragment key={row.key}>
                    <tr class={errs.length ? 'has-error' : ''}>
                      <td>{row.file.name}</td>
                      <td>
                        <input aria-label={`Image id for ${row.file.name}`} value={row.imageId} required onInput={(e) => update(row.key, { imageId: (e.currentTarget as HTMLInputElement).value })} {...(errs.length ? { 'aria-describedby': errId, 'aria-invalid': true } : {})} />
                      </td>
                      <td>
                        <label>
                          <input type="checkbox" checked={row.display} onChange={(e) => update(row.key, { display: (e.currentTarget as HTMLInputElement).checked, tokensChanged: true })} /> display
                        </label>{' '}
                        <label>
                          <input type="checkbox" checked={row.searchable} onChange={(e) => update(row.key, { searchable: (e.currentTarget as HTMLInputElement).checked, tokensChanged: true })} /> searchable
                        </label>
                      </td>
                      <td>
                        <input class="narrow" type="number" step="any" aria-label={`Weight for ${row.file.name}`} value={row.weight} disabled={!row.display} onInput={(e) => update(row.key, { weight: (e.currentTarget as HTMLInputElement).value, tokensChanged: true })} />
                      </td>
                      {props.canSetPosition && (
                        <td>
                          <input class="narrow" type="number" min="1" step="1" aria-label={`Position for ${row.file.name}`} value={row.position} disabled={!row.display} onInput={(e) => update(row.key, { position: (e.currentTarget as HTMLInputElement).value })} />
                        </td>
                      )}
                      <td>
                        <button type="button" onClick={() => setRows((r) => r.filter((x) => x.key !== row.key))} aria-label={`Remove ${row.file.name}`}>
                          Remove
                        </button>
                      </td>
                    </tr>
                    {errs.length > 0 && (
                      <tr class="row-error">
                        <td colSpan={props.canSetPosition ? 6 : 5} id={errId} role="alert">
                          {errs.join('; ')}
                          {row.existsHere && (
                            <>
                              {' '}
                              <button type="button" disabled={busy} onClick={() => void send([row], 'upsert')}>
                                {`Replace ${row.imageId}`}
                              </button>{' '}
                              <span class="hint">(its file is replaced{row.tokensChanged ? ' and its info tokens set as above' : '; its info tokens stay'})</span>
                            </>
                          )}
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        )}
        {orphanErrors.length > 0 && (
          <ul class="error" role="alert">
            {orphanErrors.map(([key, messages]) => (
              <li key={key}>
                {key}: {messages.join('; ')}
              </li>
            ))}
          </ul>
        )}
        {requestError && (
          <div class="error" role="alert">
            {requestError.message}
          </div>
        )}
        {done && <p role="status">{done}</p>}
        {progress && (
          <p class="upload-progress">
            <progress aria-label="Upload progress" max={progress.total || 1} value={progress.sent} />{' '}
            <span>{progress.total ? `${progress.sent} of ${progress.total} bytes sent (${Math.floor((100 * progress.sent) / progress.total)} %)` : 'Starting the upload…'}</span>
          </p>
        )}
        <button type="submit" disabled={busy || rows.length === 0 || props.maintenance}>
          {busy ? 'Uploading…' : `Upload ${rows.length || ''} ${rows.length === 1 ? 'image' : 'images'}`}
        </button>
        {busy && (
          <>
            {' '}
            <button type="button" onClick={() => running.current?.abort()}>
              Cancel upload
            </button>
          </>
        )}
      </form>
    </section>
  );
}
