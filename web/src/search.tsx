/**
 * The search page: results as you type (debounced; a newer query cancels the older request), facets
 * with counts beside the results (the API's `matches.facets`, and facet-value search per attribute),
 * highlighted matches (`results.highlights`), each hit's key values (`results.attributes`), and a
 * search by photo (photo.tsx). The URL is the state: `q` (the text), `f.<attribute_id>` (chosen
 * facet values), `session` and `page`; the search box always shows the URL's text, so Back, a shared
 * link and a reload all show the box and the results that belong together. Pages are read from the
 * search session (GET /1/find/search/state/{sessionId}); an expired session is searched again.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { allAttributes, api, ApiError, CONFIDENT_IMAGE_SCORE, enc, inLanguage, RESULT_PROJECTION, type Attribute, type Facets, type Highlight, type SearchResponse, type SearchResult } from './api';
import { Thumb } from './images';
import { PhotoSearch, photoOf } from './photo';
import { entryState, Link, markEntry, navigate, partUrl, setTitle, type Location } from './router';

/** Hits per page. */
export const PAGE_SIZE = 20;
/** The API pages through at most this many hits of a session (docs/api.md, resultsPageableCount). */
const PAGEABLE_HITS = 10_000;
/** Wait after the last keystroke before searching: short, so results follow the typing. */
const TYPING_DEBOUNCE_MS = 60;
/** Facets asked for at most (the API's limit per search). */
const MAX_FACETS = 20;

/**
 * The orders offered (docs/api.md, `sort`): best match (the ranking rules), part id, and each
 * filterable attribute without per-organization values, both ways. A value is the URL's `sort`
 * parameter: `attribute_id:asc|desc`, `part_id:asc|desc`, or '' for best match.
 */
function sortOptions(filterable: Attribute[], names: Map<string, string>): Array<{ value: string; label: string }> {
  const options = [{ value: '', label: 'Best match' }, { value: 'part_id:asc', label: 'Part id, A to Z' }, { value: 'part_id:desc', label: 'Part id, Z to A' }];
  for (const a of filterable) {
    if (a.per_org_values === true) continue;
    const name = names.get(a.attribute_id) ?? a.attribute_id;
    options.push({ value: `${a.attribute_id}:asc`, label: `${name}, lowest first` }, { value: `${a.attribute_id}:desc`, label: `${name}, highest first` });
  }
  return options;
}

/** The request's `sort` for the URL's `sort` value (undefined: best match). */
function sortOf(value: string | undefined): Array<Record<string, string>> | undefined {
  if (!value) return undefined;
  const at = value.lastIndexOf(':');
  const key = at > 0 ? value.slice(0, at) : value;
  const order = at > 0 && value.slice(at + 1) === 'desc' ? 'desc' : 'asc';
  return [key === 'part_id' ? { field: 'part_id', order } : { attribute_id: key, order }];
}

/** Pages already fetched (the first page comes with the search itself). */
const pages = new Map<string, SearchResponse>();
const pageKey = (session: string, page: number) => `${session}#${page}`;

/** A text search as the URL holds it. */
export interface Query {
  text: string;
  filters: Record<string, string[]>;
  /** The order chosen (`price:asc`, `part_id:desc`); absent: best match. */
  sort?: string;
}

/** The URL of a search: its text, facet values, session and page. */
export function searchUrl(query: Query, session?: string, page = 1): string {
  const params = new URLSearchParams();
  if (query.text !== '') params.set('q', query.text);
  for (const [id, values] of Object.entries(query.filters)) for (const v of values) params.append(`f.${id}`, v);
  if (query.sort) params.set('sort', query.sort);
  if (session) params.set('session', session);
  if (session) params.set('page', String(page));
  const text = params.toString();
  return text ? `/search?${text}` : '/search';
}

function queryOf(params: URLSearchParams): Query {
  const filters: Record<string, string[]> = {};
  for (const [key, value] of params) if (key.startsWith('f.') && value !== '') (filters[key.slice(2)] ??= []).push(value);
  const sort = params.get('sort');
  return { text: params.get('q') ?? '', filters, ...(sort ? { sort } : {}) };
}

const sameQuery = (a: Query, b: Query) => JSON.stringify(a) === JSON.stringify(b);
const isEmpty = (q: Query) => q.text.trim() === '' && Object.keys(q.filters).length === 0;

/** Words a person understands for what went wrong (the API's detail, or the network's). */
export function ErrorNote(props: { error: unknown }) {
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

/** The request body of a text search. */
function searchBody(query: Query, language: string, facetIds: string[]) {
  const filters = Object.entries(query.filters).map(([label, values]) => ({ label, values }));
  const text = query.text.trim();
  const sort = sortOf(query.sort);
  return {
    language,
    ...(sort ? { sort } : {}),
    matches: { ...(text ? { text: query.text } : {}), ...(filters.length ? { filters } : {}), ...(facetIds.length ? { facets: facetIds } : {}) },
    projection: RESULT_PROJECTION,
    resultOptions: { limit: PAGE_SIZE },
  };
}

/** `text` with the spans of `matches` in <mark>. */
function Marked(props: { text: string; matches: Highlight['matches'] }) {
  const out: Array<string | preact.JSX.Element> = [];
  let at = 0;
  for (const m of [...props.matches].sort((a, b) => a.start - b.start)) {
    if (m.start < at) continue;
    if (m.start > at) out.push(props.text.slice(at, m.start));
    out.push(<mark key={m.start}>{props.text.slice(m.start, m.end)}</mark>);
    at = m.end;
  }
  if (at < props.text.length) out.push(props.text.slice(at));
  return <>{out}</>;
}

/** The first values of the filterable attributes (in display order) a hit holds: its key values. */
function keyValues(hit: SearchResult, attributes: Attribute[], language: string): Array<{ id: string; label: string; value: string }> {
  const out: Array<{ id: string; label: string; value: string }> = [];
  for (const def of attributes) {
    const values = hit.attributes?.find((a) => a.attribute_id === def.attribute_id)?.values ?? [];
    const first = values[0];
    if (!first) continue;
    out.push({ id: def.attribute_id, label: inLanguage(def.name, language).text || def.attribute_id, value: inLanguage(first.value, language).text });
    if (out.length === 3) break;
  }
  return out;
}

function Hit(props: { hit: SearchResult; rank: number; photo: boolean; keyAttributes: Attribute[]; attributeNames: Map<string, string>; language: string }) {
  const { hit, photo } = props;
  // The name shown is in the hit's name language; its marks only when the match was in that language.
  const nameHighlight = hit.highlights?.find((h) => h.field === 'name' && (h.language ?? hit.nameLanguage) === hit.nameLanguage);
  const valueHighlights = (hit.highlights ?? []).filter((h) => h.field === 'value');
  const thumbnail = hit.images?.[0]?.image_id;
  const values = keyValues(hit, props.keyAttributes, props.language);
  return (
    <li class="hit">
      {thumbnail && <Thumb imageId={thumbnail} size={128} alt="" />}
      <div class="hit-body">
        <Link href={partUrl(hit.id)} class="hit-name" {...(hit.nameLanguage ? { lang: hit.nameLanguage } : {})}>
          {nameHighlight ? <Marked text={nameHighlight.text} matches={nameHighlight.matches} /> : hit.name || hit.id}
        </Link>
        <div class="hit-id">{hit.id}</div>
        {values.length > 0 && (
          <dl class="key-values">
            {values.map((v) => (
              <div key={v.id}>
                <dt>{v.label}</dt>
                <dd>{v.value}</dd>
              </div>
            ))}
          </dl>
        )}
        {valueHighlights.length > 0 && (
          <p class="matched">
            {valueHighlights.slice(0, 2).map((h, i) => (
              <span key={i}>
                {i > 0 && ' · '}
                {props.attributeNames.get(h.attribute_id ?? '') ?? h.attribute_id}: <Marked text={h.text} matches={h.matches} />
              </span>
            ))}
          </p>
        )}
        {photo && (
          <div class={`score${typeof hit.score === 'number' && hit.score < CONFIDENT_IMAGE_SCORE ? ' weak' : ''}`}>
            {typeof hit.score === 'number' ? `Similarity ${(hit.score * 100).toFixed(0)} %${hit.score < CONFIDENT_IMAGE_SCORE ? ' (weak match)' : ''}` : `Similarity rank ${props.rank}`}
          </div>
        )}
      </div>
    </li>
  );
}

function Pager(props: { query: Query; session: string; page: number; pageCount: number }) {
  const { query, session, page, pageCount } = props;
  if (pageCount <= 1) return null;
  const first = Math.max(1, Math.min(page - 2, pageCount - 4));
  const numbers: number[] = [];
  for (let p = first; p <= Math.min(pageCount, first + 4); p++) numbers.push(p);
  return (
    <nav class="pager" aria-label="Result pages">
      {page > 1 ? <Link href={searchUrl(query, session, page - 1)} rel="prev">Previous</Link> : <span class="disabled">Previous</span>}
      {numbers.map((p) =>
        p === page ? (
          <span key={p} aria-current="page" class="current">
            {p}
          </span>
        ) : (
          <Link key={p} href={searchUrl(query, session, p)} aria-label={`Page ${p}`}>
            {String(p)}
          </Link>
        ),
      )}
      {page < pageCount ? <Link href={searchUrl(query, session, page + 1)} rel="next">Next</Link> : <span class="disabled">Next</span>}
    </nav>
  );
}

/** One attribute's facet: its values with counts, checkable, and a search among its values. */
function Facet(props: { attribute: Attribute; label: string; values: Array<{ value: string; count: number }>; chosen: string[]; query: Query; onToggle: (value: string, on: boolean) => void }) {
  const { attribute, label } = props;
  const [prefix, setPrefix] = useState('');
  const [found, setFound] = useState<Array<{ value: string; count: number }> | null>(null);
  useEffect(() => {
    if (prefix.trim() === '') {
      setFound(null);
      return;
    }
    const controller = new AbortController();
    const others = Object.entries(props.query.filters).filter(([id]) => id !== attribute.attribute_id).map(([l, values]) => ({ label: l, values }));
    const body = { attribute_id: attribute.attribute_id, prefix, maxValues: 10, matches: { ...(props.query.text.trim() ? { text: props.query.text } : {}), ...(others.length ? { filters: others } : {}) } };
    api<{ values: Array<{ value: string; count: number }> }>('POST', '/1/find/facet-values', body, controller.signal).then((r) => setFound(r.values), () => undefined);
    return () => controller.abort();
  }, [prefix, props.query]);
  const shown = found ?? props.values;
  const listed = new Set(shown.map((v) => v.value.toLowerCase()));
  const extra = props.chosen.filter((v) => !listed.has(v.toLowerCase())).map((value) => ({ value, count: -1 }));
  const isChosen = (v: string) => props.chosen.some((c) => c.toLowerCase() === v.toLowerCase());
  return (
    <fieldset class="facet">
      <legend>{label}</legend>
      <input type="search" class="facet-find" aria-label={`Find a ${label} value`} placeholder={`Find a ${label.toLowerCase()}…`} value={prefix} onInput={(e) => setPrefix((e.currentTarget as HTMLInputElement).value)} />
      {[...extra, ...shown].map((v) => (
        <label key={v.value} class="facet-value">
          <input type="checkbox" checked={isChosen(v.value)} onChange={(e) => props.onToggle(v.value, (e.currentTarget as HTMLInputElement).checked)} /> {v.value}
          {v.count >= 0 && <span class="count"> {v.count}</span>}
        </label>
      ))}
      {shown.length === 0 && extra.length === 0 && <p class="note">No values{prefix ? ` beginning with “${prefix}”` : ''}.</p>}
    </fieldset>
  );
}

interface View {
  session: string;
  page: number;
  response: SearchResponse;
  /** The facets of the session (every page answers the same). */
  facets: Facets | undefined;
}

export function SearchPage(props: { location: Location; language: string }) {
  const params = props.location.query;
  const query = useMemo(() => queryOf(params), [props.location]);
  const session = params.get('session');
  const rawPage = params.get('page');
  const page = rawPage !== null && /^\d+$/.test(rawPage) ? Number(rawPage) : NaN;
  const [attributes, setAttributes] = useState<Attribute[]>([]);
  const [text, setText] = useState(query.text);
  const [view, setView] = useState<View | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const [beyond, setBeyond] = useState<{ page: number; lastPage: number } | null>(null);
  /** Facet values as just checked, shown until the search with them is on screen. */
  const [chosen, setChosen] = useState<Record<string, string[]> | null>(null);
  const inFlight = useRef<{ key: string; controller: AbortController } | null>(null);
  /** The last search answered, so a repeat of it (Enter after typing) is not sent again. */
  const answered = useRef<{ key: string; sessionId: string } | null>(null);
  const typedAt = useRef<number | null>(null);
  const resultsHeading = useRef<HTMLHeadingElement>(null);

  const filterable = useMemo(() => attributes.filter((a) => a.filterable).sort((a, b) => (a.display_order ?? Infinity) - (b.display_order ?? Infinity) || (a.creation_order ?? 0) - (b.creation_order ?? 0)), [attributes]);
  const attributeNames = useMemo(() => new Map(attributes.map((a) => [a.attribute_id, inLanguage(a.name, props.language).text || a.attribute_id])), [attributes, props.language]);

  // Searches wait for the attributes (they decide the facets asked for), found or not.
  const [attributesKnown, setAttributesKnown] = useState(false);
  useEffect(() => {
    allAttributes()
      .then(setAttributes, setError)
      .finally(() => setAttributesKnown(true));
  }, []);

  // The box shows the URL's text whenever the URL changes from outside the box (Back, a link, a
  // photo search); not after its own typing's search, when the user may have typed on meanwhile.
  const ownText = useRef<string | null>(null);
  useEffect(() => {
    const own = ownText.current;
    ownText.current = null;
    if (own !== null && own === query.text) return;
    setText(query.text);
    setChosen(null);
  }, [props.location]);

  useEffect(() => {
    setTitle(query.text ? `“${query.text}” – Search parts` : 'Search parts');
  }, [query.text]);

  /** Runs a text search now, unless the same one is on screen or under way. */
  const run = (q: Query, how: { typing: boolean; replace?: boolean; again?: boolean }) => {
    const key = JSON.stringify([q, props.language]);
    if (inFlight.current?.key === key) return;
    if (!how.again && !inFlight.current && view && session && sameQuery(q, query) && !error) return;
    // Answered and navigated to, but its page not yet drawn: the same search is already on its way to the screen.
    if (!how.again && !inFlight.current && answered.current?.key === key && answered.current.sessionId === new URLSearchParams(window.location.search).get('session')) return;
    inFlight.current?.controller.abort();
    if (isEmpty(q)) {
      inFlight.current = null;
      setLoading(false);
      navigate('/search', how.replace === true || entryState().typing === true, { typing: how.typing });
      return;
    }
    const controller = new AbortController();
    inFlight.current = { key, controller };
    setLoading(true);
    setError(null);
    // The facets asked for are the filterable attributes (read once per session; a search typed
    // before they arrive waits for them).
    allAttributes()
      .catch(() => [] as Attribute[])
      .then((all) => {
        const facetIds = all.filter((a) => a.filterable).slice(0, MAX_FACETS).map((a) => a.attribute_id);
        return api<SearchResponse>('POST', '/1/find/search', searchBody(q, props.language, facetIds), controller.signal);
      })
      .then((r) => {
        if (inFlight.current?.controller !== controller) return;
        inFlight.current = null;
        answered.current = { key, sessionId: r.sessionId };
        pages.set(pageKey(r.sessionId, 1), r);
        if (how.typing) ownText.current = q.text;
        // Typing rewrites the entry typing made; anything else adds one (so Back goes to it).
        navigate(searchUrl(q, r.sessionId, 1), how.replace === true || (how.typing && entryState().typing === true), { typing: how.typing });
      })
      .catch((e: unknown) => {
        if ((e as Error).name === 'AbortError' || inFlight.current?.controller !== controller) return;
        inFlight.current = null;
        setLoading(false);
        setView(null);
        setError(e);
      });
  };

  // A shared link with a query but no session: search it.
  useEffect(() => {
    if (!session && !isEmpty(query) && attributesKnown) run(query, { typing: false, replace: true });
  }, [session, query, attributesKnown]);

  // Another language: the same text search again, so names and highlights follow it.
  const shownLanguage = useRef(props.language);
  useEffect(() => {
    if (shownLanguage.current === props.language) return;
    shownLanguage.current = props.language;
    if (session && view && !view.response.imageId && !isEmpty(query)) run(query, { typing: false, replace: true, again: true });
  }, [props.language]);

  // Results as you type.
  const typingPause = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (text === query.text) return;
    typingPause.current = setTimeout(() => run({ ...query, text }, { typing: true }), TYPING_DEBOUNCE_MS);
    return () => clearTimeout(typingPause.current);
  }, [text]);

  // Load the page of the URL's session.
  useEffect(() => {
    setBeyond(null);
    if (!session) {
      setView(null);
      setLoading(false);
      return;
    }
    if (!Number.isSafeInteger(page) || page < 1) {
      navigate(searchUrl(query, session, 1), true);
      return;
    }
    let live = true;
    setLoading(true);
    setError(null);
    const state = (skip: number, limit: number) => api<SearchResponse>('GET', `/1/find/search/state/${enc(session)}?skip=${skip}&limit=${limit}&projection=${RESULT_PROJECTION.join(',')}`);
    const cached = pages.get(pageKey(session, page));
    const load = cached ? Promise.resolve(cached) : (page - 1) * PAGE_SIZE >= PAGEABLE_HITS ? Promise.reject(new RangeError()) : state((page - 1) * PAGE_SIZE, PAGE_SIZE);
    load
      .then((r) => {
        if (!live) return;
        const facets = r.facets ?? pages.get(pageKey(session, 1))?.facets;
        pages.set(pageKey(session, page), r);
        if (r.results.length === 0 && r.resultsTotalCount > 0 && page > 1) throw new RangeError();
        setView({ session, page, response: r, facets });
        markResults(r);
      })
      .catch(async (e: unknown) => {
        if (!live) return;
        if (e instanceof RangeError || (e instanceof ApiError && e.status === 400 && page > 1)) {
          // A page past the last one (or past the pageable hits): say so, with the way back.
          const first = await state(0, 1).catch(() => null);
          if (!live) return;
          const total = Math.min(first?.resultsTotalCount ?? 0, PAGEABLE_HITS);
          setView(null);
          setBeyond({ page, lastPage: Math.max(1, Math.ceil(total / PAGE_SIZE)) });
          return;
        }
        if (e instanceof ApiError && e.status === 404 && !isEmpty(query)) {
          // The session expired (24 hours) or belongs to another token: search the URL's query again.
          navigate(searchUrl(query), true);
          return;
        }
        if (e instanceof ApiError && e.status === 404) {
          setView(null);
          setError(new Error('This search has expired or belongs to another token: search again.'));
          return;
        }
        setView(null);
        setError(e);
      })
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [session, page, props.location]);

  /** After results render: the typing latency measure, Back's scroll position, Enter's scroll to the results. */
  const markResults = (r: SearchResponse) => {
    requestAnimationFrame(() => {
      const main = document.querySelector('main');
      main?.setAttribute('data-results-for', r.imageId ? '' : queryOf(new URLSearchParams(window.location.search)).text);
      if (typedAt.current !== null) {
        performance.measure('search:as-you-type', { start: typedAt.current, end: performance.now() });
        typedAt.current = null;
      }
      const state = entryState();
      if (state.scrollY !== undefined) {
        // Back to a page seen before: where it was left.
        window.scrollTo(0, state.scrollY);
        markEntry({ scrollY: undefined });
      } else if (state.typing !== true) {
        // A new page, a submitted search or a facet: its first result in view (not while typing).
        const first = document.querySelector('.hits > li') ?? resultsHeading.current;
        const rect = first?.getBoundingClientRect();
        if (rect && (rect.top < 0 || rect.bottom > window.innerHeight)) resultsHeading.current?.scrollIntoView({ block: 'start' });
      }
    });
  };

  const submit = (event: Event) => {
    event.preventDefault();
    // Enter searches now: the typing pause's search of the same text is not needed.
    clearTimeout(typingPause.current);
    markEntry({ typing: false });
    run({ ...query, text }, { typing: false });
    if (view && session && sameQuery({ ...query, text }, query)) markResults(view.response);
  };

  const toggle = (attributeId: string, value: string, on: boolean) => {
    const current = query.filters[attributeId] ?? [];
    const values = on ? [...current, value] : current.filter((v) => v.toLowerCase() !== value.toLowerCase());
    const filters = { ...query.filters, [attributeId]: values };
    if (values.length === 0) delete filters[attributeId];
    setChosen(filters);
    run({ ...query, text, filters }, { typing: false });
  };

  const clear = () => {
    setText('');
    run({ text: '', filters: {} }, { typing: false });
    document.getElementById('search-text')?.focus();
  };

  const response = view?.response ?? null;
  const total = response?.resultsTotalCount ?? 0;
  const pageCount = Math.ceil(Math.min(total, PAGEABLE_HITS) / PAGE_SIZE);
  const photo = response?.imageId !== null && response?.imageId !== undefined;
  const shownPage = view?.page ?? 1;
  const firstRank = (shownPage - 1) * PAGE_SIZE + 1;
  const noConfidentHit = photo && total > 0 && typeof response?.results[0]?.score === 'number' && response.results[0].score < CONFIDENT_IMAGE_SCORE;
  const facets = !photo ? view?.facets : undefined;
  const photoShown = photo && session ? photoOf(session) : null;

  return (
    <main id="main" class="search-page">
      <h1>Search parts</h1>
      <PhotoSearch
        language={props.language}
        onStart={() => {
          inFlight.current?.controller.abort();
          inFlight.current = null;
          setError(null);
        }}
        onError={(e) => {
          setView(null);
          setError(e);
          if (session) navigate('/search', false);
        }}
        onDone={(r) => {
          pages.set(pageKey(r.sessionId, 1), r);
          navigate(searchUrl({ text: '', filters: {} }, r.sessionId, 1));
        }}
      />
      <form class="text-search" role="search" onSubmit={submit} aria-label="Text search">
        <label for="search-text">Search text</label>
        <div class="row">
          <input
            id="search-text"
            type="search"
            value={text}
            autoComplete="off"
            enterKeyHint="search"
            onInput={(e) => {
              typedAt.current = performance.now();
              setText((e.currentTarget as HTMLInputElement).value);
            }}
            placeholder="Name, number, vendor…"
          />
          <button type="submit">Search</button>
        </div>
      </form>

      <ErrorNote error={error} />
      <div class={`results-layout${facets ? ' with-facets' : ''}`}>
        {facets && filterable.length > 0 && (
          <aside class="facets" aria-label="Filters">
            <h2 class="facets-title">Filter</h2>
            {filterable.map((a) => (
              <Facet
                key={a.attribute_id}
                attribute={a}
                label={attributeNames.get(a.attribute_id) ?? a.attribute_id}
                values={facets[a.attribute_id] ?? []}
                chosen={(chosen ?? query.filters)[a.attribute_id] ?? []}
                query={query}
                onToggle={(value, on) => toggle(a.attribute_id, value, on)}
              />
            ))}
          </aside>
        )}
        <section aria-labelledby="results-title" aria-busy={loading} class="results">
          <div class="results-bar">
            <h2 id="results-title" ref={resultsHeading} tabIndex={-1}>
              Results
            </h2>
            {response && !photo && total > 1 && (
              <label class="sort">
                Sort{' '}
                <select value={query.sort ?? ''} aria-label="Sort results" onChange={(e) => run({ ...query, sort: (e.currentTarget as HTMLSelectElement).value || undefined }, { typing: false })}>
                  {sortOptions(filterable, attributeNames).map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label}
                    </option>
                  ))}
                </select>
              </label>
            )}
          </div>
          {loading && <p class="loading" role="status">Searching…</p>}
          {!session && !loading && !error && !beyond && <p class="note">Type to search by name, part number or any searchable value, or search with a photo.</p>}
          {beyond && (
            <div class="empty" role="status">
              <p>There is no page {beyond.page}: this search has {beyond.lastPage} {beyond.lastPage === 1 ? 'page' : 'pages'}{beyond.lastPage * PAGE_SIZE >= PAGEABLE_HITS ? ` (the first ${PAGEABLE_HITS.toLocaleString('en')} hits can be paged through)` : ''}.</p>
              <Link href={searchUrl(query, session ?? undefined, beyond.lastPage)}>{`Go to the last page (${beyond.lastPage})`}</Link>
            </div>
          )}
          {photoShown && <img class="query-photo" src={photoShown} alt="The photo searched with" />}
          {response && total > 0 && (
            <p class="summary" role="status">
              {`${total.toLocaleString('en')} ${total === 1 ? 'part' : 'parts'}${photo ? ' by photo similarity' : ''}, page ${shownPage} of ${Math.max(pageCount, 1)}`}
              {total > PAGEABLE_HITS && ` (the first ${PAGEABLE_HITS.toLocaleString('en')} can be paged through: add words or filters to narrow the search)`}
            </p>
          )}
          {response && total === 0 && (
            <div class="empty">
              <h3>No parts match{query.text ? ` “${query.text}”` : ''}{Object.keys(query.filters).length ? ' with these filters' : ''}</h3>
              <p>Check the spelling, use fewer or other words, remove a filter, or search with a photo.</p>
              <button type="button" onClick={clear}>
                Clear the search
              </button>
            </div>
          )}
          {noConfidentHit && (
            <p class="no-confident-hit" role="note">
              No part matches this photo confidently (every similarity is below {CONFIDENT_IMAGE_SCORE * 100} %): the closest parts are listed below.
            </p>
          )}
          {response && response.results.length > 0 && (
            <ol class="hits" start={firstRank}>
              {response.results.map((hit, i) => (
                <Hit key={hit.id} hit={hit} rank={firstRank + i} photo={photo} keyAttributes={filterable} attributeNames={attributeNames} language={props.language} />
              ))}
            </ol>
          )}
          {view && <Pager query={query} session={view.session} page={view.page} pageCount={pageCount} />}
        </section>
      </div>
    </main>
  );
}
