/**
 * Images behind the token: an <img> cannot send the bearer header, so the page fetches thumbnails
 * (GET /1/catalog/images/{id}/thumbnail, ETag-revalidated by the browser cache) and originals with
 * it and shows them as blob: URLs.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { enc, request } from './api';

const urls = new Map<string, Promise<string>>();

/** A blob: URL of the image at `path`, fetched once per page life. */
function blobUrl(path: string): Promise<string> {
  let url = urls.get(path);
  if (!url) {
    url = request('GET', path)
      .then((response) => response.blob())
      .then((blob) => URL.createObjectURL(blob));
    url.catch(() => urls.delete(path));
    urls.set(path, url);
  }
  return url;
}

/** Forgets cached images of these ids (after an upload replaced one). */
export function forgetImages(imageIds: string[]): void {
  for (const key of [...urls.keys()]) {
    if (imageIds.some((id) => key.startsWith(`/1/catalog/images/${enc(id)}/`))) urls.delete(key);
  }
}

export function thumbnailPath(imageId: string, size: number): string {
  return `/1/catalog/images/${enc(imageId)}/thumbnail?size=${size}`;
}

export function originalPath(imageId: string): string {
  return `/1/catalog/images/${enc(imageId)}/original`;
}

/** A thumbnail of `size` px (one of the server's sizes); a grey box until it is loaded. */
export function Thumb(props: { imageId: string; size: number; alt: string; class?: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    setSrc(null);
    setFailed(false);
    blobUrl(thumbnailPath(props.imageId, props.size)).then(
      (url) => live && setSrc(url),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [props.imageId, props.size]);
  const box = Math.min(props.size, 256);
  if (failed) return <span class={`thumb thumb-missing ${props.class ?? ''}`} style={{ width: `${box}px`, height: `${box}px` }}>no preview</span>;
  if (!src) return <span class={`thumb thumb-loading ${props.class ?? ''}`} style={{ width: `${box}px`, height: `${box}px` }} aria-hidden="true" />;
  return <img class={`thumb ${props.class ?? ''}`} src={src} alt={props.alt} data-image-id={props.imageId} style={{ maxWidth: `${box}px`, maxHeight: `${box}px` }} />;
}

/** A modal dialog with an image's original; closes with Esc, the Close button or a click outside. */
export function OriginalDialog(props: { imageId: string | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [src, setSrc] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.imageId === null) {
      if (dialog.open) dialog.close();
      setSrc(null);
      return;
    }
    setSrc(null);
    setError(null);
    if (!dialog.open) dialog.showModal();
    let live = true;
    blobUrl(originalPath(props.imageId)).then(
      (url) => live && setSrc(url),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [props.imageId]);
  return (
    <dialog ref={ref} class="original" aria-label={`Original of image ${props.imageId ?? ''}`} onClose={props.onClose} onClick={(e) => e.target === ref.current && props.onClose()}>
      <div class="original-bar">
        <span>Original: {props.imageId}</span>
        <button type="button" onClick={props.onClose}>Close</button>
      </div>
      {error && <p role="alert">{error}</p>}
      {src && <img src={src} alt={`Original of image ${props.imageId ?? ''}`} />}
    </dialog>
  );
}
