/** The user's API keys: create (the secret is shown once), list, revoke. */
import { useState } from 'react';
import type { ApiKey, CreatedKey } from '../api.ts';
import { ActionForm, ConfirmButton, ErrorNote, SecretOnce, Table, fmtDate, fmtDateTime, useAction, useLoad, useSession } from '../ui.tsx';

export function KeysPage() {
  const { client, key: current } = useSession();
  const keys = useLoad(() => client.request<{ apiKeys: ApiKey[] }>('GET', '/api-keys').then((r) => r.apiKeys), [client]);
  const [name, setName] = useState('');
  const [days, setDays] = useState('');
  const [created, setCreated] = useState<CreatedKey | null>(null);

  const create = useAction(async () => {
    const body = { ...(name.trim() ? { name: name.trim() } : {}), ...(days ? { expiresInDays: Number(days) } : {}) };
    const res = await client.request<CreatedKey>('POST', '/api-keys', { body });
    setCreated(res);
    setName('');
    setDays('');
    keys.reload();
  });
  const revoke = useAction(async (k: ApiKey) => {
    await client.request('DELETE', `/api-keys/${encodeURIComponent(k.id)}`);
    keys.reload();
  });

  const isCurrent = (k: ApiKey) => current.startsWith(k.prefix) && !k.revokedAt;
  return (
    <>
      <div className="page-head">
        <h1>API keys</h1>
      </div>
      <ActionForm label="New API key" action={create} submit="Create key">
        <label>
          Name <span className="muted">(what it is for)</span>
          <input name="keyName" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} placeholder="ci" />
        </label>
        <label>
          Expires in days <span className="muted">(optional)</span>
          <input name="expiresInDays" type="number" min={1} max={3650} value={days} onChange={(e) => setDays(e.target.value)} />
        </label>
      </ActionForm>
      {created && (
        <SecretOnce key={created.key} id="new-secret" label="New key" ariaLabel="New key secret" secret={created.key} onDone={() => setCreated(null)}>
          <strong>Copy the new key now:</strong> it is shown only this once.
        </SecretOnce>
      )}
      <section className="panel">
        <ErrorNote error={keys.error ?? revoke.error} />
        {keys.data && (
          <Table className="keys" head={['Name', 'Key', 'Created', 'Last used', 'Expires', 'Status', '']}>
            {keys.data.map((k) => (
              <tr key={k.id} data-key={k.prefix}>
                <td className="primary">{k.name ?? <span className="muted">unnamed</span>}</td>
                <td data-label="Key">
                  <code>{k.prefix}…</code>
                  {isCurrent(k) && <span className="tag">this session</span>}
                </td>
                <td data-label="Created">{fmtDate(k.createdAt)}</td>
                <td data-label="Last used">{k.lastUsedAt ? fmtDateTime(k.lastUsedAt) : '—'}</td>
                <td data-label="Expires">{k.expiresAt ? fmtDate(k.expiresAt) : 'never'}</td>
                <td data-label="Status">
                  <span className={`status ${k.revokedAt ? 'failed' : 'completed'}`}>{k.revokedAt ? `revoked ${fmtDate(k.revokedAt)}` : 'active'}</span>
                </td>
                <td className="actions">
                  {!k.revokedAt && (
                    <ConfirmButton
                      label="Revoke"
                      confirm={isCurrent(k) ? 'Revoke the key of this session? You will be signed out.' : `Revoke ${k.name ?? k.prefix}?`}
                      disabled={revoke.pending}
                      onConfirm={() => void revoke.run(k)}
                    />
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>
    </>
  );
}
