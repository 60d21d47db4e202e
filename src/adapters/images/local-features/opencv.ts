/**
 * Loads OpenCV's WebAssembly build (@techstark/opencv-js, pinned to 4.12) once per process, on first
 * use: the module is ~11 MB of JavaScript and takes ~0.6 s to compile, so commands and servers that
 * never extract local features never pay for it.
 *
 * Two traps of that build, handled here: the loaded module has a `then` method, so `await`ing it
 * never settles (the promise adopts it and it resolves to itself again) — we call `then` with a
 * callback once, then delete it; and every Mat / vector it returns lives in the wasm heap and must be
 * deleted by hand (see {@link withMats}).
 */
import { createRequire } from 'node:module';

/** The subset of the OpenCV.js API this adapter uses. */
export interface CvMat {
  rows: number;
  cols: number;
  data: Uint8Array;
  delete(): void;
}
export interface CvKeyPoint {
  pt: { x: number; y: number };
  size: number;
  angle: number;
  response: number;
  octave: number;
}
export interface CvKeyPointVector {
  size(): number;
  get(i: number): CvKeyPoint;
  push_back(k: CvKeyPoint): void;
  delete(): void;
}
export interface CvOrb {
  detect(image: CvMat, keypoints: CvKeyPointVector, mask: CvMat): void;
  compute(image: CvMat, keypoints: CvKeyPointVector, descriptors: CvMat): void;
  detectAndCompute(image: CvMat, mask: CvMat, keypoints: CvKeyPointVector, descriptors: CvMat): void;
  delete(): void;
}
/**
 * OpenCV's AKAZE detector / MLDB descriptor. Construct it with no
 * argument and set it up with the setters: this build's explicit-argument constructor trips an
 * assertion (Sample_Derivative_Response_Radius6) on every image.
 */
export interface CvAkaze extends CvOrb {
  /** Detector response threshold (OpenCV's default 0.001; lower finds more keypoints). */
  setThreshold(threshold: number): void;
  /** MLDB descriptor length in bits (0: the full 486 bits in 61 bytes); fewer bits are a fixed random subset. */
  setDescriptorSize(bits: number): void;
}
export interface OpenCv {
  Mat: new () => CvMat;
  AKAZE: new () => CvAkaze;
  KeyPointVector: new () => CvKeyPointVector;
  ORB: new (
    nfeatures?: number, scaleFactor?: number, nlevels?: number, edgeThreshold?: number, firstLevel?: number,
    WTA_K?: number, scoreType?: number, patchSize?: number, fastThreshold?: number,
  ) => CvOrb;
  CLAHE: new (clipLimit: number, tileGridSize: unknown) => { apply(src: CvMat, dst: CvMat): void; delete(): void };
  Size: new (width: number, height: number) => unknown;
  /** Gaussian smoothing (`ksize` Size(0, 0): derived from σ); `borderType` one of the BORDER_* values. */
  GaussianBlur(src: CvMat, dst: CvMat, ksize: unknown, sigmaX: number, sigmaY: number, borderType: number): void;
  BORDER_REPLICATE: number;
  /** Resizes `src` into `dst` of size `dsize` (`fx`, `fy` 0: from dsize); `interpolation` one of the INTER_* values. */
  resize(src: CvMat, dst: CvMat, dsize: unknown, fx: number, fy: number, interpolation: number): void;
  INTER_AREA: number;
  INTER_CUBIC: number;
  matFromArray(rows: number, cols: number, type: number, data: ArrayLike<number>): CvMat;
  CV_8UC1: number;
  ORB_HARRIS_SCORE: number;
}

let loading: Promise<OpenCv> | undefined;

/**
 * The initialised OpenCV module (the same object on every call).
 * @throws Error when the package is missing or its runtime fails to start.
 */
export function openCv(): Promise<OpenCv> {
  loading ??= new Promise<OpenCv>((resolve, reject) => {
    try {
      const require = createRequire(import.meta.url);
      // The Emscripten runtime installs process-wide 'uncaughtException' / 'unhandledRejection'
      // handlers (the latter aborts the process, the former prints the module's 11 MB source):
      // a library must not change how the host process fails, so they are removed again.
      const before = new Set([...process.listeners('uncaughtException'), ...process.listeners('unhandledRejection')]);
      const mod = require('@techstark/opencv-js') as OpenCv & { then?: (cb: (m: unknown) => void) => void };
      for (const listener of process.listeners('uncaughtException')) if (!before.has(listener)) process.removeListener('uncaughtException', listener);
      for (const listener of process.listeners('unhandledRejection')) if (!before.has(listener)) process.removeListener('unhandledRejection', listener);
      const ready = (): void => {
        // Drop the thenable so the module can be passed through promises.
        delete mod.then;
        resolve(mod);
      };
      if (typeof mod.Mat === 'function' && typeof mod.then !== 'function') ready();
      else if (typeof mod.then === 'function') mod.then(() => ready());
      else reject(new Error('opencv-js: the module has neither a runtime nor a `then` to wait on'));
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
  return loading;
}

/** Runs `fn` with the given OpenCV objects and deletes them all afterwards, even when it throws. */
export function withMats<T>(objects: readonly { delete(): void }[], fn: () => T): T {
  try {
    return fn();
  } finally {
    for (const o of objects) o.delete();
  }
}
