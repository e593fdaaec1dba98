/** Chat with the mind: streamed answers with their evidence, past conversations, "as of" a snapshot. */
import { useEffect, useRef, useState } from 'react';
import { errorText, type Analysis, type AnswerWarning, type Evidence, type Message, type Snapshot } from '../api.ts';
import { ErrorNote, fmtDate, fmtDateTime, fmtOffset, Link, useLoad, useSession } from '../ui.tsx';

interface Turn {
  role: 'user' | 'assistant';
  text: string;
  status: 'streaming' | 'done' | 'failed' | 'stopped';
  evidence?: Evidence[];
  analysis?: Analysis;
  /** What to know before trusting the answer (evidence from a file that names no speakers). */
  warnings?: AnswerWarning[];
  model?: string;
  error?: string;
}

interface Conversation {
  conversationId: string | null;
  simulationId: string | null;
  /** The snapshot it answers as of ('' = all linked snapshots): fixed when it begins, and stored with it. */
  asOf: string;
  turns: Turn[];
}

const EMPTY: Conversation = { conversationId: null, simulationId: null, asOf: '', turns: [] };

function turnOf(m: Message): Turn {
  const failed = m.status === 'failed';
  return {
    role: m.role,
    text: m.content?.text ?? '',
    status: failed ? 'failed' : 'done',
    evidence: m.content?.evidence,
    analysis: m.content?.analysis,
    warnings: m.content?.warnings,
    model: m.content?.model,
    error: failed ? (m.errors?.map((e) => e.message).join('; ') ?? 'failed') : undefined,
  };
}

/** `snapshots` is undefined while the mind's snapshots load. */
export function SimulateTab({ mindId, mindName, snapshots }: { mindId: string; mindName: string; snapshots: Snapshot[] | undefined }) {
  if (!snapshots) return <p className="muted">Loading…</p>;
  // Nothing to answer from: say what to do rather than let a question fail.
  if (!snapshots.some((s) => s.status === 'completed' && s.linked)) return <NothingToAnswerFrom mindId={mindId} mindName={mindName} snapshots={snapshots} />;
  return <Chat mindId={mindId} mindName={mindName} snapshots={snapshots} />;
}

function NothingToAnswerFrom({ mindId, mindName, snapshots }: { mindId: string; mindName: string; snapshots: Snapshot[] }) {
  const name = mindName || 'this mind';
  const processing = snapshots.some((s) => s.status === 'pending' || s.status === 'processing');
  const unlinked = snapshots.some((s) => s.status === 'completed' && !s.linked);
  return (
    <section className="panel empty-state" aria-labelledby="simulate-empty">
      <h2 id="simulate-empty">{processing ? `${name}’s transcript is being processed` : `Nothing to answer from yet`}</h2>
      <p>
        {processing
          ? `Answers come from what ${name} really said: ask as soon as the transcript has been processed (its status is on the Snapshots tab).`
          : unlinked
            ? `Every processed snapshot of ${name} is unlinked. Link one on the Snapshots tab, or upload a transcript, to simulate ${name}.`
            : `Answers come from what ${name} really said. Upload a transcript of ${name} — a WebVTT, SRT, DOCX, PDF or text file — and ask once it has been processed.`}
      </p>
      <p>
        <Link to={`/minds/${mindId}`} className="button">
          {processing || unlinked ? 'Go to the snapshots' : 'Upload a transcript'}
        </Link>
      </p>
    </section>
  );
}

function Chat({ mindId, mindName, snapshots }: { mindId: string; mindName: string; snapshots: Snapshot[] }) {
  const { client } = useSession();
  const sims = useLoad(() => client.listSimulations({ mindId }).then((r) => r.simulations), [client, mindId]);
  const models = useLoad(() => client.listModels().then((r) => r.models), [client]);
  const [conv, setConv] = useState<Conversation>(EMPTY);
  const [text, setText] = useState('');
  const [snapshotId, setSnapshotId] = useState('');
  const [model, setModel] = useState('');
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  const list = useRef<HTMLDivElement>(null);
  /**
   * The turn to bring to the top of the list once it is drawn: the question just sent (so it and
   * the start of its answer are in view while the answer grows below), or the last question of a
   * reopened conversation. Never the end of the list: a long answer would push its start away.
   */
  const scrollTo = useRef<number | null>(null);
  const streaming = conv.turns.some((t) => t.status === 'streaming');
  const usable = snapshots.filter((s) => s.status === 'completed');
  const snapshotDate = new Map(snapshots.map((s) => [s.id, s.mindsetDate]));
  const snapshotName = (id: string) => (snapshotDate.has(id) ? `snapshot of ${fmtDate(snapshotDate.get(id))}` : 'deleted snapshot');
  // Files that name no speakers: their quotes may be anyone's in the file.
  const unlabelled = new Set(snapshots.filter((s) => s.speakersLabelled === false).map((s) => s.id));

  // Only the message list scrolls (the composer below it stays in view). Not scrollIntoView,
  // which would scroll the page too.
  // While the answer is too short for the question to reach the top, each new piece of it moves
  // the list on, until the question is at the top or the reader scrolls the list themselves.
  useEffect(() => {
    const el = list.current;
    const i = scrollTo.current;
    if (!el || i === null) return;
    const turn = el.querySelector<HTMLElement>(`[data-turn="${i}"]`);
    if (!turn) return;
    el.scrollTop += turn.getBoundingClientRect().top - el.getBoundingClientRect().top - 8;
    if (turn.getBoundingClientRect().top - el.getBoundingClientRect().top <= 9) scrollTo.current = null;
  }, [conv]);
  const letGo = () => {
    scrollTo.current = null;
  };
  useEffect(() => () => abort.current?.abort(), []);

  const patchLast = (patch: (t: Turn) => Partial<Turn>) => setConv((c) => ({ ...c, turns: c.turns.map((t, i) => (i === c.turns.length - 1 ? { ...t, ...patch(t) } : t)) }));

  async function send() {
    const message = text.trim();
    if (!message || streaming) return;
    setText('');
    setError(null);
    // A conversation keeps the snapshot scope it began with: only a new one sends snapshotId.
    const starting = !conv.conversationId;
    scrollTo.current = conv.turns.length;
    setConv((c) => ({ ...c, ...(starting ? { asOf: snapshotId } : {}), turns: [...c.turns, { role: 'user', text: message, status: 'done' }, { role: 'assistant', text: '', status: 'streaming' }] }));
    const ctl = new AbortController();
    abort.current = ctl;
    try {
      const stream = client.simulateStream(
        {
          mindId,
          scenario: { message },
          ...(conv.conversationId ? { conversationId: conv.conversationId } : {}),
          ...(starting && snapshotId ? { snapshotId } : {}),
          ...(model ? { selectedSimulationModel: model } : {}),
        },
        { signal: ctl.signal },
      );
      for await (const e of stream) {
        if (e.event === 'start') setConv((c) => ({ ...c, conversationId: e.data.conversationId, simulationId: e.data.simulationId }));
        else if (e.event === 'delta') patchLast((t) => ({ text: t.text + e.data.text }));
        else if (e.event === 'done') patchLast(() => ({ text: e.data.message, evidence: e.data.evidence, analysis: e.data.analysis, warnings: e.data.warnings, model: e.data.model, status: 'done' }));
        else patchLast(() => ({ status: 'failed', error: `${e.data.error} (${e.data.code})` }));
      }
    } catch (err) {
      if (ctl.signal.aborted) patchLast(() => ({ status: 'stopped' }));
      else patchLast(() => ({ status: 'failed', error: errorText(err) }));
    } finally {
      abort.current = null;
      sims.reload();
    }
  }

  async function open(id: string) {
    abort.current?.abort();
    setError(null);
    try {
      const { simulation, messages } = await client.getSimulation(id);
      const lastQuestion = messages.map((m) => m.role).lastIndexOf('user');
      scrollTo.current = lastQuestion >= 0 ? lastQuestion : null;
      setConv({ conversationId: messages[0]?.conversationId ?? simulation.id, simulationId: simulation.id, asOf: simulation.asOfSnapshotId ?? '', turns: messages.map(turnOf) });
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <div className="simulate">
      <aside className="panel conversations">
        <button
          type="button"
          onClick={() => {
            abort.current?.abort();
            setConv(EMPTY);
          }}
        >
          New conversation
        </button>
        <h2>Past simulations</h2>
        <ErrorNote error={sims.error} />
        {sims.data?.length === 0 && <p className="muted small">None yet.</p>}
        <ul aria-label="Past simulations">
          {sims.data?.map((s) => (
            <li key={s.id}>
              <button type="button" className={`linkish ${conv.simulationId === s.id ? 'current' : ''}`} onClick={() => void open(s.id)}>
                <span className="title">{s.title}</span>
                <span className="muted small">{fmtDateTime(s.createdAt)}</span>
                {s.asOfSnapshotId && <span className="muted small">as of {snapshotName(s.asOfSnapshotId)}</span>}
              </button>
            </li>
          ))}
        </ul>
      </aside>
      <section className={`panel chat${conv.turns.length === 0 ? ' empty' : ''}`} aria-label={`Conversation with ${mindName}`}>
        <div className="chat-options">
          <label title={conv.conversationId ? 'Fixed for this conversation: start a new one to change it' : 'Answer from the snapshots up to this one only'}>
            As of
            <select
              value={conv.conversationId ? conv.asOf : snapshotId}
              disabled={Boolean(conv.conversationId)}
              onChange={(e) => setSnapshotId(e.target.value)}
              name="snapshotId"
            >
              {/* A reopened conversation's snapshot may have been deleted (or be unfinished) since. */}
              {conv.conversationId && conv.asOf && !usable.some((s) => s.id === conv.asOf) && (
                <option value={conv.asOf}>
                  {snapshotName(conv.asOf)} ({conv.asOf.slice(0, 8)})
                </option>
              )}
              <option value="">all linked snapshots</option>
              {usable.map((s) => (
                <option key={s.id} value={s.id}>
                  snapshot of {fmtDate(s.mindsetDate)} ({s.id.slice(0, 8)})
                </option>
              ))}
            </select>
          </label>
          {models.data && models.data.length > 1 && (
            <label>
              Model
              <select value={model} onChange={(e) => setModel(e.target.value)}>
                <option value="">default ({models.data.find((m) => m.default)?.id ?? 'the service\u2019s'})</option>
                {models.data.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.id}
                    {m.engine === 'extractive' ? ' — their own words' : ' — LLM, in their voice'}
                    {m.default ? ' (default)' : ''}
                  </option>
                ))}
              </select>
            </label>
          )}
          {conv.conversationId && <span className="muted small">continuing conversation {conv.conversationId.slice(0, 8)}</span>}
        </div>
        <ErrorNote error={error} />
        <div
          className="messages"
          ref={list}
          aria-live="polite"
          tabIndex={0}
          aria-label="Conversation so far"
          onWheel={letGo}
          onTouchMove={letGo}
          onKeyDown={letGo}
        >
          {conv.turns.length === 0 && (
            <p className="empty">
              Ask {mindName || 'the mind'} something. Answers come from what they really said.
            </p>
          )}
          {conv.turns.map((t, i) => (t.role === 'user' ? <UserTurn key={i} index={i} text={t.text} /> : <Answer key={i} index={i} turn={t} snapshotDate={snapshotDate} unlabelled={unlabelled} />))}
        </div>
        <form
          className="composer"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <textarea
            name="message"
            aria-label="Message"
            rows={2}
            placeholder="Ask something… (Enter sends, Shift+Enter: new line)"
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                void send();
              }
            }}
          />
          {streaming ? (
            <button type="button" className="subtle" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          ) : (
            <button type="submit" disabled={!text.trim()}>
              Send
            </button>
          )}
        </form>
      </section>
    </div>
  );
}

function UserTurn({ text, index }: { text: string; index: number }) {
  return (
    <div className="turn user" data-turn={index}>
      <p>{text}</p>
    </div>
  );
}

const QUOTES_SHOWN = 3;

function Answer({ turn, index, snapshotDate, unlabelled }: { turn: Turn; index: number; snapshotDate: Map<string, string>; unlabelled: Set<string> }) {
  const [expanded, setExpanded] = useState(false);
  const [allQuotes, setAllQuotes] = useState(false);
  const evidence = turn.evidence ?? [];
  const warnings = turn.warnings ?? [];
  // A quote is someone else's words, maybe, when the answer's warning or the snapshot list says its file names no speakers.
  const warned = new Set(warnings.flatMap((w) => (w.code === 'unlabelled_speakers' ? (w.snapshotIds ?? []) : [])));
  const doubtful = (e: Evidence) => warned.has(e.snapshotId) || unlabelled.has(e.snapshotId);
  const anyDoubtful = evidence.some(doubtful);
  return (
    <div className={`turn assistant ${turn.status}`} data-status={turn.status} data-turn={index}>
      <p className={turn.status === 'streaming' ? 'answer typing' : 'answer'}>{turn.text || (turn.status === 'streaming' ? '' : '—')}</p>
      {turn.status === 'failed' && <p className="error">{turn.error}</p>}
      {turn.status === 'stopped' && <p className="muted small">Stopped.</p>}
      {warnings.map((w, i) => (
        <p key={i} className="answer-warning" role="note" data-code={w.code}>
          {w.message}
        </p>
      ))}
      {evidence.length > 0 && (
        <div className="evidence">
          <h3 className="kicker">{anyDoubtful ? 'Quotes it rests on (not all surely theirs)' : 'In their own words'}</h3>
          <ol>
            {(allQuotes ? evidence : evidence.slice(0, QUOTES_SHOWN)).map((e) => (
              <li key={e.turnId}>
                <blockquote>“{e.quote}”</blockquote>
                <span className="muted small">
                  {snapshotDate.has(e.snapshotId) ? `snapshot of ${fmtDate(snapshotDate.get(e.snapshotId))}` : 'snapshot'}
                  {e.startMs != null && `, ${fmtOffset(e.startMs)} into the recording`}
                </span>
                {doubtful(e) && <span className="badge warn">file names no speakers: maybe someone else’s words</span>}
              </li>
            ))}
          </ol>
          {evidence.length > QUOTES_SHOWN && (
            <button type="button" className="linkish small" onClick={() => setAllQuotes((x) => !x)}>
              {allQuotes ? 'Fewer quotes' : `All ${evidence.length} quotes`}
            </button>
          )}
        </div>
      )}
      {turn.analysis && (
        <dl className={`analysis ${expanded ? 'expanded' : ''}`} onClick={() => setExpanded((x) => !x)} title={expanded ? 'Click to shorten' : 'Click to read in full'}>
          {(['thinking', 'feeling', 'saying', 'acting'] as const).map((k) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{turn.analysis![k]}</dd>
            </div>
          ))}
        </dl>
      )}
      {turn.model && <p className="muted small model">{turn.model}</p>}
    </div>
  );
}
