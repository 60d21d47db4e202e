/**
 * `count` ids spread evenly over [1, maxId] (all of them when there are fewer): a sample of a
 * table's rows by their integer keys (SQLite rowids, PostgreSQL serial keys); a deleted row's id
 * is simply missing from the sample.
 */
export function evenlySpreadIds(maxId: number, count: number): number[] {
  if (maxId <= 0 || count <= 0) return [];
  if (maxId <= count) return Array.from({ length: maxId }, (_, i) => i + 1);
  const step = maxId / count;
  return Array.from({ length: count }, (_, i) => 1 + Math.floor(i * step));
}
