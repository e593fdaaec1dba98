/** A mind's snapshots: upload (picker or drop, with progress), live status, link/unlink, delete. */
import { Fragment, useRef, useState } from 'react';
import { errorText, uploadTranscript, type Snapshot } from '../api.ts';
import { ConfirmButton, ErrorNote, Table, fmtBytes, fmtDate, fmtNum, useAction, useLoad, useSession, type Loaded } from '../ui.tsx';

interface UploadRow {
  id: number;
  name: string;
  size: number;
  sent: number;
  state: 'waiting' | 'uploading' | 'sent' | 'failed';
  error?: string;
}

export function SnapshotsTab({ mindId, mindName, snapshots, onChange }: { mindId: string; mindName: string; snapshots: Loaded<Snapshot[]>; onChange: () => void }) {
  const { client } = useSession();
  const [openId, setOpenId] = useState<string | null>(null);
  const act = useAction(async (fn: () => Promise<unknown>) => {
    await fn();
    onChange();
  });
  const list = snapshots.data ?? [];

  return (
    <>
      <Uploader mindId={mindId} mindName={mindName} onUploaded={onChange} />
      <section className="panel">
        <h2>Snapshots</h2>
        <ErrorNote error={snapshots.error ?? act.error} />
        {snapshots.data && list.length === 0 && <p className="empty">No snapshots yet: upload a transcript above.</p>}
        {list.length > 0 && (
          <Table className="snapshots" head={['Mindset date', 'Status', ['Psychometrics', 'num wide-only'], ['Topics', 'num wide-only'], ['Findings', 'num wide-only'], 'Feeds profile', '']}>
            {list.map((s) => (
              <Fragment key={s.id}>
                <tr data-snapshot={s.id} data-status={s.status}>
                  <td>
                    <button type="button" className="linkish" aria-expanded={openId === s.id} onClick={() => setOpenId(openId === s.id ? null : s.id)}>
                      {fmtDate(s.mindsetDate)}
                    </button>
                  </td>
                  <td>
                    <span className={`status ${s.status}`}>{s.status}</span>
                    {s.status === 'completed' && s.startedAt && s.completedAt && (
                      <span className="muted small"> in {((Date.parse(s.completedAt) - Date.parse(s.startedAt)) / 1000).toFixed(1)} s</span>
                    )}
                    {s.status === 'failed' && s.error && <div className="reason">{s.error}</div>}
                  </td>
                  <td className="num wide-only">{s.psychometricCount}</td>
                  <td className="num wide-only">{s.keyTopicCount}</td>
                  <td className="num wide-only">{s.findingCount}</td>
                  <td>
                    <button
                      type="button"
                      className="subtle"
                      disabled={act.pending}
                      title={s.linked ? 'Keep the snapshot but stop using it for simulations and the profile' : 'Use it for simulations and the profile again'}
                      onClick={() => void act.run(() => client.linkSnapshot(mindId, s.id, !s.linked))}
                    >
                      {s.linked ? 'Linked · unlink' : 'Unlinked · link'}
                    </button>
                  </td>
                  <td className="actions">
                    <ConfirmButton label="Delete" confirm="Delete this snapshot?" disabled={act.pending} onConfirm={() => void act.run(() => client.deleteSnapshot(mindId, s.id))} />
                  </td>
                </tr>
                {openId === s.id && (
                  <tr className="details-row">
                    <td colSpan={7}>
                      <SnapshotDetails mindId={mindId} snapshotId={s.id} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </Table>
        )}
      </section>
    </>
  );
}

function SnapshotDetails({ mindId, snapshotId }: { mindId: string; snapshotId: string }) {
  const { client } = useSession();
  const d = useLoad(() => client.getSnapshot(mindId, snapshotId), [client, mindId, snapshotId]);
  if (d.error) return <ErrorNote error={d.error} />;
  if (!d.data) return <p className="muted">Loading…</p>;
  const s = d.data;
  const how = { requested: 'as requested at upload', name: "matched by the mind's name", inferred: 'the speaker with the most words' } as const;
  return (
    <div className="snapshot-details">
      <p>
        <strong>{s.artifact.fileName}</strong> <span className="muted">({[s.artifact.kind, s.artifact.size != null ? fmtBytes(s.artifact.size) : null].filter(Boolean).join(', ')})</span> ·{' '}
        {fmtNum(s.mindWords)} words by the mind
        {s.mindSpeaker && (
          <>
            {' '}
            · speaker “{s.mindSpeaker}”
            {s.speakersLabelled === false ? (
              <span className="muted"> (the file names no speakers)</span>
            ) : (
              s.attribution && <span className="muted"> ({how[s.attribution as keyof typeof how] ?? s.attribution})</span>
            )}
          </>
        )}
      </p>
      {s.attributionNote && <p className={s.speakersLabelled === false ? 'attribution-note warn' : 'attribution-note muted'}>{s.attributionNote}</p>}
      {s.speakers.length > 0 && (
        <ul className="speakers">
          {s.speakers.map((sp) => (
            <li key={sp.label} className={sp.isMind ? 'mind' : undefined}>
              {sp.label}: {fmtNum(sp.turns)} turns, {fmtNum(sp.words)} words
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Uploader({ mindId, mindName, onUploaded }: { mindId: string; mindName: string; onUploaded: () => void }) {
  const { client, key } = useSession();
  const [date, setDate] = useState('');
  const [speaker, setSpeaker] = useState('');
  const [rows, setRows] = useState<UploadRow[]>([]);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const nextId = useRef(1);
  const queue = useRef(Promise.resolve());

  const update = (id: number, patch: Partial<UploadRow>) => setRows((rs) => rs.map((r) => (r.id === id ? { ...r, ...patch } : r)));

  function add(files: FileList | null) {
    if (!files?.length) return;
    const fields = { mindsetDate: date || undefined, speaker: speaker.trim() || undefined };
    for (const file of Array.from(files)) {
      const id = nextId.current++;
      setRows((rs) => [...rs.filter((r) => r.state !== 'sent'), { id, name: file.name, size: file.size, sent: 0, state: 'waiting' }]);
      // One upload at a time, in the order given.
      queue.current = queue.current.then(async () => {
        update(id, { state: 'uploading' });
        try {
          await uploadTranscript(client, key, mindId, file, fields, (sent) => update(id, { sent })).done;
          update(id, { state: 'sent', sent: file.size });
          onUploaded();
        } catch (err) {
          update(id, { state: 'failed', error: errorText(err) });
        }
      });
    }
  }

  return (
    <section className="panel">
      <h2>Upload a transcript</h2>
      <div className="form-grid">
        <label>
          Mindset date <span className="muted">(when it was said; default now)</span>
          <input type="date" name="mindsetDate" value={date} onChange={(e) => setDate(e.target.value)} />
        </label>
        <label>
          Speaker <span className="muted">(label in the transcript; default: matched by name)</span>
          <input name="speaker" value={speaker} onChange={(e) => setSpeaker(e.target.value)} placeholder={mindName || 'e.g. OBAMA'} />
        </label>
      </div>
      <div
        className={`dropzone ${over ? 'over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          add(e.dataTransfer.files);
        }}
      >
        <p>
          Drop WebVTT, SRT, DOCX, PDF or text transcripts here, or{' '}
          <button type="button" onClick={() => input.current?.click()}>
            choose files
          </button>
        </p>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          aria-label="Transcript files"
          accept=".vtt,.srt,.docx,.pdf,.txt,text/vtt,text/plain,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document"
          onChange={(e) => {
            add(e.target.files);
            e.target.value = '';
          }}
        />
      </div>
      {rows.length > 0 && (
        <ul className="uploads" aria-label="Uploads">
          {rows.map((r) => (
            <li key={r.id} className={r.state}>
              <span className="name">{r.name}</span>
              <progress max={r.size || 1} value={r.sent} aria-label={`Upload of ${r.name}`} />
              <span className="small">
                {r.state === 'waiting' && 'waiting'}
                {r.state === 'uploading' && `${fmtBytes(r.sent)} of ${fmtBytes(r.size)}`}
                {r.state === 'sent' && 'uploaded; processing below'}
                {r.state === 'failed' && <span className="error-text">{r.error}</span>}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
