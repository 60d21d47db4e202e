/**
 * Where the pooled catalog runs each service call (src/http/pool/call-routes.ts). Completeness is
 * the compiler's job (a public method without a route does not type-check); this checks the table
 * against the services at run time: no route names a method that does not exist, and reads and
 * writes are told apart.
 */
import { describe, expect, it } from 'vitest';
import { CatalogService } from '../../src/core/catalog/service.js';
import { RelationService } from '../../src/core/relations/service.js';
import { SearchService } from '../../src/core/search/service.js';
import { CALL_ROUTES, methodsRunOn } from '../../src/http/pool/call-routes.js';

const PROTOTYPES = { service: CatalogService.prototype, relations: RelationService.prototype, search: SearchService.prototype } as const;

describe('the pooled catalog routes every service call', () => {
  it.each(Object.keys(PROTOTYPES) as (keyof typeof PROTOTYPES)[])('%s: each route names a method of the service', (service) => {
    const prototype = PROTOTYPES[service] as unknown as Record<string, unknown>;
    for (const method of Object.keys(CALL_ROUTES[service])) expect(typeof prototype[method], `${service}.${method}`).toBe('function');
  });

  it('sends the writes to the writer and the reads to the readers', () => {
    expect(methodsRunOn('service', 'write')).toEqual(expect.arrayContaining(['upsertParts', 'deleteParts', 'upsertAttributes', 'deleteAttributes', 'upsertOrganizations', 'upsertSynonyms', 'deleteSynonyms']));
    expect(methodsRunOn('relations', 'write')).toEqual(['createRelations']);
    expect(methodsRunOn('service', 'read')).toEqual(expect.arrayContaining(['listParts', 'selectParts', 'listAttributes']));
    for (const service of Object.keys(PROTOTYPES) as (keyof typeof PROTOTYPES)[]) {
      const writes = methodsRunOn(service, 'write');
      // A method named like a write never runs on a reader.
      for (const method of methodsRunOn(service, 'read')) expect(/^(upsert|delete|create|set|revoke)/.test(method), `${service}.${method}`).toBe(false);
      for (const method of writes) expect(/^(upsert|delete|create|set)/.test(method), `${service}.${method}`).toBe(true);
    }
  });
});
