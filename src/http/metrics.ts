/**
 * Prometheus metrics of one server (docs/deploy.md "Probes and metrics"), with prom-client, in a
 * registry of the app's own (several apps in one process, as tests build them, do not mix). They
 * are collected on the main thread, where every request passes under `catalog serve` whatever
 * thread answers it; sizes and queues are read when scraped.
 *
 * Label values are bounded: a route is its pattern (`/1/catalog/parts/:part_id`), never the
 * requested path; a request that matched no route is `unmatched`.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CatalogOperations } from '../core/services.js';

/** Latency buckets in seconds: 0.5 ms to 10 s. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The metrics of one app; `observeRequest` after each answer, `render` for `GET /metrics`. */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests: Histogram<'method' | 'route' | 'status'>;
  private readonly searches: Histogram<'kind'>;
  private readonly errors: Counter<'code'>;

  constructor(operations: CatalogOperations | undefined) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Histogram({ name: 'catalog_http_request_duration_seconds', help: 'Time from a request\'s arrival to its answer, by route pattern, method and status.', labelNames: ['method', 'route', 'status'], buckets: LATENCY_BUCKETS, registers });
    this.searches = new Histogram({ name: 'catalog_search_duration_seconds', help: 'Time of POST /1/find/search answers: kind text or photo (an image search).', labelNames: ['kind'], buckets: LATENCY_BUCKETS, registers });
    this.errors = new Counter({ name: 'catalog_http_errors_total', help: 'Error answers (status 400 and above) by problem+json code.', labelNames: ['code'], registers });
    if (!operations) return;
    // Sizes are read once per scrape, by the first gauge whose collect runs.
    let sizes: ReturnType<CatalogOperations['sizes']> | undefined;
    const readSizes = () => (sizes ??= operations.sizes().finally(() => setImmediate(() => (sizes = undefined))));
    const sizeGauge = (name: string, help: string, pick: (s: Awaited<ReturnType<CatalogOperations['sizes']>>) => number | undefined) => new Gauge({
      name, help, registers,
      async collect() {
        const value = pick(await readSizes());
        if (value !== undefined) this.set(value);
      },
    });
    sizeGauge('catalog_search_index_parts', 'Parts in the search index.', (s) => s.indexedParts);
    sizeGauge('catalog_search_sessions', 'Stored search sessions.', (s) => s.sessions);
    sizeGauge('catalog_search_session_bytes', 'Bytes the stored search sessions count against their budget.', (s) => s.sessionBytes);
    new Gauge({ name: 'catalog_decode_active', help: 'Image decodes (query photos, uploads) running.', registers, collect() { this.set(operations.decodeQueue().active); } });
    new Gauge({ name: 'catalog_decode_queued', help: 'Image decodes waiting for a slot; beyond the decode queue, image searches get 503.', registers, collect() { this.set(operations.decodeQueue().queued); } });
  }

  /**
   * Records one answered request: `route` is the matched pattern (undefined: none), `seconds`
   * from its arrival, `errorCode` the problem's code for an error answer, `photo` whether a search
   * was by image.
   */
  observeRequest(request: { method: string; route: string | undefined; status: number; seconds: number; errorCode: string | undefined; photo: boolean }): void {
    const route = request.route ?? 'unmatched';
    this.requests.observe({ method: request.method, route, status: String(request.status) }, request.seconds);
    if (route === '/1/find/search' && request.method === 'POST' && request.status < 400) this.searches.observe({ kind: request.photo ? 'photo' : 'text' }, request.seconds);
    if (request.status >= 400) this.errors.inc({ code: request.errorCode ?? String(request.status) });
  }

  /** The Prometheus text exposition and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
