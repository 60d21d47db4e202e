/**
 * The part page: names in every language, attribute values in display_order (attributes without one
 * after them), the display images (the shown ones as the gallery, the rest listed as not shown),
 * the reference images, relations grouped by type, and — for a token with a write role — an
 * upload form. Everything comes from the API with the user's token, so what a role may not see
 * (an admin-only value) is simply absent.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { allAttributes, api, ApiError, currentToken, displayImages, enc, imagesOfPart, inLanguage, partNames, type Attribute, type CurrentToken, type DisplayImages, type ImageDescription, type LangMap, type Part, type Relation } from './api';
import { OriginalDialog, Thumb } from './images';
import { Link, partUrl, setTitle } from './router';
import { ErrorNote } from './search';
import { Upload } from './upload';

interface PartData {
  part: Part;
  attributes: Map<string, Attribute>;
  images: ImageDescription[];
  display: DisplayImages;
  relations: Relation[];
  relatedNames: Map<string, LangMap>;
  token: CurrentToken;
}

/**
 * The part's attributes in page order (spec 2.1): lower display_order first; attributes without
 * one after them in creation order (`creation_order`, docs/api.md "Attributes").
 */
export function orderAttributes(part: Part, defs: Map<string, Attribute>): Part['attributes'] {
  const orderOf = (id: string) => defs.get(id)?.display_order ?? Number.POSITIVE_INFINITY;
  const createdOf = (id: string) => defs.get(id)?.creation_order ?? Number.POSITIVE_INFINITY;
  return [...part.attributes].sort((a, b) => orderOf(a.attribute_id) - orderOf(b.attribute_id) || createdOf(a.attribute_id) - createdOf(b.attribute_id) || (a.attribute_id < b.attribute_id ? -1 : 1));
}

async function load(partId: string): Promise<PartData> {
  const [part, defs, images, display, relations, token] = await Promise.all([
    api<Part>('GET', `/1/catalog/parts/${enc(partId)}`),
    allAttributes(),
    imagesOfPart(partId),
    displayImages(partId),
    api<Relation[]>('GET', `/v1/parts/${enc(partId)}/relations`),
    currentToken(),
  ]);
  const relatedNames = await partNames(relations.map((r) => r.part_id));
  return { part, attributes: new Map(defs.map((d) => [d.attribute_id, d])), images, display, relations, relatedNames, token };
}

function tokensOf(info: string): string[] {
  return info.split(/\s+/).filter((t) => t !== '');
}

/**
 * An image's info tokens in words: "searchable display weight=2" reads "used by photo search ·
 * shown · priority 2" (spec 2.2: searchable, display, weight=<n>, deprecated position=<n>).
 */
export function describeInfo(info: string): string {
  const words = tokensOf(info).map((t) => {
    if (t === 'searchable') return 'used by photo search';
    if (t === 'display') return 'shown';
    const weight = /^weight=(.+)$/.exec(t);
    if (weight) return `priority ${weight[1]}`;
    const position = /^position=(.+)$/.exec(t);
    if (position) return `order ${position[1]}`;
    return t;
  });
  return words.join(' · ');
}

function ImageCaption(props: { image: ImageDescription | undefined; id: string }) {
  return (
    <span class="caption">
      <span class="image-id">{props.id}</span> <span class="info" title={props.image?.info ?? ''}>{describeInfo(props.image?.info ?? '')}</span>
      {props.image?.position !== undefined && <span class="position"> position {props.image.position}</span>}
    </span>
  );
}

export function PartPage(props: { partId: string; language: string; setLanguage: (l: string) => void; maintenance?: boolean }) {
  const { partId, language } = props;
  const [data, setData] = useState<PartData | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [original, setOriginal] = useState<string | null>(null);
  const [fresh, setFresh] = useState<string[]>([]);

  const reload = useCallback(async () => {
    try {
      setData(await load(partId));
    } catch (e) {
      setError(e);
    }
  }, [partId]);

  // The tab says which part; focus goes to its heading once it is there (a screen reader announces it).
  const heading = data ? inLanguage(data.part.name, language).text || data.part.part_id : null;
  useEffect(() => {
    setTitle(heading ?? (error ? 'Part not found' : partId));
  }, [heading, error, partId]);
  useEffect(() => {
    if (data || error) document.querySelector<HTMLElement>('main h1')?.focus({ preventScroll: true });
  }, [data !== null, error !== null, partId]);

  useEffect(() => {
    performance.mark('part:start');
    setData(null);
    setError(null);
    setFresh([]);
    void reload();
  }, [partId]);

  // Render time: from the start of the page or of the in-app navigation to the gallery's
  // thumbnails decoded; the browser test reads the measure.
  useEffect(() => {
    if (!data) return;
    const imgs = [...document.querySelectorAll<HTMLImageElement>('.gallery img')];
    const pending = data.display.shown.length;
    const check = () => {
      const ready = document.querySelectorAll('.gallery img').length >= pending;
      if (!ready) return false;
      Promise.all(imgs.map((i) => i.decode().catch(() => undefined))).then(() => {
        performance.measure('part:render', 'part:start');
        document.querySelector('main')?.setAttribute('data-ready', 'true');
      }, () => undefined);
      return true;
    };
    if (check()) return;
    const observer = new MutationObserver(() => check() && observer.disconnect());
    observer.observe(document.body, { subtree: true, childList: true });
    return () => observer.disconnect();
  }, [data]);

  if (error) {
    const missing = error instanceof ApiError && error.status === 404;
    return (
      <main id="main">
        <h1 tabIndex={-1}>{missing ? 'Part not found' : `Part ${partId}`}</h1>
        {missing ? <p>There is no part “{partId}” you may see.</p> : <ErrorNote error={error} />}
        <p>
          <Link href="/search">Back to search</Link>
        </p>
      </main>
    );
  }
  if (!data) {
    return (
      <main id="main" aria-busy="true">
        <h1>Part {partId}</h1>
        <p>Loading…</p>
      </main>
    );
  }

  const { part, attributes, images, display, relations, relatedNames } = data;
  const byId = new Map(images.map((i) => [i.image_id, i]));
  const title = inLanguage(part.name, language);
  const shown = new Set(display.shown);
  const notShown = display.ordered.filter((id) => !shown.has(id));
  const references = images.filter((i) => tokensOf(i.info).includes('searchable'));
  const groups = new Map<string, Relation[]>();
  for (const r of relations) groups.set(r.type, [...(groups.get(r.type) ?? []), r]);
  const languages = Object.keys(part.name).sort();

  return (
    <main id="main" class="part-page">
      <p class="crumbs">
        <Link href="/search">Search</Link> / <span>{part.part_id}</span>
      </p>
      <h1 lang={title.lang} tabIndex={-1}>
        {title.text || part.part_id}
      </h1>

      <div class="part-layout">
        <div class="part-facts">
          <section aria-labelledby="names-title">
            <h2 id="names-title">Names</h2>
            <table class="names">
              <thead>
                <tr>
                  <th scope="col">Language</th>
                  <th scope="col">Name</th>
                  <th scope="col">
                    <span class="visually-hidden">Switch language</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {languages.map((l) => (
                  <tr key={l} class={l === title.lang ? 'current' : ''}>
                    <td>{l}</td>
                    <td lang={l}>{part.name[l]}</td>
                    <td>
                      <button type="button" aria-pressed={l === language} onClick={() => props.setLanguage(l)}>
                        Show in {l}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>

          <section aria-labelledby="attributes-title">
            <h2 id="attributes-title">Attributes</h2>
            {part.attributes.length === 0 ? (
              <p>No attribute values you may see.</p>
            ) : (
              <table class="attributes">
                <thead>
                  <tr>
                    <th scope="col">Attribute</th>
                    <th scope="col">Value</th>
                    <th scope="col">Organization</th>
                  </tr>
                </thead>
                <tbody>
                  {orderAttributes(part, attributes).flatMap((a) =>
                    a.values.map((v, i) => {
                      const def = attributes.get(a.attribute_id);
                      const value = inLanguage(v.value, language);
                      return (
                        <tr key={`${a.attribute_id}:${v.organization}:${i}`} data-attribute-id={a.attribute_id}>
                          <th scope="row">{i === 0 ? inLanguage(def?.name, language).text || a.attribute_id : ''}</th>
                          <td lang={value.lang}>{value.text}</td>
                          <td>{v.organization ? `${v.organization}${v.source ? ` (${v.source})` : ''}` : ''}</td>
                        </tr>
                      );
                    }),
                  )}
                </tbody>
              </table>
            )}
          </section>

          <section aria-labelledby="relations-title">
            <h2 id="relations-title">Relations</h2>
            {relations.length === 0 && <p>No relations.</p>}
            {[...groups].map(([type, list]) => (
              <div key={type} class="relation-group">
                <h3>{type.replace('_', ' ')}</h3>
                <ul>
                  {list.map((r) => {
                    const name = inLanguage(relatedNames.get(r.part_id), language);
                    return (
                      <li key={r.part_id}>
                        <Link href={partUrl(r.part_id)} lang={name.lang}>
                          {name.text || r.part_id}
                        </Link>{' '}
                        <span class="hit-id">{r.part_id}</span>
                        {type === 'substitute' && <span class="role"> ({r.part_role === 'related_part' ? 'successor' : 'predecessor'})</span>}
                      </li>
                    );
                  })}
                </ul>
              </div>
            ))}
          </section>
        </div>
        <div class="part-images">
          <section aria-labelledby="gallery-title">
            <h2 id="gallery-title">Images</h2>
            {display.shown.length === 0 && <p>No display images.</p>}
            <ol class="gallery" aria-label={`Shown display images (at most ${display.max_display_images})`}>
              {display.shown.map((id, i) => (
                <li key={id} data-image-id={id} class={fresh.includes(id) ? 'fresh' : ''}>
                  <button type="button" class="image-button" onClick={() => setOriginal(id)} aria-label={`Image ${i + 1}: ${id}, open the original`}>
                    <Thumb imageId={id} size={256} alt="" />
                  </button>
                  <ImageCaption image={byId.get(id)} id={id} />
                  {fresh.includes(id) && <span class="badge">new</span>}
                </li>
              ))}
            </ol>
            {notShown.length > 0 && (
              <>
                <h3>Not shown (beyond the {display.max_display_images} display images)</h3>
                <ul class="not-shown">
                  {notShown.map((id) => (
                    <li key={id} data-image-id={id} class={fresh.includes(id) ? 'fresh' : ''}>
                      <button type="button" class="link-button" onClick={() => setOriginal(id)}>
                        {id}
                      </button>{' '}
                      <span class="info">{describeInfo(byId.get(id)?.info ?? '')}</span>
                      {fresh.includes(id) && <span class="badge">new</span>}
                    </li>
                  ))}
                </ul>
              </>
            )}
            <h3>Reference images (used by photo search)</h3>
            {references.length === 0 ? (
              <p>None.</p>
            ) : (
              <ul class="references">
                {references.map((image) => (
                  <li key={image.image_id} data-image-id={image.image_id}>
                    <button type="button" class="image-button" onClick={() => setOriginal(image.image_id)} aria-label={`Reference image ${image.image_id}, open the original`}>
                      <Thumb imageId={image.image_id} size={128} alt="" />
                    </button>
                    <ImageCaption image={image} id={image.image_id} />
                  </li>
                ))}
              </ul>
            )}
          </section>
        </div>
      </div>

      {data.token.permissions.writeCatalog && (
      <Upload
        maintenance={props.maintenance === true}
        partId={part.part_id}
        canSetPosition={data.token.permissions.setImagePosition}
        onUploaded={async (ids) => {
          await reload();
          setFresh(ids);
        }}
      />
      )}
      <OriginalDialog imageId={original} onClose={() => setOriginal(null)} />
    </main>
  );
}
