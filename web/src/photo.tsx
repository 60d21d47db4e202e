/**
 * Search by photo: one big control that opens the camera on a phone (or a file chooser), or a photo
 * dropped anywhere on the page; the search starts as soon as a photo is chosen (two taps on a
 * phone: the control, the shutter). A large photo is scaled down in the browser before it is sent
 * (photo search needs no more than MAX_EDGE pixels a side), the upload can be cancelled, and only
 * confident hits are listed when there are any (`resultOptions.minScore`); otherwise the closest
 * parts, marked weak. A small copy of the photo is kept with the search session, so a reload still
 * shows what was searched with.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, CONFIDENT_IMAGE_SCORE, request, RESULT_PROJECTION, type SearchResponse } from './api';

/** Longest side of the photo sent, in pixels. */
const MAX_EDGE = 1600;
/** Longest side of the copy kept to show after a reload. */
const KEPT_EDGE = 160;
const photoKey = (session: string) => `catalog.search.photo.${session}`;

/** The small copy of the photo a photo search's session was made with, as a data: URL, if kept. */
export function photoOf(session: string): string | null {
  return sessionStorage.getItem(photoKey(session));
}

/** Draws a decoded image at most `edge` pixels a side. */
function scaled(bitmap: ImageBitmap, edge: number): HTMLCanvasElement {
  const ratio = Math.min(1, edge / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * ratio));
  canvas.height = Math.max(1, Math.round(bitmap.height * ratio));
  canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  return canvas;
}

/**
 * The photo to send (scaled down when larger than MAX_EDGE) and its small copy; `null` copy when the
 * browser cannot decode it (the server decides then: it reads TIFF, which browsers do not).
 */
async function prepare(file: File): Promise<{ blob: Blob; kept: string | null }> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return { blob: file, kept: null };
  }
  try {
    const kept = scaled(bitmap, KEPT_EDGE).toDataURL('image/jpeg', 0.7);
    if (Math.max(bitmap.width, bitmap.height) <= MAX_EDGE) return { blob: file, kept };
    const blob = await new Promise<Blob | null>((resolve) => scaled(bitmap, MAX_EDGE).toBlob(resolve, 'image/jpeg', 0.85));
    return { blob: blob ?? file, kept };
  } finally {
    bitmap.close();
  }
}

const kb = (bytes: number) => `${Math.max(1, Math.round(bytes / 1024)).toLocaleString('en')} KB`;

export function PhotoSearch(props: { language: string; onStart: () => void; onError: (e: unknown) => void; onDone: (response: SearchResponse) => void }) {
  const [phase, setPhase] = useState<'idle' | 'preparing' | 'sending'>('idle');
  const [status, setStatus] = useState<string | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const controller = useRef<AbortController | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const search = async (file: File) => {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    props.onStart();
    setPreview(null);
    setPhase('preparing');
    setStatus('Preparing the photo…');
    try {
      const { blob, kept } = await prepare(file);
      if (abort.signal.aborted) return;
      setPreview(kept);
      setPhase('sending');
      setStatus(`Sending the photo (${kb(blob.size)})…`);
      const send = async (minScore: number | undefined) => {
        const body = new FormData();
        body.append('input', JSON.stringify({ language: props.language, projection: RESULT_PROJECTION, resultOptions: { limit: 20, ...(minScore !== undefined ? { minScore } : {}) } }));
        body.append('image', blob, file.name || 'photo.jpg');
        return (await (await request('POST', '/1/find/search', body, undefined, abort.signal)).json()) as SearchResponse;
      };
      // Confident hits only when there are any; else the closest parts (the page says none is confident).
      let response = await send(CONFIDENT_IMAGE_SCORE);
      if (response.resultsTotalCount === 0) response = await send(undefined);
      if (kept) {
        try {
          sessionStorage.setItem(photoKey(response.sessionId), kept);
        } catch {
          // Storage full: the photo is simply not shown after a reload.
        }
      }
      setStatus(null);
      props.onDone(response);
    } catch (e) {
      if ((e as Error).name === 'AbortError') return;
      setStatus(null);
      setPreview(null);
      props.onError(e instanceof ApiError && e.status === 415 ? new Error(`“${file.name}” is not a photo the catalog can read (JPEG, PNG, WebP, GIF, TIFF or AVIF): ${e.message}`) : e);
    } finally {
      if (controller.current === abort) {
        controller.current = null;
        setPhase('idle');
      }
      if (input.current) input.current.value = '';
    }
  };

  const cancel = () => {
    controller.current?.abort();
    controller.current = null;
    setPhase('idle');
    setPreview(null);
    setStatus('Photo search cancelled.');
  };

  // Dropping an image anywhere on the search page searches with it.
  useEffect(() => {
    const over = (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) {
        e.preventDefault();
        setDragging(true);
      }
    };
    const leave = (e: DragEvent) => {
      if (e.relatedTarget === null) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      const dropped = e.dataTransfer?.files[0];
      setDragging(false);
      if (!dropped) return;
      e.preventDefault();
      void search(dropped);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, [props.language]);

  return (
    <div class={`photo${dragging ? ' dragging' : ''}`}>
      <input
        ref={input}
        id="photo-file"
        class="visually-hidden"
        type="file"
        accept="image/*"
        capture="environment"
        disabled={phase !== 'idle'}
        onChange={(e) => {
          const file = (e.currentTarget as HTMLInputElement).files?.[0];
          if (file) void search(file);
        }}
      />
      <label for="photo-file" class="photo-button">
        <svg aria-hidden="true" width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2">
          <path d="M4 7h3l2-3h6l2 3h3v13H4z" />
          <circle cx="12" cy="13" r="4" />
        </svg>
        Take or choose a photo to search with
      </label>
      <span class="photo-hint">or drop one on the page</span>
      {preview && phase !== 'idle' && <img class="preview" src={preview} alt="The photo being searched with" />}
      {status && (
        <p class="photo-status" role="status">
          {status}
        </p>
      )}
      {phase === 'sending' && (
        <button type="button" onClick={cancel}>
          Cancel the photo search
        </button>
      )}
    </div>
  );
}
