/**
 * Sets of doc ids as ascending Int32Arrays (posting lists, filter sets): union, intersection and
 * its size, without scores. The searcher counts with them what it does not rank (the typo tier of
 * a query whose first page the exact spelling fills, searcher.ts).
 */

/** The ascending doc ids in every one of `sets` (each ascending; galloping from the shortest). */
export function intersect(sets: readonly Int32Array[]): number[] {
  const out: number[] = [];
  forEachCommon(sets, (doc) => out.push(doc));
  return out;
}

/**
 * How many doc ids are in every group, a group being the union of its lists (each ascending).
 * Up to 8 groups, one bit each in `mark` (working memory indexed by doc id, zero before and left
 * zeroed): a pass setting bits, a pass counting the docs with every bit; more groups are merged.
 */
export function countInEvery(groups: readonly (readonly Int32Array[])[], mark: Uint8Array): number {
  if (groups.length > 8) return countCommon(groups.map(unionOf));
  groups.forEach((lists, i) => {
    const bit = 1 << i;
    for (const docs of lists) for (let j = 0; j < docs.length; j++) mark[docs[j] as number] = (mark[docs[j] as number] as number) | bit;
  });
  const every = (1 << groups.length) - 1;
  let n = 0;
  // Each doc counted the first time it is met, and zeroed then: met again, it counts no more.
  for (const lists of groups) {
    for (const docs of lists) {
      for (let j = 0; j < docs.length; j++) {
        const doc = docs[j] as number;
        if (mark[doc] === every) n++;
        mark[doc] = 0;
      }
    }
  }
  return n;
}

/** How many doc ids are in every one of `sets` (each ascending). */
export function countCommon(sets: readonly Int32Array[]): number {
  if (sets.length === 1) return sets[0]?.length ?? 0;
  let n = 0;
  forEachCommon(sets, () => n++);
  return n;
}

function forEachCommon(sets: readonly Int32Array[], visit: (doc: number) => void): void {
  const sorted = [...sets].sort((x, y) => x.length - y.length);
  const first = sorted[0];
  if (!first) return;
  const pos = sorted.map(() => 0);
  outer: for (let i = 0; i < first.length; i++) {
    const doc = first[i] ?? 0;
    for (let s = 1; s < sorted.length; s++) {
      const set = sorted[s] as Int32Array;
      let p = pos[s] ?? 0;
      while (p < set.length && (set[p] ?? 0) < doc) p++;
      pos[s] = p;
      if (p >= set.length) return;
      if (set[p] !== doc) continue outer;
    }
    visit(doc);
  }
}

/** The ascending doc ids in any of `lists` (each ascending), each once: merged two at a time, shortest first. */
export function unionOf(lists: readonly Int32Array[]): Int32Array {
  const queue = [...lists].sort((x, y) => x.length - y.length);
  let acc = queue[0] ?? new Int32Array(0);
  for (let k = 1; k < queue.length; k++) acc = mergeTwoSets(acc, queue[k] as Int32Array);
  return acc;
}

function mergeTwoSets(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] ?? 0;
    const y = b[j] ?? 0;
    if (x <= y) {
      out[n++] = x;
      i++;
      if (x === y) j++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++] ?? 0;
  while (j < b.length) out[n++] = b[j++] ?? 0;
  return out.subarray(0, n);
}

/** Whether ascending `docs` holds `doc` (binary search). */
export function containsDoc(docs: Int32Array, doc: number): boolean {
  let lo = 0;
  let hi = docs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((docs[mid] as number) < doc) lo = mid + 1;
    else hi = mid;
  }
  return lo < docs.length && docs[lo] === doc;
}

/**
 * Per doc of ascending `docs`, 1 when ascending `set` holds it, else 0: one walk of both when
 * `set` is not much longer than `docs`, else a binary search per doc, so a long set (every
 * scoped name of a catalog) costs `docs` · log(set), not its length.
 */
export function membership(docs: Int32Array, set: Int32Array): Uint8Array {
  const out = new Uint8Array(docs.length);
  if (set.length === 0) return out;
  if (set.length > docs.length * 8) {
    for (let i = 0; i < docs.length; i++) if (containsDoc(set, docs[i] as number)) out[i] = 1;
    return out;
  }
  for (let i = 0, j = 0; i < docs.length && j < set.length; i++) {
    const doc = docs[i] as number;
    while (j < set.length && (set[j] as number) < doc) j++;
    if (set[j] === doc) out[i] = 1;
  }
  return out;
}
