/** Synonym sets as a CLI resource (docs/api.md "Synonyms"). */
import { MAX_BULK_ITEMS, type SynonymSet } from '../../../api/schemas.js';
import { synonymToRow } from '../../import/map-rows.js';
import { CSV_MAPPERS } from '../../import/mapped-entries.js';
import type { ImportSpec, ResourceSpec } from '../resource.js';

export const synonymsResource: ResourceSpec<SynonymSet & Record<string, unknown>> & ImportSpec = {
  noun: 'synonyms',
  singular: 'synonym set',
  idField: 'synonym_id',
  changeType: 'synonym',
  maxBatch: MAX_BULK_ITEMS,
  fields: ['synonym_id', 'input', 'synonyms'],
  defaultFields: ['synonym_id', 'input', 'synonyms'],
  mapCsvRow: CSV_MAPPERS.synonyms as ImportSpec['mapCsvRow'],
  send: (client, items) => client.upsertSynonyms(items),
  list: (client, request) => client.listSynonyms(request) as ReturnType<ResourceSpec<SynonymSet & Record<string, unknown>>['list']>,
  async select(client, ids) {
    // No select endpoint: the sets are few (at most MAX_SYNONYM_SETS); page through and keep the asked ids.
    const wanted = new Set(ids);
    const out: (SynonymSet & Record<string, unknown>)[] = [];
    for (let after: string | undefined; ;) {
      const page = await client.listSynonyms({ paging: { limit: 1000, ...(after !== undefined ? { last_object_id: after } : {}) } });
      for (const set of page.result) if (wanted.has(set.synonym_id)) out.push(set as SynonymSet & Record<string, unknown>);
      if (!page.more_data) return out;
      after = page.last_object_id;
    }
  },
  delete: (client, ids) => client.deleteSynonyms(ids),
  toCsvRow: synonymToRow,
};
