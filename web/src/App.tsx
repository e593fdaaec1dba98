/** The shell: the key form until a key is accepted, then the navigation and the page of the path. */
import { useMemo, useState } from 'react';
import { makeClient, session } from './api.ts';
import { KeysPage } from './pages/Keys.tsx';
import { MindPage } from './pages/Mind.tsx';
import { MindsPage } from './pages/Minds.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { UsagePage } from './pages/Usage.tsx';
import { WebhooksPage } from './pages/Webhooks.tsx';
import { Link, SessionContext, usePath, type Session } from './ui.tsx';

export function App() {
  const [key, setKey] = useState<string | null>(session.key);
  const [notice, setNotice] = useState<string | null>(null);
  const value = useMemo<Session | null>(() => {
    if (!key) return null;
    const signOut = (why?: string) => {
      session.clear();
      setNotice(why ?? null);
      setKey(null);
    };
    const client = makeClient(key, () => signOut('The service no longer accepts this key (revoked or expired). Paste a key to continue.'));
    return { client, key, signOut };
  }, [key]);

  if (!value)
    return (
      <SignIn
        notice={notice}
        onKey={(k) => {
          session.save(k);
          setNotice(null);
          setKey(k);
        }}
      />
    );
  return (
    <SessionContext.Provider value={value}>
      <Shell onSignOut={() => value.signOut()} />
    </SessionContext.Provider>
  );
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const path = usePath();
  const mind = /^\/minds\/([^/]+)(?:\/(profile|simulate))?\/?$/.exec(path);
  const section = path.startsWith('/usage') ? 'usage' : path.startsWith('/keys') ? 'keys' : path.startsWith('/webhooks') ? 'webhooks' : 'minds';
  let page;
  if (mind) page = <MindPage key={mind[1]} mindId={decodeURIComponent(mind[1]!)} tab={(mind[2] as 'profile' | 'simulate' | undefined) ?? 'snapshots'} />;
  else if (path === '/' || path === '/minds') page = <MindsPage />;
  else if (section === 'usage') page = <UsagePage />;
  else if (section === 'keys') page = <KeysPage />;
  else if (section === 'webhooks') page = <WebhooksPage />;
  else
    page = (
      <section className="panel">
        <h1>Not found</h1>
        <p>
          Nothing lives at <code>/app{path}</code>. <Link to="/">Back to the minds</Link>.
        </p>
      </section>
    );
  return (
    <>
      <header className="topbar">
        <Link to="/" className="brand">
          <img src="/app/favicon.svg" alt="" width={22} height={22} /> Mindprint
        </Link>
        <nav aria-label="Main">
          <Link to="/" aria-current={section === 'minds' ? 'page' : undefined}>
            Minds
          </Link>
          <Link to="/usage" aria-current={section === 'usage' ? 'page' : undefined}>
            Usage
          </Link>
          <Link to="/keys" aria-current={section === 'keys' ? 'page' : undefined}>
            API keys
          </Link>
          <Link to="/webhooks" aria-current={section === 'webhooks' ? 'page' : undefined}>
            Webhooks
          </Link>
        </nav>
        <button type="button" className="subtle signout" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main>{page}</main>
    </>
  );
}
