/**
 * Route paths of the HTTP API (api-spec.md §4, §9: catalog and search under /1/, relations under /v1/).
 * Shared by the server and the HTTP client so the two cannot disagree on a path.
 */
/** Encodes a path segment; a `:name` placeholder (a fastify route pattern) passes through unchanged. */
function seg(value: string): string {
  return /^:[a-z_]+$/i.test(value) ? value : encodeURIComponent(value);
}

export const ROUTES = {
  attributes: '/1/catalog/attributes',
  attributesList: '/1/catalog/attributes/list',
  attributesSelect: '/1/catalog/attributes/select',
  parts: '/1/catalog/parts',
  partsList: '/1/catalog/parts/list',
  partsSelect: '/1/catalog/parts/select',
  part: (partId: string) => `/1/catalog/parts/${seg(partId)}`,
  partDisplayImages: (partId: string) => `/1/catalog/parts/${seg(partId)}/display-images`,
  organizations: '/1/catalog/organizations',
  organizationsList: '/1/catalog/organizations/list',
  maintenance: '/1/catalog/maintenance',
  /** Our addition (docs/api.md "Ranking settings"): GET reads, PUT replaces (catalogAdmin). */
  ranking: '/1/catalog/ranking',
  /** Our addition: synonym sets; POST creates or replaces, DELETE removes by id. */
  synonyms: '/1/catalog/synonyms',
  synonymsList: '/1/catalog/synonyms/list',
  catalogInfo: '/1/catalog/info',
  /** Our addition (docs/api.md "Changes"): the change feed, `{since, limit, types}`. */
  changes: '/1/catalog/changes',
  /** Our addition (docs/api.md "Webhooks"): POST adds one; list; DELETE one; the delivery log. */
  webhooks: '/1/catalog/webhooks',
  webhooksList: '/1/catalog/webhooks/list',
  webhook: (webhookId: string) => `/1/catalog/webhooks/${seg(webhookId)}`,
  webhookDeliveries: '/1/catalog/webhooks/deliveries',
  /** Our addition (docs/api.md, "Authentication"): the calling token's name, roles and permissions. */
  tokenInfo: '/1/auth/token',
  /** Our addition (docs/api.md, "Tokens"): list (GET) and create (POST) tokens; catalogAdmin with scope `tokens`. */
  tokens: '/1/auth/tokens',
  /** DELETE revokes the token. */
  token: (name: string) => `/1/auth/tokens/${seg(name)}`,
  /** POST gives the token a new secret. */
  tokenRotate: (name: string) => `/1/auth/tokens/${seg(name)}/rotate`,
  /** Our addition (docs/deploy.md, "Probes and metrics"): liveness and readiness, no token. */
  healthz: '/healthz',
  readyz: '/readyz',
  /** Prometheus text metrics; a token with the `metrics` scope unless the server makes them public. */
  metrics: '/metrics',
  images: '/1/catalog/images',
  imagesList: '/1/catalog/images/list',
  imagesSelect: '/1/catalog/images/select',
  imagesAudit: '/1/catalog/images/audit',
  image: (imageId: string) => `/1/catalog/images/${seg(imageId)}`,
  imageOriginal: (imageId: string) => `/1/catalog/images/${seg(imageId)}/original`,
  /** Our addition (docs/api.md, "Thumbnails"): the image resized, `?size=` one of THUMBNAIL_SIZES. */
  imageThumbnail: (imageId: string) => `/1/catalog/images/${seg(imageId)}/thumbnail`,
  relations: '/v1/parts/relations',
  relationsList: '/v1/parts/relations/list',
  partRelations: (partId: string) => `/v1/parts/${seg(partId)}/relations`,
  partRelationsOfType: (partId: string, type: string) =>
    `/v1/parts/${seg(partId)}/relations/${seg(type)}`,
  search: '/1/find/search',
  searchState: (sessionId: string) => `/1/find/search/state/${seg(sessionId)}`,
  /** Our addition: values of one filterable attribute beginning with a prefix, with counts. */
  facetValues: '/1/find/facet-values',
} as const;
