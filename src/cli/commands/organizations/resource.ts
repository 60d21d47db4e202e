/** Organizations as a CLI resource (decisions §5; docs/api.md "Parts and organizations"): import and list. */
import { MAX_BULK_ITEMS, type Organization } from '../../../api/schemas.js';
import { organizationToRow } from '../../import/map-rows.js';
import { CSV_MAPPERS } from '../../import/mapped-entries.js';
import type { ImportSpec, ResourceSpec } from '../resource.js';

type OrganizationRecord = Organization & Record<string, unknown>;

export const organizationsResource: ResourceSpec<OrganizationRecord> & ImportSpec = {
  noun: 'organizations',
  singular: 'organization',
  idField: 'org_id',
  maxBatch: MAX_BULK_ITEMS,
  fields: ['org_id', 'parent_id'],
  defaultFields: ['org_id', 'parent_id'],
  mapCsvRow: CSV_MAPPERS.organizations as ImportSpec['mapCsvRow'],
  send: (client, items) => client.upsertOrganizations(items),
  list: (client, request) => client.listOrganizations(request) as ReturnType<ResourceSpec<OrganizationRecord>['list']>,
  async select(client, ids) {
    // No select endpoint: page through and keep the asked ids.
    const wanted = new Set(ids);
    const out: OrganizationRecord[] = [];
    for (let after: string | undefined; ;) {
      const page = await client.listOrganizations({ paging: { limit: 1000, ...(after !== undefined ? { last_object_id: after } : {}) } });
      for (const org of page.result) if (wanted.has(org.org_id)) out.push(org as OrganizationRecord);
      if (!page.more_data) return out;
      after = page.last_object_id;
    }
  },
  delete: () => Promise.reject(new Error('organizations cannot be deleted: the API has no such endpoint')),
  toCsvRow: organizationToRow,
};
