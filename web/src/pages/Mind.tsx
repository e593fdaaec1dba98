/** One mind: its header, and the snapshots, profile and simulate tabs. */
import { useEffect } from 'react';
import { ErrorNote, fmtNum, Link, Tags, useLoad, useSession } from '../ui.tsx';
import { FidelityLine } from './Fidelity.tsx';
import { ProfileTab } from './Profile.tsx';
import { SimulateTab } from './Simulate.tsx';
import { SnapshotsTab } from './Snapshots.tsx';
import { ExportMind } from './Transfer.tsx';

export type MindTab = 'snapshots' | 'profile' | 'simulate';
const POLL_MS = 1000;

export function MindPage({ mindId, tab }: { mindId: string; tab: MindTab }) {
  const { client } = useSession();
  const mind = useLoad(() => client.getMind(mindId).then((r) => r.mind), [client, mindId]);
  const snaps = useLoad(() => client.listSnapshots(mindId).then((r) => r.snapshots), [client, mindId]);

  // Live status: poll the snapshots still pending or processing; when one finishes, reload the
  // list (its counts) and the mind (its totals).
  const active = (snaps.data ?? []).filter((s) => s.status === 'pending' || s.status === 'processing').map((s) => s.id);
  const activeKey = active.join(',');
  useEffect(() => {
    if (!activeKey) return;
    let stopped = false;
    const timer = setInterval(async () => {
      const statuses = await Promise.all(activeKey.split(',').map((id) => client.getSnapshotStatus(mindId, id).catch(() => null)));
      if (stopped) return;
      // Progress of those still open is merged in place; a finished one waits for the reload,
      // which brings its whole row (a status has no word count: merged, a completed row showed
      // 0 words until the list came back).
      const finished = (s: { status: string }) => s.status === 'completed' || s.status === 'failed';
      const byId = new Map(statuses.filter((s) => s !== null && !finished(s)).map((s) => [s!.id, s!]));
      snaps.setData((list) => list?.map((s) => (byId.has(s.id) ? { ...s, ...byId.get(s.id)! } : s)));
      if (statuses.some((s) => s && finished(s))) {
        snaps.reload();
        mind.reload();
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [activeKey, client, mindId]);

  if (mind.error && !mind.data)
    return (
      <section className="panel">
        <ErrorNote error={mind.error} />
        <Link to="/">Back to the minds</Link>
      </section>
    );
  const m = mind.data;
  const tabs: [MindTab, string][] = [
    ['snapshots', 'Snapshots'],
    ['profile', 'Profile'],
    ['simulate', 'Simulate'],
  ];
  return (
    <>
      <div className="mind-head">
        <div>
          <p className="crumb">
            <Link to="/">Minds</Link> /
          </p>
          <h1>{m?.name ?? '…'}</h1>
          {m && (
            <p className="muted">
              {m.email && <span>{m.email} · </span>}
              <Tags names={m.tags.map((t) => t.name)} />
            </p>
          )}
          {m && <ExportMind mindId={mindId} />}
        </div>
        {m && (
          <dl className="counts" aria-label="Counts">
            {(
              [
                ['Snapshots', m.snapshotCount],
                ['Psychometrics', m.psychometricCount],
                ['Topics', m.keyTopicCount],
                ['Findings', m.findingCount],
              ] as const
            ).map(([label, n]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{fmtNum(n)}</dd>
              </div>
            ))}
          </dl>
        )}
      </div>
      {m && <FidelityLine mindId={mindId} version={(snaps.data ?? []).map((s) => `${s.id}:${s.status}:${s.linked}`).join(',')} />}
      <nav className="tabs" aria-label="Mind">
        {tabs.map(([t, label]) => (
          <Link key={t} to={`/minds/${mindId}${t === 'snapshots' ? '' : `/${t}`}`} aria-current={tab === t ? 'page' : undefined}>
            {label}
          </Link>
        ))}
      </nav>
      {tab === 'snapshots' && (
        <SnapshotsTab
          mindId={mindId}
          mindName={m?.name ?? ''}
          snapshots={snaps}
          onChange={() => {
            snaps.reload();
            mind.reload();
          }}
        />
      )}
      {tab === 'profile' && <ProfileTab mindId={mindId} mindName={m?.name ?? ''} snapshots={snaps.data ?? []} />}
      {tab === 'simulate' && <SimulateTab mindId={mindId} mindName={m?.name ?? ''} snapshots={snaps.data} />}
    </>
  );
}
