/**
 * The catalog's web app (issue 16): sign-in with a token, the search page and the part page.
 * Served by `catalog serve` at `/`; it talks only to the public API of the same server.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { allAttributes, checkToken, getToken, setToken, signOut } from './api';
import { PartPage } from './part';
import { Link, navigate, useLocation } from './router';
import { SearchPage } from './search';
import './style.css';

const LANGUAGE_KEY = 'catalog.language';

function SignIn(props: { reason: string | null; onSignedIn: () => void }) {
  const [token, setTokenText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await checkToken(token.trim());
      setToken(token.trim());
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
        <p>Paste an access token (created with <code>catalog tokens create</code>). It stays in this browser tab only.</p>
        {props.reason && <p class="note">{props.reason}</p>}
        <label for="token">Access token</label>
        <input id="token" type="password" autoComplete="off" spellcheck={false} required value={token} onInput={(e) => setTokenText((e.currentTarget as HTMLInputElement).value)} />
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

function App() {
  const [signedIn, setSignedIn] = useState(() => getToken() !== null);
  const [reason, setReason] = useState<string | null>(null);
  const [language, setLanguageState] = useState(() => sessionStorage.getItem(LANGUAGE_KEY) ?? 'en');
  const [languages, setLanguages] = useState<string[]>(['en']);
  const location = useLocation();

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
        const found = new Set(['en', language]);
        for (const a of attributes) for (const l of Object.keys(a.name)) found.add(l);
        setLanguages([...found].sort());
      },
      () => undefined,
    );
  }, [signedIn]);

  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);

  if (!signedIn) return <SignIn reason={reason} onSignedIn={() => setSignedIn(true)} />;

  const partMatch = /^\/parts\/([^/]+)$/.exec(location.path);
  const partId = partMatch?.[1] !== undefined ? decodeURIComponent(partMatch[1]) : null;

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
            {languages.map((l) => (
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
      {partId !== null ? <PartPage partId={partId} language={language} setLanguage={setLanguage} /> : <SearchPage location={location} language={language} />}
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
