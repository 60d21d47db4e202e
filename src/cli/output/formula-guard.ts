/**
 * CSV and TSV exports a spreadsheet may open safely (docs/import-formats.md, "Formula cells"): a
 * cell whose text begins with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to Excel,
 * LibreOffice and Google Sheets (`=HYPERLINK(...)`, `=cmd|' /C calc'!A0`), so exports write it
 * with one `'` before it, the mark spreadsheets themselves use for "text, not a formula". Imports
 * remove that one `'` again, so an export re-imports to exactly what was stored. Texts already
 * beginning with `'`s before such a character get one more, so the mapping is reversible for every
 * text: guard then unguard is the identity. `--raw-csv` writes cells unguarded.
 */

/** A text a spreadsheet would evaluate, possibly behind `'`s that an earlier guard added. */
const FORMULA_START = /^'*[=+\-@\t\r]/;

/** `text` as an export writes it: with one `'` before it when it could be taken for a formula. */
export function guardFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** What {@link guardFormula} was given: one leading `'` removed from a guarded text; any other text unchanged. */
export function unguardFormula(text: string): string {
  return text.charCodeAt(0) === 39 && FORMULA_START.test(text) ? text.slice(1) : text;
}
