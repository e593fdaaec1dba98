/**
 * The organization's webhooks: register an endpoint for events (its signing secret shown once),
 * send it a test message, enable or disable it, delete it, and read its deliveries.
 */
import { useState } from 'react';
import type { ResponseOf } from '@mindprint/client';
import { ActionForm, ConfirmButton, ErrorNote, SecretOnce, Table, fmtDateTime, useAction, useLoad, useSession } from '../ui.tsx';

type Webhook = ResponseOf<'/webhooks/{webhookId}', 'get'>['webhook'];
type Created = ResponseOf<'/webhooks', 'post'>;
type Delivery = ResponseOf<'/webhooks/{webhookId}/deliveries', 'get'>['deliveries'][number];
type EventType = Webhook['events'][number];

const EVENTS: { type: EventType; what: string }[] = [
  { type: 'snapshot.completed', what: 'a transcript was processed' },
  { type: 'snapshot.failed', what: 'a transcript could not be processed' },
  { type: 'snapshot.reprocessing', what: 'a snapshot is processed again (another speaker)' },
  { type: 'snapshot.indexed', what: 'a snapshot’s semantic index is ready' },
  { type: 'simulation.completed', what: 'a simulated answer is complete' },
  { type: 'simulation.failed', what: 'a simulated answer failed' },
  { type: 'mind.deleted', what: 'a mind was deleted' },
];

const DELIVERY_CLASS: Record<Delivery['status'], string> = { succeeded: 'completed', failed: 'failed', pending: 'pending' };

function outcome(d: Delivery): string {
  const parts = [d.statusCode !== null ? `HTTP ${d.statusCode}` : null, d.durationMs !== null ? `${d.durationMs} ms` : null].filter(Boolean);
  return parts.join(', ') || '—';
}

export function WebhooksPage() {
  const { client } = useSession();
  const hooks = useLoad(() => client.request<{ webhooks: Webhook[] }>('GET', '/webhooks').then((r) => r.webhooks), [client]);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<EventType[]>(['snapshot.completed']);
  const [created, setCreated] = useState<Created | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [tested, setTested] = useState<{ id: string; delivery: Delivery } | null>(null);

  const create = useAction(async () => {
    const body = { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) };
    const res = await client.request<Created>('POST', '/webhooks', { body });
    setCreated(res);
    setUrl('');
    setDescription('');
    hooks.reload();
  });
  const test = useAction(async (w: Webhook) => {
    const res = await client.request<{ delivery: Delivery }>('POST', `/webhooks/${encodeURIComponent(w.id)}/test`);
    setTested({ id: w.id, delivery: res.delivery });
    setOpen(w.id);
  });
  const toggle = useAction(async (w: Webhook) => {
    await client.request('PATCH', `/webhooks/${encodeURIComponent(w.id)}`, { body: { status: w.status === 'active' ? 'disabled' : 'active' } });
    hooks.reload();
  });
  const remove = useAction(async (w: Webhook) => {
    await client.request('DELETE', `/webhooks/${encodeURIComponent(w.id)}`);
    if (open === w.id) setOpen(null);
    hooks.reload();
  });

  const busy = test.pending || toggle.pending || remove.pending;
  return (
    <>
      <div className="page-head">
        <h1>Webhooks</h1>
      </div>
      <ActionForm label="New webhook" action={create} submit="Add webhook" disabled={!url.trim() || events.length === 0}>
        <label>
          Endpoint URL
          <input name="webhookUrl" type="url" required value={url} maxLength={2048} onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.org/mindprint" />
        </label>
        <label>
          Description <span className="muted">(optional)</span>
          <input name="webhookDescription" value={description} maxLength={500} onChange={(e) => setDescription(e.target.value)} placeholder="CRM sync" />
        </label>
        <fieldset className="webhook-events">
          <legend>Events</legend>
          {EVENTS.map((e) => (
            <label key={e.type}>
              <input
                type="checkbox"
                checked={events.includes(e.type)}
                onChange={(ev) => setEvents((prev) => (ev.target.checked ? [...prev, e.type] : prev.filter((t) => t !== e.type)))}
              />
              <code>{e.type}</code> <span className="muted">{e.what}</span>
            </label>
          ))}
        </fieldset>
      </ActionForm>
      {created && (
        <SecretOnce key={created.secret} id="webhook-secret" label="New webhook secret" ariaLabel="Webhook signing secret" secret={created.secret} onDone={() => setCreated(null)}>
          <strong>Copy the signing secret now:</strong> it is shown only this once. Verify each message’s <code>webhook-signature</code> with it (any Standard Webhooks library does).
        </SecretOnce>
      )}
      <section className="panel">
        <ErrorNote error={hooks.error ?? test.error ?? toggle.error ?? remove.error} />
        {hooks.data && hooks.data.length === 0 && <p className="muted">No webhooks yet: add an endpoint above to be told when transcripts are processed, answers complete or minds are deleted.</p>}
        {hooks.data && hooks.data.length > 0 && (
          <Table className="webhooks" head={['Endpoint', 'Events', 'Status', 'Created', '']}>
            {hooks.data.map((w) => (
              <tr key={w.id} data-webhook={w.id}>
                <td className="primary">
                  <code className="webhook-url">{w.url}</code>
                  {w.description && <div className="muted">{w.description}</div>}
                </td>
                <td data-label="Events">{w.events.join(', ')}</td>
                <td data-label="Status">
                  <span className={`status ${w.status === 'active' ? 'completed' : 'failed'}`}>{w.status}</span>
                  {w.disabledReason && <div className="muted">{w.disabledReason}</div>}
                  {tested?.id === w.id && (
                    <div role="status" className="muted">
                      Test: {tested.delivery.status} ({outcome(tested.delivery)}){tested.delivery.error ? ` — ${tested.delivery.error}` : ''}
                    </div>
                  )}
                </td>
                <td data-label="Created">{fmtDateTime(w.createdAt)}</td>
                <td className="actions">
                  <button type="button" className="subtle" disabled={busy} onClick={() => void test.run(w)}>
                    Send test
                  </button>
                  <button type="button" className="subtle" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                    Deliveries
                  </button>
                  <button type="button" className="subtle" disabled={busy} onClick={() => void toggle.run(w)}>
                    {w.status === 'active' ? 'Disable' : 'Enable'}
                  </button>
                  <ConfirmButton label="Delete" confirm={`Delete the webhook to ${w.url}?`} disabled={busy} onConfirm={() => void remove.run(w)} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      {open && <Deliveries key={`${open}:${tested?.delivery.id ?? ''}`} webhook={hooks.data?.find((w) => w.id === open)} webhookId={open} />}
    </>
  );
}

const PAGE = 20;

function Deliveries({ webhookId, webhook }: { webhookId: string; webhook: Webhook | undefined }) {
  const { client } = useSession();
  const [offset, setOffset] = useState(0);
  const list = useLoad(
    () => client.request<{ deliveries: Delivery[]; count: number }>('GET', `/webhooks/${encodeURIComponent(webhookId)}/deliveries`, { query: { limit: PAGE, offset } }),
    [client, webhookId, offset],
  );
  return (
    <section className="panel" aria-label="Deliveries">
      <div className="page-head">
        <h2>Deliveries{webhook ? ` to ${webhook.url}` : ''}</h2>
        <button type="button" className="subtle" onClick={list.reload}>
          Refresh
        </button>
      </div>
      <ErrorNote error={list.error} />
      {list.data && list.data.count === 0 && <p className="muted">Nothing delivered yet.</p>}
      {list.data && list.data.count > 0 && (
        <>
          <Table className="deliveries" head={['Event', 'Status', 'Answer', 'Attempts', 'Error', 'When']}>
            {list.data.deliveries.map((d) => (
              <tr key={d.id} data-delivery={d.id}>
                <td className="primary">
                  <code>{d.event}</code>
                </td>
                <td data-label="Status">
                  <span className={`status ${DELIVERY_CLASS[d.status]}`}>{d.status}</span>
                  {d.nextAttemptAt && <div className="muted">next try {fmtDateTime(d.nextAttemptAt)}</div>}
                </td>
                <td data-label="Answer">{outcome(d)}</td>
                <td data-label="Attempts">{d.attempts}</td>
                <td data-label="Error">{d.error ?? '—'}</td>
                <td data-label="When">{fmtDateTime(d.lastAttemptAt ?? d.createdAt)}</td>
              </tr>
            ))}
          </Table>
          <div className="form-actions pager">
            <button type="button" className="subtle" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Newer
            </button>
            <span className="muted">
              {offset + 1}–{Math.min(offset + PAGE, list.data.count)} of {list.data.count}
            </span>
            <button type="button" className="subtle" disabled={offset + PAGE >= list.data.count} onClick={() => setOffset(offset + PAGE)}>
              Older
            </button>
          </div>
        </>
      )}
    </section>
  );
}
