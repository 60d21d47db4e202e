/**
 * The search page: a text search with filters on the filterable attributes, and a search by photo
 * (choose, drop or take one). Results are read page by page from the search session
 * (GET /1/find/search/state/{sessionId}); the URL holds the session and the page, so a page can be
 * shared and reloaded while the session lives (24 hours, same token).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { allAttributes, api, ApiError, CONFIDENT_IMAGE_SCORE, enc, inLanguage, partNames, request, RESULT_PROJECTION, type Attribute, type LangMap, type SearchResponse, type SearchResult } from './api';
import { Thumb } from './images';
import { Link, navigate, partUrl, type Location } from './router';

/** Hits per page. */
export const PAGE_SIZE = 20;

/** Pages already fetched (the first page comes with the search itself). */
const pages = new Map<string, SearchResponse>();
const pageKey = (session: string, page: number) => `${session}#${page}`;

function searchUrl(session: string, page: number): string {
  return `/search?session=${enc(session)}&page=${page}`;
}

/** The form state of a search, kept per session in sessionStorage so the boxes survive a reload. */
interface SearchForm {
  text: string;
  filters: Record<string, string>;
}
const formKey = (session: string) => `catalog.search.${session}`;

function ErrorNote(props: { error: unknown }) {
  if (!props.error) return null;
  const e = props.error;
  const text = e instanceof ApiError ? e.message : e instanceof Error ? e.message : String(e);
  const details = e instanceof ApiError ? (e.problem.errors ?? []) : [];
  return (
    <div class="error" role="alert">
      <p>{text}</p>
      {details.length > 0 && (
        <ul>
          {details.map((d) => (
            <li key={d.path}>
              {d.path}: {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
export { ErrorNote };

function filtersOf(form: SearchForm): Array<{ label: string; values: string[] }> {
  return Object.entries(form.filters)
    .map(([label, raw]) => ({ label, values: raw.split(',').map((v) => v.trim()).filter((v) => v !== '') }))
    .filter((f) => f.values.length > 0);
}

interface Hit extends SearchResult {
  names?: LangMap;
  thumbnail?: string | null;
}

/**
 * Names in every language (for the language switch) beside each hit; its thumbnail is its first
 * shown display image, which the page's results carry (`results.images`).
 */
async function decorate(results: SearchResult[]): Promise<Hit[]> {
  const names = await partNames(results.map((r) => r.id));
  return results.map((r) => ({ ...r, names: names.get(r.id), thumbnail: r.images?.[0]?.image_id ?? null }));
}

function Pager(props: { session: string; page: number; pageCount: number }) {
  const { session, page, pageCount } = props;
  if (pageCount <= 1) return null;
  const first = Math.max(1, Math.min(page - 3, pageCount - 6));
  const numbers: number[] = [];
  for (let p = first; p <= Math.min(pageCount, first + 6); p++) numbers.push(p);
  return (
    <nav class="pager" aria-label="Result pages">
      {page > 1 ? <Link href={searchUrl(session, page - 1)} rel="prev">Previous</Link> : <span class="disabled">Previous</span>}
      {numbers.map((p) =>
        p === page ? (
          <span key={p} aria-current="page" class="current">
            {p}
          </span>
        ) : (
          <Link key={p} href={searchUrl(session, p)} aria-label={`Page ${p}`}>
            {String(p)}
          </Link>
        ),
      )}
      {page < pageCount ? <Link href={searchUrl(session, page + 1)} rel="next">Next</Link> : <span class="disabled">Next</span>}
    </nav>
  );
}

/** The photo search: file input (camera on phones), drop zone anywhere on the page, preview. */
function PhotoSearch(props: { language: string; onError: (e: unknown) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [dragging, setDragging] = useState(false);

  useEffect(() => {
    if (!file) return;
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  // Dropping an image anywhere on the search page chooses it.
  useEffect(() => {
    const over = (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) {
        e.preventDefault();
        setDragging(true);
      }
    };
    const leave = (e: DragEvent) => {
      if (e.relatedTarget === null) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      const dropped = e.dataTransfer?.files[0];
      setDragging(false);
      if (!dropped) return;
      e.preventDefault();
      setFile(dropped);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setBusy(true);
    props.onError(null);
    try {
      const body = new FormData();
      body.append('input', JSON.stringify({ language: props.language, projection: RESULT_PROJECTION, resultOptions: { limit: PAGE_SIZE } }));
      body.append('image', file, file.name || 'photo');
      const response = (await (await request('POST', '/1/find/search', body)).json()) as SearchResponse;
      pages.set(pageKey(response.sessionId, 1), response);
      navigate(searchUrl(response.sessionId, 1));
    } catch (e) {
      props.onError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class={`photo ${dragging ? 'dragging' : ''}`} onSubmit={submit} aria-labelledby="photo-title">
      <h2 id="photo-title">Search by photo</h2>
      <div class="dropzone">
        <label for="photo-file">Photo (choose a file, take one, or drop one on the page)</label>
        <input id="photo-file" type="file" accept="image/*" capture="environment" onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null)} />
        {preview && <img class="preview" src={preview} alt="Preview of the photo to search with" />}
      </div>
      <button type="submit" disabled={!file || busy}>
        {busy ? 'Searching…' : 'Search by photo'}
      </button>
    </form>
  );
}

export function SearchPage(props: { location: Location; language: string }) {
  const session = props.location.query.get('session');
  const page = Math.max(1, Number(props.location.query.get('page') ?? '1') || 1);
  const [attributes, setAttributes] = useState<Attribute[]>([]);
  const [form, setForm] = useState<SearchForm>(() => (session ? (JSON.parse(sessionStorage.getItem(formKey(session)) ?? 'null') as SearchForm | null) : null) ?? { text: '', filters: {} });
  // The page on screen, with the session and page number it belongs to (the URL may be ahead of it).
  const [view, setView] = useState<{ session: string; page: number; response: SearchResponse; hits: Hit[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    allAttributes().then(setAttributes, setError);
  }, []);

  useEffect(() => {
    if (!session) {
      setView(null);
      return;
    }
    let live = true;
    setLoading(true);
    setError(null);
    const cached = pages.get(pageKey(session, page));
    const load = cached
      ? Promise.resolve(cached)
      : api<SearchResponse>('GET', `/1/find/search/state/${enc(session)}?skip=${(page - 1) * PAGE_SIZE}&limit=${PAGE_SIZE}&projection=${RESULT_PROJECTION.join(',')}`);
    load
      .then(async (r) => {
        pages.set(pageKey(session, page), r);
        const decorated = await decorate(r.results);
        if (!live) return;
        setView({ session, page, response: r, hits: decorated });
      })
      .catch((e: unknown) => {
        if (!live) return;
        setView(null);
        setError(e instanceof ApiError && e.status === 404 ? new Error('This search has expired or belongs to another token: search again.') : e);
      })
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [session, page]);

  const filterable = useMemo(() => attributes.filter((a) => a.filterable), [attributes]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setLoading(true);
    try {
      const filters = filtersOf(form);
      const text = form.text.trim();
      const body = { language: props.language, matches: { ...(text ? { text: form.text } : {}), ...(filters.length ? { filters } : {}) }, projection: RESULT_PROJECTION, resultOptions: { limit: PAGE_SIZE } };
      const r = await api<SearchResponse>('POST', '/1/find/search', body);
      pages.set(pageKey(r.sessionId, 1), r);
      sessionStorage.setItem(formKey(r.sessionId), JSON.stringify(form));
      navigate(searchUrl(r.sessionId, 1));
    } catch (e) {
      setError(e);
      setLoading(false);
    }
  };

  const response = view?.response ?? null;
  const hits = view?.hits ?? null;
  const shownPage = view?.page ?? page;
  const total = response?.resultsTotalCount ?? 0;
  const pageCount = Math.ceil(Math.min(total, 10_000) / PAGE_SIZE);
  const photo = response?.imageId !== null && response?.imageId !== undefined;
  const firstRank = (shownPage - 1) * PAGE_SIZE + 1;
  // A photo of nothing in the catalog still lists the closest parts, but says none is a confident match.
  const noConfidentHit = photo && shownPage === 1 && total > 0 && typeof hits?.[0]?.score === 'number' && hits[0].score < CONFIDENT_IMAGE_SCORE;

  return (
    <main id="main" class="search-page">
      <h1>Search parts</h1>
      <div class="search-forms">
        <form class="text-search" role="search" onSubmit={submit} aria-label="Text search">
          <label for="search-text">Search text</label>
          <div class="row">
            <input id="search-text" type="search" value={form.text} onInput={(e) => setForm({ ...form, text: (e.currentTarget as HTMLInputElement).value })} placeholder="e.g. gigabit ethernet" />
            <button type="submit">Search</button>
          </div>
          {filterable.length > 0 && (
            <fieldset class="filters">
              <legend>Filters (exact values, comma separated)</legend>
              {filterable.map((a) => (
                <div class="filter" key={a.attribute_id}>
                  <label for={`filter-${a.attribute_id}`}>{inLanguage(a.name, props.language).text || a.attribute_id}</label>
                  <input
                    id={`filter-${a.attribute_id}`}
                    type="text"
                    value={form.filters[a.attribute_id] ?? ''}
                    onInput={(e) => setForm({ ...form, filters: { ...form.filters, [a.attribute_id]: (e.currentTarget as HTMLInputElement).value } })}
                  />
                </div>
              ))}
            </fieldset>
          )}
        </form>
        <PhotoSearch language={props.language} onError={setError} />
      </div>

      <ErrorNote error={error} />
      <section aria-labelledby="results-title" aria-busy={loading}>
        <h2 id="results-title">Results</h2>
        {!session && <p>Search by text, filters or a photo.</p>}
        {response && (
          <p class="summary" role="status">
            {total === 0 ? 'No parts found.' : `${total.toLocaleString('en')} ${total === 1 ? 'part' : 'parts'}${photo ? ' by photo similarity' : ''}, page ${shownPage} of ${Math.max(pageCount, 1)}`}
          </p>
        )}
        {noConfidentHit && (
          <p class="no-confident-hit" role="note">
            No part matches this photo confidently (every similarity is below {CONFIDENT_IMAGE_SCORE * 100} %): the closest parts are listed below.
          </p>
        )}
        {hits && hits.length > 0 && (
          <ol class="hits" start={firstRank}>
            {hits.map((hit, i) => {
              const name = hit.names ? inLanguage(hit.names, props.language) : { text: hit.name ?? hit.id, lang: hit.nameLanguage ?? props.language };
              return (
                <li key={hit.id} class="hit">
                  {hit.thumbnail ? <Thumb imageId={hit.thumbnail} size={128} alt="" /> : <span class="thumb thumb-missing" aria-hidden="true" />}
                  <div>
                    <Link href={partUrl(hit.id)} class="hit-name" lang={name.lang}>
                      {name.text || hit.id}
                    </Link>
                    <div class="hit-id">{hit.id}</div>
                    {photo && (
                      <div class={`score${typeof hit.score === 'number' && hit.score < CONFIDENT_IMAGE_SCORE ? ' weak' : ''}`}>
                        {typeof hit.score === 'number'
                          ? `Similarity ${(hit.score * 100).toFixed(0)} %${hit.score < CONFIDENT_IMAGE_SCORE ? ' (weak match)' : ''}`
                          : `Similarity rank ${firstRank + i}`}
                      </div>
                    )}
                  </div>
                </li>
              );
            })}
          </ol>
        )}
        {view && <Pager session={view.session} page={view.page} pageCount={pageCount} />}
      </section>
    </main>
  );
}
