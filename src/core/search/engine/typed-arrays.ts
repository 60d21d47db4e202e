/** Typed-array helpers of the engine's in-memory columns. */

type Grown = Int32Array | Uint8Array | Uint16Array | Float64Array;

/**
 * A copy of `array` with room for `size` elements (the new ones zero), of the same type. `size`
 * must be at least the array's length.
 */
export function grown<T extends Grown>(array: T, size: number): T {
  const next = new (array.constructor as new (n: number) => T)(size);
  next.set(array);
  return next;
}
