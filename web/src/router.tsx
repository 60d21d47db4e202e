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

// The app restores scroll positions itself: its pages render after their data arrives.
if ('scrollRestoration' in history) history.scrollRestoration = 'manual';

/** What the app keeps in a history entry: where the page was scrolled, and whether typing made it. */
export interface EntryState {
  scrollY?: number;
  typing?: boolean;
}

/** The current history entry's state. */
export function entryState(): EntryState {
  return (history.state as EntryState | null) ?? {};
}

/** Marks the current history entry (merged into its state). */
export function markEntry(change: EntryState): void {
  history.replaceState({ ...entryState(), ...change }, '');
}

/**
 * Goes to `url` inside the app (no reload). The entry left keeps its scroll position, so Back
 * returns to the same place; `replace` rewrites the current entry instead of adding one.
 */
export function navigate(url: string, replace = false, state: EntryState = {}): void {
  if (replace) history.replaceState({ ...entryState(), ...state, scrollY: undefined }, '', url);
  else {
    markEntry({ scrollY: window.scrollY });
    history.pushState(state, '', url);
  }
  window.dispatchEvent(new Event('catalog:navigate'));
}

/** Sets the tab title: the page's own, then the app's name. */
export function setTitle(title: string | null): void {
  document.title = title ? `${title} – Parts catalog` : 'Parts catalog';
}

/** The current location, updated on navigation and on back/forward. */
export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    window.addEventListener('popstate', update);
    window.addEventListener('catalog:navigate', update);
    // A page's own effects run before this one (children first) and may already have navigated.
    setLocation((seen) => (seen.path === window.location.pathname && seen.query.toString() === window.location.search.replace(/^\?/, '') ? seen : current()));
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
