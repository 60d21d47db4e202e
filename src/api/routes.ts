/**
 * Route paths of the HTTP API (api-spec.md §4, §9: catalog and search under /1/, relations under /v1/).
 * Shared by the server and the HTTP client so the two cannot disagree on a path.
 */
export const ROUTES = {
  attributes: '/1/catalog/attributes',
  attributesList: '/1/catalog/attributes/list',
  attributesSelect: '/1/catalog/attributes/select',
  parts: '/1/catalog/parts',
  partsList: '/1/catalog/parts/list',
  partsSelect: '/1/catalog/parts/select',
  part: (partId: string) => `/1/catalog/parts/${encodeURIComponent(partId)}`,
  partDisplayImages: (partId: string) => `/1/catalog/parts/${encodeURIComponent(partId)}/display-images`,
  organizations: '/1/catalog/organizations',
  organizationsList: '/1/catalog/organizations/list',
  maintenance: '/1/catalog/maintenance',
  images: '/1/catalog/images',
  imagesList: '/1/catalog/images/list',
  imagesSelect: '/1/catalog/images/select',
  image: (imageId: string) => `/1/catalog/images/${encodeURIComponent(imageId)}`,
  imageOriginal: (imageId: string) => `/1/catalog/images/${encodeURIComponent(imageId)}/original`,
  relations: '/v1/parts/relations',
  partRelations: (partId: string) => `/v1/parts/${encodeURIComponent(partId)}/relations`,
  partRelationsOfType: (partId: string, type: string) =>
    `/v1/parts/${encodeURIComponent(partId)}/relations/${encodeURIComponent(type)}`,
  search: '/1/find/search',
  searchState: (sessionId: string) => `/1/find/search/state/${encodeURIComponent(sessionId)}`,
} as const;
