/**
 * Upload limits of part images (api-decisions.md §9); each configurable in `catalog serve`.
 */
import { MAX_IMAGE_DEFINITIONS, MAX_IMAGE_FILE_BYTES, MAX_IMAGE_REQUEST_BYTES } from '../../api/image-schemas.js';

/** Upload limits (decisions §9); each configurable in `catalog serve`. */
export interface ImageLimits {
  /** Bytes of one image file (default 20 MiB); more is an item error. */
  maxFileBytes: number;
  /** Bytes of one upload request (default 256 MiB); more is a 413. Enforced by the transport. */
  maxRequestBytes: number;
  /** Image definitions per upload (default 1,000); more is a 413. */
  maxDefinitions: number;
  /** Bytes of the `images` JSON part (default 16 MiB); more is a 413. Enforced by the transport. */
  maxDefinitionsBytes: number;
  /**
   * Pixels (width × height) of one image (default 268,402,689 = 16383 × 16383, libvips' own limit):
   * an upload over it is an item error, a thumbnail of it a 413; read from the header, before any
   * pixel is decoded.
   */
  maxPixels: number;
}

/** The defaults of {@link ImageLimits}. */
export const DEFAULT_IMAGE_LIMITS: Readonly<ImageLimits> = Object.freeze({
  maxFileBytes: MAX_IMAGE_FILE_BYTES,
  maxRequestBytes: MAX_IMAGE_REQUEST_BYTES,
  maxDefinitions: MAX_IMAGE_DEFINITIONS,
  maxDefinitionsBytes: 16 * 1024 * 1024,
  maxPixels: 0x3fff * 0x3fff,
});

/** A byte count as MiB for messages: `20 MiB`, `1.5 MiB`. */
export function mib(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}
