/**
 * The catalog's web app: sign-in with a token, the search page and the part page.
 * Served by `catalog serve` at `/`; it talks only to the public API of the same server.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { allAttributes, api, checkToken, getToken, setToken, signOut } from './api';
import { PartPage } from './part';
import { FolderSyncPage } from './folder-sync';
import { Link, navigate, setTitle, useLocation } from './router';
import { SearchPage } from './search';
import './style.css';

const LANGUAGE_KEY = 'catalog.language';

function SignIn(props: { reason: string | null; onSignedIn: () => void }) {
  const [token, setTokenText] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await checkToken(token.trim());
      setToken(token.trim(), remember);
      props.onSignedIn();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Parts catalog</h1>
      <form onSubmit={submit}>
        <h2>Sign in</h2>
        <p>Paste an access token (created with <code>catalog tokens create</code>). It stays in this browser tab only, unless you ask to be remembered.</p>
        {props.reason && <p class="note">{props.reason}</p>}
        <label for="token">Access token</label>
        <input id="token" type="password" autoComplete="off" spellcheck={false} required value={token} onInput={(e) => setTokenText((e.currentTarget as HTMLInputElement).value)} />
        <label class="check">
          <input type="checkbox" checked={remember} onChange={(e) => setRemember((e.currentTarget as HTMLInputElement).checked)} /> Remember me on this device
        </label>
        <p class="hint">Only on a device no one else uses: new tabs then open signed in until you sign out.</p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy || token.trim() === ''}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

/** Whether the catalog is in maintenance mode (GET /1/catalog/maintenance; any token), checked every minute. */
function useMaintenance(signedIn: boolean): boolean {
  const [on, setOn] = useState(false);
  useEffect(() => {
    if (!signedIn) return;
    const check = () => api<{ enabled: boolean }>('GET', '/1/catalog/maintenance').then((m) => setOn(m.enabled), () => undefined);
    void check();
    const timer = setInterval(check, 60_000);
    return () => clearInterval(timer);
  }, [signedIn]);
  return on;
}

function NotFound() {
  useEffect(() => {
    setTitle('Page not found');
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, []);
  return (
    <main id="main">
      <h1 tabIndex={-1}>Page not found</h1>
      <p>There is no page at this address.</p>
      <Link href="/search">Back to search</Link>
    </main>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(() => getToken() !== null);
  const [reason, setReason] = useState<string | null>(null);
  const [language, setLanguageState] = useState(() => sessionStorage.getItem(LANGUAGE_KEY) ?? 'en');
  const [languages, setLanguages] = useState<string[]>(['en']);
  const location = useLocation();
  const maintenance = useMaintenance(signedIn);

  const setLanguage = (l: string) => {
    sessionStorage.setItem(LANGUAGE_KEY, l);
    setLanguageState(l);
  };

  useEffect(() => {
    const out = (e: Event) => {
      setSignedIn(false);
      setReason((e as CustomEvent<string | undefined>).detail ?? null);
    };
    window.addEventListener('catalog:signed-out', out);
    return () => window.removeEventListener('catalog:signed-out', out);
  }, []);

  // The languages offered: those the attribute names are written in.
  useEffect(() => {
    if (!signedIn) return;
    allAttributes().then(
      (attributes) => {
        const found = new Set(['en']);
        for (const a of attributes) for (const l of Object.keys(a.name)) found.add(l);
        setLanguages([...found].sort());
      },
      () => undefined,
    );
  }, [signedIn]);

  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);

  if (!signedIn) {
    setTitle('Sign in');
    return <SignIn reason={reason} onSignedIn={() => setSignedIn(true)} />;
  }

  const partMatch = /^\/parts\/([^/]+)$/.exec(location.path);
  const partId = partMatch?.[1] !== undefined ? decodeURIComponent(partMatch[1]) : null;
  const isSearch = location.path === '/' || location.path === '/search';
  // The language chosen on a part page may be one no attribute name is written in: offer it too.
  const offered = languages.includes(language) ? languages : [...languages, language].sort();

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/search" class="brand">
          Parts catalog
        </Link>
        <div class="top-tools">
          <label for="language">Language</label>
          <select id="language" value={language} onChange={(e) => setLanguage((e.currentTarget as HTMLSelectElement).value)}>
            {offered.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
          <button
            type="button"
            onClick={() => {
              signOut();
              navigate('/', true);
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      {maintenance && (
        <p class="maintenance" role="status">
          The catalog is in maintenance mode: searching and reading work, but no changes (uploads included) can be saved until it ends.
        </p>
      )}
      {partId !== null ? (
        <PartPage partId={partId} language={language} setLanguage={setLanguage} maintenance={maintenance} />
      ) : isSearch ? (
        <SearchPage location={location} language={language} />
      ) : location.path === '/sync' ? (
        <FolderSyncPage />
      ) : (
        <NotFound />
      )}
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
