/** Small shared pieces: routing under /app/, the client context, data loading, formatting. */
import { createContext, useCallback, useContext, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { errorText, type MindprintClient } from './api.ts';

// ── routing: history API under /app ──────────────────────────────────────────
const APP = '/app';
const NAV_EVENT = 'mindprint:navigate';

function subscribe(cb: () => void) {
  addEventListener('popstate', cb);
  addEventListener(NAV_EVENT, cb);
  return () => {
    removeEventListener('popstate', cb);
    removeEventListener(NAV_EVENT, cb);
  };
}
const currentPath = () => location.pathname.slice(APP.length) || '/';

/** The path inside the app ("/minds/…"), re-rendering on navigation. */
export function usePath(): string {
  return useSyncExternalStore(subscribe, currentPath);
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  history[opts.replace ? 'replaceState' : 'pushState'](null, '', APP + to);
  dispatchEvent(new Event(NAV_EVENT));
  scrollTo(0, 0);
}

export function Link({ to, children, className, ...rest }: { to: string; children: ReactNode; className?: string } & Omit<React.AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  return (
    <a
      href={APP + to}
      className={className}
      {...rest}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

// ── the signed-in client ─────────────────────────────────────────────────────
export interface Session {
  client: MindprintClient;
  key: string;
  /** Forget the key (after a 401 the app shows the key form with this notice). */
  signOut(notice?: string): void;
}
export const SessionContext = createContext<Session | null>(null);
export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in app');
  return s;
}

// ── loading ──────────────────────────────────────────────────────────────────
export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload(): void;
  setData(update: (prev: T | undefined) => T | undefined): void;
}

/** Runs `load` when `deps` change (and on reload()); an answer that arrives late is dropped. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const ctl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    loadRef.current(ctl.signal).then(
      (data) => !ctl.signal.aborted && setState({ data, error: null, loading: false }),
      (err) => !ctl.signal.aborted && setState((s) => ({ data: s.data, error: errorText(err), loading: false })),
    );
    return () => ctl.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const setData = useCallback((update: (prev: T | undefined) => T | undefined) => setState((s) => ({ ...s, data: update(s.data) })), []);
  return { ...state, reload, setData };
}

export interface Action<A extends unknown[]> {
  run: (...args: A) => Promise<boolean>;
  pending: boolean;
  error: string | null;
}

/** Runs an action, keeping its pending state and error for the UI. */
export function useAction<A extends unknown[]>(fn: (...args: A) => Promise<unknown>): Action<A> {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (...args: A) => {
    setPending(true);
    setError(null);
    try {
      await fn(...args);
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    } finally {
      setPending(false);
    }
  };
  return { run, pending, error };
}

/** The element's content width, following resizes (charts draw in pixels). */
export function useWidth<E extends HTMLElement>(fallback = 600): [React.RefObject<E | null>, number] {
  const ref = useRef<E>(null);
  const [width, setWidth] = useState(fallback);
  // Measured before the first paint, so nothing is ever drawn at the fallback width.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const first = Math.floor(el.getBoundingClientRect().width);
    if (first > 0) setWidth(first);
    const ro = new ResizeObserver(([entry]) => {
      const w = Math.floor(entry!.contentRect.width);
      if (w > 0) setWidth(w);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width];
}

// ── small components ─────────────────────────────────────────────────────────
export function ErrorNote({ error }: { error: string | null | undefined }) {
  return error ? (
    <p className="error" role="alert">
      {error}
    </p>
  ) : null;
}

/**
 * A data table. On a phone each row becomes a card (style.css, `.table-wrap`): every cell on its
 * own line, labelled by its column through `data-label`, so no column (Delete, Revoke) is cut
 * off; wider windows that still cannot fit it scroll it sideways. `head`: a label, or [label,
 * className]; '' is the actions column, whose header is there for screen readers only.
 */
export function Table({ className, head, children }: { className: string; head: (string | [string, string])[]; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table className={className}>
        <thead>
          <tr>
            {head.map((h, i) => {
              const [label, cls] = typeof h === 'string' ? [h, undefined] : h;
              return (
                <th key={i} className={cls} scope="col">
                  {label || <span className="visually-hidden">Actions</span>}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A form panel that runs one action on submit, with its submit button and its error. */
export function ActionForm({ label, action, submit, disabled, children }: { label: string; action: Action<[]>; submit: string; disabled?: boolean; children: ReactNode }) {
  return (
    <form
      className="panel form-grid"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      {children}
      <div className="form-actions">
        <button type="submit" disabled={action.pending || disabled}>
          {action.pending ? 'Working…' : submit}
        </button>
      </div>
      <ErrorNote error={action.error} />
    </form>
  );
}

/** A button that asks once more, in place, before doing something that cannot be undone. */
export function ConfirmButton({ label, confirm, onConfirm, disabled }: { label: string; confirm: string; onConfirm: () => void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" className="danger subtle" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label={confirm}>
      <span>{confirm}</span>
      <button
        type="button"
        className="danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" className="subtle" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** The badge of a file that names no speakers (snapshot rows, uploads, the profile): its every voice is in the mind. */
export function EveryVoiceBadge({ mindName, warning }: { mindName: string; warning?: string | null }) {
  return (
    <span className="badge warn" title={warning ?? undefined}>
      every voice in this file counts as {mindName || 'the mind'}
    </span>
  );
}

export function Tags({ names }: { names: string[] }) {
  return (
    <span className="tags">
      {names.map((n) => (
        <span className="tag" key={n}>
          {n}
        </span>
      ))}
    </span>
  );
}

// ── formatting ───────────────────────────────────────────────────────────────
export const fmtDate = (iso: string | null | undefined) => (iso ? new Date(iso).toISOString().slice(0, 10) : '—');
export const fmtDateTime = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—');
export const fmtNum = (n: number, digits = 2) => (Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: digits }));
export const fmtPct = (x: number, digits = 1) => `${(x * 100).toFixed(digits)}%`;
export const fmtBytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 ** 2).toFixed(1)} MB`);
/** Offset in a recording: 1:02:03 or 2:03. */
export function fmtOffset(ms: number | null | undefined): string {
  if (ms == null) return '';
  const s = Math.floor(ms / 1000);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}
/** "wordsPerTurn" → "Words per turn". */
export const humanize = (name: string) => {
  const s = name.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return s.charAt(0).toUpperCase() + s.slice(1);
};

/**
 * A secret shown once (a new API key, a webhook's signing secret): the value to copy, a Copy
 * button (or, without clipboard permission, the text selected for Ctrl+C) and Done. Give it
 * `key={secret}` so a new secret starts uncopied.
 */
export function SecretOnce({ id, label, ariaLabel, secret, onDone, children }: { id: string; label: string; ariaLabel: string; secret: string; onDone: () => void; children: ReactNode }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      // No clipboard permission (plain http on another host): select it for Ctrl+C instead.
      (document.getElementById(id) as HTMLInputElement | null)?.select();
    }
  }
  return (
    <section className="panel secret" role="status" aria-label={label}>
      <p>{children}</p>
      <div className="secret-row">
        <input id={id} readOnly value={secret} aria-label={ariaLabel} onFocus={(e) => e.target.select()} />
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="subtle" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
