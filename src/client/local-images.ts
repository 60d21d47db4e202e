/**
 * The local client's side of image uploads and downloads: files on disk become UploadInputs that
 * the core streams into the BlobStore (opened one at a time, as the upload reaches them).
 */
import { createReadStream } from 'node:fs';
import type { ImageDownload, UploadFile, UploadOptions } from '../api/image-schemas.js';
import type { Principal } from '../api/schemas.js';
import type { ImageService, UploadInput } from '../core/images/service.js';

/** Read size for streaming a file from disk. */
const READ_CHUNK = 1024 * 1024;

function* uploadInputs(files: readonly UploadFile[]): Generator<UploadInput> {
  for (const file of files) {
    if (file.data !== undefined) yield { filename: file.filename, source: file.data };
    else if (file.path !== undefined) yield { filename: file.filename, source: createReadStream(file.path, { highWaterMark: READ_CHUNK }) };
    else throw new TypeError(`upload file '${file.filename}' has neither path nor data`);
  }
}

/** uploadImages of the local client: the same UploadSession the HTTP route drives. */
export function uploadLocal(images: ImageService, principal: Principal, definitions: unknown[], files: readonly UploadFile[], options: UploadOptions = {}) {
  return images.uploadImages(principal, definitions, uploadInputs(files), options);
}

/** downloadImage of the local client. */
export async function downloadLocal(images: ImageService, principal: Principal, imageId: string): Promise<ImageDownload> {
  const original = await images.openOriginal(principal, imageId);
  if (original.notModified) throw new Error('unreachable: no If-None-Match was given');
  return { contentType: original.mime, size: original.size, etag: original.etag, stream: original.stream };
}
