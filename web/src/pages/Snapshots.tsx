/**
 * A mind's snapshots: upload (picker or drop, with progress), live status, which speaker of each
 * file is the mind (and a badge when a file names none, so every voice in it counts as the mind),
 * choosing another speaker, link/unlink, delete.
 */
import { Fragment, useRef, useState } from 'react';
import { errorText, uploadTranscript, type Snapshot, type SnapshotSpeakers } from '../api.ts';
import { ConfirmButton, ErrorNote, EveryVoiceBadge, Table, fmtBytes, fmtDate, fmtNum, useAction, useLoad, useSession, type Loaded } from '../ui.tsx';

interface UploadRow {
  id: number;
  name: string;
  size: number;
  sent: number;
  state: 'waiting' | 'uploading' | 'sent' | 'failed';
  error?: string;
  /** The upload answer's warning: the file names no speakers (known at once for auto-captions). */
  warning?: string | null;
}

const isOpen = (s: Pick<Snapshot, 'status'>) => s.status === 'pending' || s.status === 'processing';
/** Speakers listed in full in the picker; the others are folded under one line. */
const MAIN_SPEAKERS = 4;
const plural = (n: number, noun: string) => `${fmtNum(n)} ${noun}${n === 1 ? '' : 's'}`;

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
          <Table className="snapshots" head={['File', 'Mindset date', 'Speaker', ['Words', 'num'], 'Status', 'Feeds profile', '']}>
            {list.map((s) => (
              <Fragment key={s.id}>
                <tr data-snapshot={s.id} data-status={s.status}>
                  <td className="primary">
                    <button type="button" className="linkish file" aria-expanded={openId === s.id} onClick={() => setOpenId(openId === s.id ? null : s.id)}>
                      {s.fileName}
                    </button>
                  </td>
                  <td data-label="Mindset date">{fmtDate(s.mindsetDate)}</td>
                  <td data-label="Speaker" className="speaker">
                    {s.mindSpeaker ? <span className="label">{s.mindSpeaker}</span> : <span className="muted">—</span>}
                    {s.speakersLabelled === false && <EveryVoiceBadge mindName={mindName} warning={s.speakerWarning} />}
                  </td>
                  <td className="num" data-label="Words">
                    {s.status === 'completed' ? fmtNum(s.mindWords) : <span className="muted">—</span>}
                  </td>
                  <td data-label="Status">
                    <span className={`status ${s.status}`}>{s.status}</span>
                    {s.status === 'completed' && s.startedAt && s.completedAt && (
                      <span className="muted small"> in {((Date.parse(s.completedAt) - Date.parse(s.startedAt)) / 1000).toFixed(1)} s</span>
                    )}
                    {s.status === 'failed' && s.error && <div className="reason">{s.error}</div>}
                  </td>
                  <td data-label="Feeds profile">
                    {s.status === 'failed' ? (
                      // A failed snapshot feeds nothing, linked or not: no toggle to suggest otherwise.
                      <span className="muted small">no: it failed</span>
                    ) : (
                      <button
                        type="button"
                        className="subtle"
                        disabled={act.pending}
                        title={s.linked ? 'Keep the snapshot but stop using it for simulations and the profile' : 'Use it for simulations and the profile again'}
                        onClick={() => void act.run(() => client.linkSnapshot(mindId, s.id, !s.linked))}
                      >
                        {s.linked ? 'Linked · unlink' : 'Unlinked · link'}
                      </button>
                    )}
                  </td>
                  <td className="actions">
                    <ConfirmButton label="Delete" confirm="Delete this snapshot?" disabled={act.pending} onConfirm={() => void act.run(() => client.deleteSnapshot(mindId, s.id))} />
                  </td>
                </tr>
                {openId === s.id && (
                  <tr className="details-row">
                    <td colSpan={7}>
                      <SnapshotDetails mindId={mindId} mindName={mindName} snapshot={s} onChange={onChange} />
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

function SnapshotDetails({ mindId, mindName, snapshot, onChange }: { mindId: string; mindName: string; snapshot: Snapshot; onChange: () => void }) {
  const { client } = useSession();
  // Read again when the snapshot moves on (a re-attribution goes back through processing).
  const d = useLoad(() => client.getSnapshot(mindId, snapshot.id), [client, mindId, snapshot.id, snapshot.status, snapshot.updatedAt]);
  if (d.error) return <ErrorNote error={d.error} />;
  if (!d.data) return <p className="muted">Loading…</p>;
  const s = d.data;
  const how = { requested: 'as chosen', name: "matched by the mind's name", inferred: 'the speaker with the most words' } as const;
  return (
    <div className="snapshot-details">
      <p>
        <strong>{s.artifact.fileName}</strong> <span className="muted">({[s.artifact.kind, s.artifact.size != null ? fmtBytes(s.artifact.size) : null].filter(Boolean).join(', ')})</span>
        {s.status === 'completed' && (
          <>
            {' '}
            · {fmtNum(s.mindWords)} words by the mind · {s.psychometricCount} psychometrics, {s.keyTopicCount} topics, {s.findingCount} findings
          </>
        )}
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
      <SpeakerPicker mindId={mindId} mindName={mindName} snapshot={snapshot} onChange={onChange} />
    </div>
  );
}

/**
 * The file's speakers (GET …/speakers) with their words and a few of their lines; choosing one
 * re-attributes the snapshot (PUT …/speaker), which goes back through processing.
 */
function SpeakerPicker({ mindId, mindName, snapshot, onChange }: { mindId: string; mindName: string; snapshot: Snapshot; onChange: () => void }) {
  const { client } = useSession();
  const open = isOpen(snapshot);
  const speakers = useLoad<SnapshotSpeakers | null>(
    () => (open ? Promise.resolve(null) : client.listSnapshotSpeakers(mindId, snapshot.id)),
    [client, mindId, snapshot.id, snapshot.status, snapshot.updatedAt],
  );
  const [chosen, setChosen] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const save = useAction(async (label: string) => {
    const res = await client.setSnapshotSpeaker(mindId, snapshot.id, label);
    setDone(res.message);
    setChosen(null);
    onChange();
  });
  const name = mindName || 'the mind';

  if (open) return <p className="muted small">The file’s speakers can be chosen from once it is processed.</p>;
  // A failed snapshot's file may not be readable at all: then there is nothing to choose, which is no new error.
  if (speakers.error) return snapshot.status === 'failed' ? <p className="muted small">No speakers to choose from: {speakers.error}</p> : <ErrorNote error={speakers.error} />;
  const sp = speakers.data;
  if (!sp) return <p className="muted small">Reading the speakers…</p>;
  // The note above already says what this means; there is simply no one else to pick.
  if (sp.speakersLabelled === false) return <p className="muted small">There is no other speaker to choose: the file names none.</p>;
  const current = chosen ?? sp.mindSpeaker ?? '';
  // The likeliest choices first (most words), the minor voices folded away.
  const ranked = [...sp.speakers].sort((a, b) => (b.words ?? 0) - (a.words ?? 0));
  const main = ranked.slice(0, MAIN_SPEAKERS);
  const minor = ranked.slice(MAIN_SPEAKERS);
  const item = (x: SnapshotSpeakers['speakers'][number]) => (
    <li key={x.label} className={x.isMind ? 'mind' : undefined}>
      <label>
        <input type="radio" name={`speaker-${snapshot.id}`} value={x.label} checked={current === x.label} onChange={() => setChosen(x.label)} />
        <span className="label">{x.label}</span>
        {x.isMind && <span className="tag">the mind now</span>}
        {x.words !== null && (
          <span className="muted small">
            {' '}
            {plural(x.turns ?? 0, 'turn')}, {plural(x.words, 'word')}
          </span>
        )}
      </label>
      {x.samples.length > 0 && (
        <ul className="samples">
          {x.samples.map((line, i) => (
            <li key={i}>
              <blockquote>“{line}”</blockquote>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
  return (
    <form
      className="speaker-picker"
      aria-label={`Who is ${name} in this file?`}
      onSubmit={(e) => {
        e.preventDefault();
        if (current) void save.run(current);
      }}
    >
      <fieldset>
        <legend>Who is {name} in this file?</legend>
        <ul>{main.map(item)}</ul>
        {minor.length > 0 && (
          // Open when the mind's speaker is one of them, so the checked choice is never hidden.
          <details className="minor-speakers" open={minor.some((x) => x.label === current) || undefined}>
            <summary>
              {plural(minor.length, 'more speaker')} with fewer words ({minor.map((x) => x.label).join(', ')})
            </summary>
            <ul>{minor.map(item)}</ul>
          </details>
        )}
      </fieldset>
      <div className="form-actions">
        <button type="submit" disabled={save.pending || !current || (current === sp.mindSpeaker && snapshot.status === 'completed')}>
          {save.pending ? 'Working…' : current && current !== sp.mindSpeaker ? `Use “${current}” as ${name}` : 'Use this speaker'}
        </button>
        <span className="muted small">The snapshot is processed again: its memory and analysis are replaced.</span>
      </div>
      <ErrorNote error={save.error} />
      {done && (
        <p className="muted small" role="status">
          {done}
        </p>
      )}
    </form>
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
          const created = await uploadTranscript(client, key, mindId, file, fields, (sent) => update(id, { sent })).done;
          update(id, { state: 'sent', sent: file.size, warning: created.speakerWarning });
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
          Speaker <span className="muted">(its label in the transcript, or the start of it; default: matched by name)</span>
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
                {r.state === 'sent' && r.warning && (
                  <>
                    {' '}
                    <EveryVoiceBadge mindName={mindName} warning={r.warning} />
                  </>
                )}
                {r.state === 'failed' && <span className="error-text">{r.error}</span>}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
