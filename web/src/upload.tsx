/**
 * Uploading images onto a part (POST /1/catalog/images, multipart): files chosen or dropped, each
 * with its image id, info tokens, weight and optional position; the API's answer is shown per file
 * (its `errors` are keyed by image id, or by file name for a file that matched no definition).
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, request, type BulkWriteResult } from './api';
import { forgetImages } from './images';

interface Row {
  key: number;
  file: File;
  imageId: string;
  searchable: boolean;
  display: boolean;
  weight: string;
  position: string;
}

let nextKey = 1;

/** An image id from a file name: the name without its extension, "/" not allowed in ids. */
function idFromName(name: string): string {
  return name.replace(/\.[^.]*$/, '').replaceAll('/', '_') || `image-${Date.now()}`;
}

function extensionOf(name: string): string {
  return /\.[A-Za-z0-9]{1,5}$/.exec(name)?.[0] ?? '';
}

/** The info string of a row: the tokens of spec 2.2 (searchable, display, weight=<n>). */
export function infoOf(row: Pick<Row, 'searchable' | 'display' | 'weight'>): string {
  const tokens: string[] = [];
  if (row.searchable) tokens.push('searchable');
  if (row.display) tokens.push('display');
  if (row.display && row.weight.trim() !== '') tokens.push(`weight=${row.weight.trim()}`);
  return tokens.join(' ');
}

/** The upload form; shown only to a token that may write, with a position column only for one that may set positions (spec 2.2). */
export function Upload(props: { partId: string; canSetPosition: boolean; onUploaded: (imageIds: string[]) => Promise<void> }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [busy, setBusy] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [requestError, setRequestError] = useState<ApiError | Error | null>(null);
  const [itemErrors, setItemErrors] = useState<Record<string, string[]>>({});
  const [done, setDone] = useState<string | null>(null);

  const add = (files: FileList | File[] | null | undefined) => {
    if (!files) return;
    const added = [...files].map((file) => ({ key: nextKey++, file, imageId: idFromName(file.name), searchable: false, display: true, weight: '', position: '' }));
    setRows((r) => [...r, ...added]);
    setDone(null);
  };
  const update = (key: number, change: Partial<Row>) => setRows((r) => r.map((row) => (row.key === key ? { ...row, ...change } : row)));

  const submit = async (event: Event) => {
    event.preventDefault();
    if (rows.length === 0) return;
    setBusy(true);
    setRequestError(null);
    setItemErrors({});
    setDone(null);
    try {
      const definitions = rows.map((row) => ({
        image_id: row.imageId,
        part_id: props.partId,
        info: infoOf(row),
        ...(row.position.trim() !== '' ? { position: Number(row.position) } : {}),
      }));
      const body = new FormData();
      body.append('images', JSON.stringify(definitions));
      // The file name is the image id plus its extension: the API matches files to definitions by it.
      for (const row of rows) body.append('files', row.file, `${row.imageId}${extensionOf(row.file.name)}`);
      const result = (await (await request('POST', '/1/catalog/images', body)).json()) as BulkWriteResult;
      const stored = [...result.created, ...result.updated];
      forgetImages(stored);
      setItemErrors(result.errors);
      setRows((r) => r.filter((row) => !stored.includes(row.imageId)));
      setDone(stored.length ? `Stored ${stored.join(', ')}.` : null);
      if (stored.length) await props.onUploaded(stored);
    } catch (e) {
      setRequestError(e instanceof Error ? e : new Error(String(e)));
    } finally {
      setBusy(false);
    }
  };

  const orphanErrors = Object.entries(itemErrors).filter(([key]) => !rows.some((r) => r.imageId === key));

  return (
    <section aria-labelledby="upload-title" class="upload">
      <h2 id="upload-title">Add images</h2>
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
            add(e.dataTransfer?.files);
          }}
        >
          <label for="upload-files">Image files (choose, or drop them here)</label>
          <input id="upload-files" type="file" accept="image/*" multiple onChange={(e) => add((e.currentTarget as HTMLInputElement).files)} />
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
                const errs = itemErrors[row.imageId] ?? itemErrors[row.file.name] ?? [];
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
                          <input type="checkbox" checked={row.display} onChange={(e) => update(row.key, { display: (e.currentTarget as HTMLInputElement).checked })} /> display
                        </label>{' '}
                        <label>
                          <input type="checkbox" checked={row.searchable} onChange={(e) => update(row.key, { searchable: (e.currentTarget as HTMLInputElement).checked })} /> searchable
                        </label>
                      </td>
                      <td>
                        <input class="narrow" type="number" step="any" aria-label={`Weight for ${row.file.name}`} value={row.weight} disabled={!row.display} onInput={(e) => update(row.key, { weight: (e.currentTarget as HTMLInputElement).value })} />
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
        <button type="submit" disabled={busy || rows.length === 0}>
          {busy ? 'Uploading…' : `Upload ${rows.length || ''} ${rows.length === 1 ? 'image' : 'images'}`}
        </button>
      </form>
    </section>
  );
}
