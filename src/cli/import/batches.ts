/**
 * Groups a stream of items into arrays of at most `size`, for bulk calls limited to the server's
 * item limit (MAX_BULK_ITEMS). Pulls lazily: at most one batch is held at a time.
 */

/**
 * Yields consecutive arrays of `size` items from `source`; the last one may be shorter; an empty
 * source yields nothing.
 *
 * @param size items per batch, an integer ≥ 1.
 * @throws RangeError when `size` is not an integer ≥ 1 (at the first `next()`).
 */
export async function* batch<T>(source: AsyncIterable<T> | Iterable<T>, size: number): AsyncGenerator<T[], void, undefined> {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batch size must be an integer >= 1, got ${size}`);
  let current: T[] = [];
  for await (const item of source) {
    current.push(item);
    if (current.length >= size) {
      const full = current;
      current = [];
      yield full;
    }
  }
  if (current.length > 0) yield current;
}
