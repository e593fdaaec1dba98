/** The minds: search, filter by tag, create, delete. */
import { useEffect, useState } from 'react';
import type { Mind } from '../api.ts';
import { ImportMind } from './Transfer.tsx';
import { ActionForm, ConfirmButton, ErrorNote, Table, fmtDate, Link, navigate, Tags, useAction, useLoad, useSession } from '../ui.tsx';

export function MindsPage() {
  const { client } = useSession();
  const [query, setQuery] = useState('');
  const [debounced, setDebounced] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [creating, setCreating] = useState(false);
  const [importError, setImportError] = useState<string | null>(null);

  useEffect(() => {
    const t = setTimeout(() => setDebounced(query.trim()), 250);
    return () => clearTimeout(t);
  }, [query]);

  const tags = useLoad(() => client.listTags(), [client]);
  const minds = useLoad(async () => {
    // Search answers across every mind; the tag filter (any of the chosen tags, as GET /minds
    // does) then narrows it here.
    if (debounced) {
      const { minds } = await client.searchMinds(debounced);
      const wanted = new Set(selected.map((t) => t.toLowerCase()));
      return wanted.size ? minds.filter((m) => m.tags.some((t) => wanted.has(t.name.toLowerCase()))) : minds;
    }
    return (await client.listMinds(selected.length ? { tagNames: selected.join(',') } : {})).minds;
  }, [client, debounced, selected.join(',')]);

  const remove = useAction(async (m: Mind) => {
    await client.deleteMind(m.id);
    minds.setData((list) => list?.filter((x) => x.id !== m.id));
    tags.reload();
  });

  const toggle = (name: string) => setSelected((s) => (s.includes(name) ? s.filter((x) => x !== name) : [...s, name]));

  return (
    <>
      <div className="page-head">
        <h1>Minds</h1>
        <div className="head-actions">
          <ImportMind onError={setImportError} />
          <button type="button" onClick={() => setCreating((c) => !c)} aria-expanded={creating}>
            {creating ? 'Close' : 'New mind'}
          </button>
        </div>
      </div>
      {creating && <CreateMind onCreated={(m) => navigate(`/minds/${m.id}`)} />}
      <section className="panel">
        <div className="filters">
          <input type="search" aria-label="Search minds" placeholder="Search by name, email or tag…" value={query} onChange={(e) => setQuery(e.target.value)} />
          {tags.data && tags.data.tags.length > 0 && (
            <div className="tag-filter" role="group" aria-label="Filter by tag">
              {tags.data.tags.map((t) => (
                <button type="button" key={t.id} className={`chip ${selected.includes(t.name) ? 'on' : ''}`} aria-pressed={selected.includes(t.name)} onClick={() => toggle(t.name)}>
                  {t.name} <span className="count">{t.mindCount}</span>
                </button>
              ))}
            </div>
          )}
        </div>
        <ErrorNote error={importError ?? minds.error ?? remove.error} />
        {minds.data && minds.data.length === 0 && (
          <p className="empty">{debounced || selected.length ? 'No mind matches.' : 'No minds yet. Create one, then upload a transcript of that person.'}</p>
        )}
        {minds.data && minds.data.length > 0 && (
          <Table className="minds" head={['Name', 'Tags', ['Snapshots', 'num'], ['Findings', 'num wide-only'], ['Created', 'wide-only'], '']}>
            {minds.data.map((m) => (
              <tr key={m.id}>
                <td className="primary">
                  <Link to={`/minds/${m.id}`} className="strong">
                    {m.name}
                  </Link>
                  {m.email && <div className="muted small">{m.email}</div>}
                </td>
                <td data-label="Tags">
                  <Tags names={m.tags.map((t) => t.name)} />
                </td>
                <td className="num" data-label="Snapshots">
                  {m.snapshotCount}
                </td>
                <td className="num wide-only" data-label="Findings">
                  {m.findingCount}
                </td>
                <td className="wide-only" data-label="Created">
                  {fmtDate(m.createdAt)}
                </td>
                <td className="actions">
                  <ConfirmButton label="Delete" confirm={`Delete ${m.name} and all its snapshots?`} onConfirm={() => void remove.run(m)} disabled={remove.pending} />
                </td>
              </tr>
            ))}
          </Table>
        )}
        {minds.loading && !minds.data && <p className="muted">Loading…</p>}
      </section>
    </>
  );
}

function CreateMind({ onCreated }: { onCreated: (m: Mind) => void }) {
  const { client } = useSession();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [tags, setTags] = useState('');
  const create = useAction(async () => {
    const { mind } = await client.createMind({ name: name.trim(), ...(email.trim() ? { email: email.trim() } : {}), ...(tags.trim() ? { tags: tags.trim() } : {}) });
    onCreated(mind);
  });
  return (
    <ActionForm label="New mind" action={create} submit="Create mind" disabled={!name.trim()}>
      <label>
        Name
        <input name="name" required value={name} onChange={(e) => setName(e.target.value)} placeholder="Barack Obama" autoFocus />
      </label>
      <label>
        Email <span className="muted">(optional)</span>
        <input name="email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label>
        Tags <span className="muted">(comma-separated)</span>
        <input name="tags" value={tags} onChange={(e) => setTags(e.target.value)} placeholder="politics, debates" />
      </label>
    </ActionForm>
  );
}
