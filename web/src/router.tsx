/**
 * A tiny history router: `/` and `/search?session=&page=` (search), `/parts/<id>` (part page).
 * The server answers index.html on those paths (src/http/web.ts), so links can be shared and reloaded.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

/** Goes to `url` inside the app (no reload). */
export function navigate(url: string, replace = false): void {
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new Event('catalog:navigate'));
}

/** The current location, updated on navigation and on back/forward. */
export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    window.addEventListener('popstate', update);
    window.addEventListener('catalog:navigate', update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('catalog:navigate', update);
    };
  }, []);
  return location;
}

export function partUrl(partId: string): string {
  return `/parts/${encodeURIComponent(partId)}`;
}

/** An ordinary link that navigates inside the app on a plain click (new tab etc. still work). */
export function Link(props: { href: string; children: ComponentChildren; class?: string; rel?: string; lang?: string; 'aria-label'?: string }) {
  const { href, children, ...rest } = props;
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
