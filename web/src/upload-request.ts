/**
 * A request whose body's sending is observable: XMLHttpRequest's `upload.onprogress` (fetch reports
 * no upload progress). Same bearer-token and error handling as `request` in api.ts: a problem+json
 * answer becomes an ApiError, a 401 signs out, an unreachable server says so in words.
 */
import { ApiError, getToken, signOut, UNREACHABLE, type Problem } from './api';

/** Bytes of the request body sent so far and in all (`total` is the body's size in bytes). */
export interface UploadProgress {
  sent: number;
  total: number;
}

function problemOf(xhr: XMLHttpRequest): Problem {
  try {
    return { ...(JSON.parse(xhr.responseText) as Problem), status: xhr.status };
  } catch {
    return { status: xhr.status, detail: `${xhr.status} ${xhr.statusText}` };
  }
}

/**
 * Sends `body` (multipart) to `path` with `method` and resolves with the parsed JSON answer.
 * `onProgress` is called as bytes leave the browser, last with sent = total. Aborting `signal`
 * aborts the request and rejects with a DOMException named "AbortError"; the API stores an upload
 * only once its whole body has arrived, so an aborted one stores nothing.
 * Throws ApiError on an HTTP error answer, Error(UNREACHABLE) when the server cannot be reached.
 */
export function uploadWithProgress<T>(method: string, path: string, body: FormData, onProgress: (progress: UploadProgress) => void, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const aborted = () => new DOMException('The upload was cancelled', 'AbortError');
    if (signal?.aborted) {
      reject(aborted());
      return;
    }
    const token = getToken();
    const xhr = new XMLHttpRequest();
    xhr.open(method, path);
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    let total = 0;
    xhr.upload.onprogress = (e) => {
      if (!e.lengthComputable) return;
      total = e.total;
      onProgress({ sent: e.loaded, total });
    };
    // The whole body has left: report it complete even if the last progress event fell short.
    xhr.upload.onload = () => {
      if (total > 0) onProgress({ sent: total, total });
    };
    const onAbort = () => xhr.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal?.removeEventListener('abort', onAbort);
    xhr.onabort = () => {
      settle();
      reject(aborted());
    };
    xhr.onerror = () => {
      settle();
      reject(new Error(UNREACHABLE));
    };
    xhr.onload = () => {
      settle();
      if (xhr.status < 200 || xhr.status >= 300) {
        const problem = problemOf(xhr);
        if (xhr.status === 401 && token === getToken()) signOut(problem.detail);
        reject(new ApiError(problem));
        return;
      }
      try {
        resolve(JSON.parse(xhr.responseText) as T);
      } catch {
        reject(new ApiError({ status: xhr.status, detail: 'the server answered with something that is not JSON' }));
      }
    };
    xhr.send(body);
  });
}
