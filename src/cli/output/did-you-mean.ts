/**
 * "Did you mean" for names the user typed: the closest of the valid names by edit distance
 * (Damerau-free Levenshtein), as commander suggests commands and options. Used for CSV headers
 * (a header that names unknown columns is reported once, before any row, exit 2).
 */

/** Levenshtein distance of `a` and `b` (insert, delete, substitute: 1 each). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The valid name closest to `word` (case-insensitive), or undefined when none is near: at most
 * 2 edits, and fewer than half of the word's length.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= 2 && bestDistance < word.length / 2 ? best : undefined;
}

/**
 * Candidates for a CSV column from a "valid columns" text such as `part_id, name.<lang>,
 * attr:<attribute_id>.<lang>`: `<lang>` takes the word's own language suffix (`nme.de` →
 * `name.de`), `<attribute_id>` and `<organization>` are left out (any id is valid there).
 */
function columnCandidates(word: string, valid: string): string[] {
  const dot = word.lastIndexOf('.');
  const lang = dot > 0 ? word.slice(dot + 1) : 'en';
  return valid
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && !c.includes('<attribute_id>') && !c.includes('<organization>'))
    .map((c) => c.replace('<lang>', lang));
}

/**
 * The suggestion for one unknown CSV column: the nearest valid column, else, when the resource has
 * `attr:<attribute_id>.<lang>` columns and the word looks like an attribute id, `attr:<word>.en`.
 */
export function suggestColumn(word: string, valid: string): string | undefined {
  const near = closest(word, columnCandidates(word, valid));
  if (near !== undefined) return near;
  if (valid.includes('attr:<attribute_id>') && /^[A-Za-z0-9_-]+(\.[A-Za-z-]+)?$/.test(word)) {
    return word.includes('.') ? `attr:${word}` : `attr:${word}.en`;
  }
  return undefined;
}

/**
 * The header problem of a CSV import, from the problems the mapper reported for its FIRST row:
 * every row has the header's columns, so an unknown column there rejects every row. Returns one
 * message naming each unknown column with its "did you mean", or undefined when the header is fine.
 */
export function headerProblem(firstRowProblems: readonly string[], input: string): string | undefined {
  for (const problem of firstRowProblems) {
    const m = /^unknown columns? (.+); valid columns: (.+)$/.exec(problem);
    if (!m) continue;
    const valid = m[2] ?? '';
    const names = [...(m[1] ?? '').matchAll(/'((?:[^']|'')*)'/g)].map((x) => x[1] ?? '');
    const described = names.map((name) => {
      const suggestion = suggestColumn(name, valid);
      return `'${name}'${suggestion !== undefined ? ` (did you mean '${suggestion}'?)` : ''}`;
    });
    return `the header of ${input} names unknown column${names.length > 1 ? 's' : ''} ${described.join(', ')}; valid columns: ${valid}. Nothing was imported.`;
  }
  return undefined;
}
