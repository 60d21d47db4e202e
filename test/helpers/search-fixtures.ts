/** Small builders the search contract tests share. */
import type { SearchResponse } from '../../src/api/schemas.js';

/** The part ids of a search answer's results, in rank order. */
export const ids = (response: SearchResponse) => response.results.map((r) => r.id);

/** Attribute values shared by every organization (`organization: ''`), English text, by attribute_id. */
export const values = (entries: Record<string, string>) => Object.entries(entries).map(([attribute_id, text]) => ({ attribute_id, values: [{ organization: '', value: { en: text } }] }));
