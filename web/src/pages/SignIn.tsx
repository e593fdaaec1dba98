import { useState } from 'react';
import { errorText, makeClient, MindprintApiError } from '../api.ts';

/** Asks for an API key and checks it against the service before keeping it. */
export function SignIn({ onKey, notice }: { onKey: (key: string) => void; notice: string | null }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const k = key.trim();
    if (!k) return;
    setChecking(true);
    setError(null);
    try {
      await makeClient(k).request('GET', '/api-keys');
      onKey(k);
    } catch (err) {
      setError(err instanceof MindprintApiError && err.status === 401 ? `This key was not accepted: ${err.message}.` : `Could not check the key: ${errorText(err)}`);
    } finally {
      setChecking(false);
    }
  }

  return (
    <main className="signin">
      <form className="panel" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">
          <img src="/app/favicon.svg" alt="" width={28} height={28} /> Mindprint
        </h1>
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        <label>
          API key
          <input type="password" name="apiKey" autoComplete="off" spellCheck={false} placeholder="mp_…" value={key} onChange={(e) => setKey(e.target.value)} autoFocus required />
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={checking || !key.trim()}>
          {checking ? 'Checking…' : 'Sign in'}
        </button>
        <p className="hint">
          The key stays in this tab only (session storage) and is sent with every request. The first <code>npm start</code> prints one; more come from{' '}
          <code>mindprint keys create</code> or the API keys page.
        </p>
      </form>
    </main>
  );
}
