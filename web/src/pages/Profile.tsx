/** The mind's profile (GET /minds/{id}/profile) as charts: traits, trajectories, style, emotions, topics, findings. */
import { useState } from 'react';
import type { Profile, ProfileFinding, ProfileTrait, Snapshot } from '../api.ts';
import { BarChart, LineChart, type BarRow } from '../charts.tsx';
import { ErrorNote, EveryVoiceBadge, fmtDate, fmtNum, fmtOffset, fmtPct, humanize, useLoad, useSession } from '../ui.tsx';

const f2 = (v: number) => v.toFixed(2);
const KIND_ORDER = ['belief', 'value', 'goal', 'preference', 'habit', 'experience', 'fact'];
const KIND_TITLE: Record<string, string> = { belief: 'Beliefs', value: 'Values', goal: 'Goals', preference: 'Preferences', habit: 'Habits', experience: 'Experiences', fact: 'Facts' };
const RATE_MEASURES = ['hedging', 'certainty', 'pronounI', 'pronounWe', 'pronounYou'];
const RATE_LABEL: Record<string, string> = { pronounI: '“I”', pronounWe: '“we”', pronounYou: '“you”' };

export function ProfileTab({ mindId, mindName, snapshots }: { mindId: string; mindName: string; snapshots: Snapshot[] }) {
  const { client } = useSession();
  const completed = snapshots.filter((s) => s.status === 'completed' && s.linked);
  // Files that name no speakers: everyone's words in them are part of this profile.
  const everyVoice = completed.filter((s) => s.speakersLabelled === false);
  const completedKey = completed.map((s) => s.id).join(',');
  const profile = useLoad(async () => (await client.getProfile(mindId)).profile as Profile, [client, mindId, completedKey]);

  if (profile.error) return <ErrorNote error={profile.error} />;
  const p = profile.data;
  if (!p) return <p className="muted">Loading…</p>;
  if (p.snapshotCount === 0)
    return (
      <section className="panel">
        <p className="empty">No completed, linked snapshot yet: the profile appears once a transcript has been processed.</p>
      </section>
    );

  const of = (instrument: string) => p.traits.filter((t) => t.instrument === instrument);
  const bigFive = of('big_five');
  const questionnaire = of('ipip-bfm-50');
  const emotions = of('emotion');
  const style = new Map(of('communication_style').map((t) => [t.name, t]));
  const wordsPerTurn = style.get('wordsPerTurn')?.score;

  return (
    <div className="profile">
      <p className="summary">
        As of <strong>{fmtDate(p.asOf)}</strong> · {p.snapshotCount} snapshot{p.snapshotCount === 1 ? '' : 's'} · {fmtNum(p.mindWords)} words of their own speech
        {wordsPerTurn != null && <> · {fmtNum(wordsPerTurn, 0)} words per turn</>}
      </p>
      {everyVoice.length > 0 && (
        <p className="every-voice attribution-note warn" role="note">
          <EveryVoiceBadge mindName={mindName} warning={everyVoice[0]!.speakerWarning} /> {everyVoice.length === completed.length ? 'Every' : `${everyVoice.length} of ${completed.length}`} snapshot
          {completed.length === 1 ? '' : 's'} of this profile name{everyVoice.length === 1 ? 's' : ''} no speakers ({everyVoice.map((s) => s.fileName).join(', ')}): interviewers’, moderators’ and
          other guests’ words in {everyVoice.length === 1 ? 'it' : 'them'} are measured here as {mindName || 'the mind'}’s. Upload transcripts that label their speakers, or unlink{' '}
          {everyVoice.length === 1 ? 'it' : 'them'}, to keep only their own words.
        </p>
      )}
      <div className="grid2">
        <section className="panel">
          <h2>Big Five</h2>
          <BarChart
            title="Big Five traits (score 0–1: chance of being rated above the middle person; then the rank among real speakers)"
            domain={[0, 1]}
            marker={{ at: 0.5, label: 'middle of rated people' }}
            missing="not scored"
            valueChars={25}
            rows={bigFive.map((t) => ({
              label: humanize(t.name),
              value: t.score,
              valueText: t.score === null ? undefined : `${f2(t.score)}${t.percentile !== null ? ` · ${speakerRank(t.percentile)}` : ''}`,
              opacity: t.confidence,
              detail: `confidence ${f2(t.confidence)}${t.percentile !== null ? `; above ${Math.round(t.percentile)}% of real speakers` : ''}`,
            }))}
          />
          <p className="legend">
            Two scales. The <strong>bar and its number</strong> (0–1) are the chance that people rating them would place them above the middle person of those the model learned from (vloggers and
            essay writers); 0.5 is that middle. <strong>“Nth of speakers”</strong> ranks the same reading among 41 long speeches by debate candidates and podcast guests, who talk differently: a
            debater can be above the middle vlogger and still low among debaters, so a long bar can sit beside a low rank. A paler bar rests on less evidence (its confidence).
          </p>
          {bigFive.some((t) => t.note) && (
            <details className="notes">
              <summary>How far to trust these scores</summary>
              <ul>
                {bigFive.filter((t) => t.note).map((n) => (
                  <li key={n.name}>
                    <strong>{humanize(n.name)}:</strong> {n.note}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </section>
        {questionnaire.length > 0 && (
          <section className="panel">
            <h2>Questionnaire (LLM role-play)</h2>
            <BarChart
              title="IPIP Big-Five markers answered in character by the LLM (score 0–1)"
              domain={[0, 1]}
              marker={{ at: 0.5, label: 'middle' }}
              missing="no score"
              rows={questionnaire.map((t) => ({ label: humanize(t.name), value: t.score, valueText: t.score === null ? undefined : f2(t.score), opacity: t.confidence, detail: `confidence ${f2(t.confidence)}` }))}
            />
            <p className="legend">
              The configured LLM answered the 50-item IPIP Big-Five markers as this person would, from their transcripts, scored with the published key. A language model’s answers on their behalf, not
              their own: compare with the Big Five rather than trusting either alone. Each snapshot’s psychometrics list every item and answer.
            </p>
          </section>
        )}
        <section className="panel">
          <h2>Emotions</h2>
          <BarChart
            title="Emotion words per 100 words"
            format={f2}
            rows={emotions.map((t) => ({ label: humanize(t.name), value: t.score, opacity: t.confidence, detail: `confidence ${f2(t.confidence)}` }))}
          />
          <p className="legend">Emotion words per 100 words of their speech (Plutchik’s eight; indicative word lists).</p>
        </section>
        <section className="panel">
          <h2>Communication style</h2>
          <BarChart title="Communication style, per 100 words" labelChars={16} format={f2} rows={RATE_MEASURES.filter((n) => style.has(n)).map((n) => traitRow(style.get(n)!, RATE_LABEL[n] ?? humanize(n)))} />
          <BarChart title="Communication style, scales" labelChars={16} rows={styleScales(style)} />
        </section>
        <section className="panel">
          <h2>Key topics</h2>
          {p.keyTopics.length === 0 ? (
            <p className="empty">No topic stands out yet.</p>
          ) : (
            <>
              <BarChart
                title="Key topics by share of their words"
                format={(v) => fmtPct(v)}
                rows={p.keyTopics.map((t) => ({ label: t.label, value: t.share, className: t.sentiment > 0.15 ? 'pos' : t.sentiment < -0.15 ? 'neg' : '', detail: `sentiment ${f2(t.sentiment)}; ${t.keywords.join(', ')}` }))}
              />
              <p className="legend">
                Share of their words on the topic; <span className="swatch pos" /> leaning positive, <span className="swatch neg" /> leaning negative.
              </p>
            </>
          )}
        </section>
      </div>
      <Trajectories profile={p} />
      <Findings findings={p.findings} />
    </div>
  );
}

/** A percentile among the norm speakers, as a reader says it: "14th of speakers". */
function speakerRank(percentile: number): string {
  const n = Math.round(percentile);
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix} of speakers`;
}

function traitRow(t: ProfileTrait, label = humanize(t.name), extra: Partial<BarRow> = {}): BarRow {
  return { label, value: t.score, opacity: t.confidence, detail: `confidence ${f2(t.confidence)}`, ...extra };
}

/** Measures on their own scales (README of src/lib/analysis): each row gets its range. */
function styleScales(style: Map<string, ProfileTrait>): BarRow[] {
  const rows: BarRow[] = [];
  const add = (name: string, domain: [number, number], text: (v: number) => string) => {
    const t = style.get(name);
    if (t) rows.push(traitRow(t, humanize(name), { domain, valueText: t.score === null ? undefined : text(t.score) }));
  };
  add('formality', [0, 100], (v) => `${v.toFixed(0)} / 100`);
  add('readability', [0, 100], (v) => `${v.toFixed(0)} / 100`);
  add('lexicalDiversity', [0, 1], f2);
  add('questionRate', [0, 1], (v) => fmtPct(v));
  add('sentiment', [-1, 1], (v) => (v > 0 ? `+${f2(v)}` : f2(v)));
  return rows;
}

const TRAJECTORY_GROUPS = [
  ['big_five', 'Big Five'],
  ['emotion', 'Emotions'],
  ['communication_style', 'Style'],
] as const;

function Trajectories({ profile }: { profile: Profile }) {
  const firstScored = TRAJECTORY_GROUPS.find(([g]) => profile.trajectories.some((t) => t.instrument === g && t.points.some((p) => p.score !== null)));
  const [group, setGroup] = useState<string>(firstScored?.[0] ?? 'big_five');
  const shown = profile.trajectories.filter((t) => t.instrument === group && t.name !== 'wordsPerTurn');
  const all = shown.flatMap((t) => t.points.map((p) => p.score ?? 0));
  const domain: [number, number] | undefined = group === 'big_five' ? [0, 1] : group === 'emotion' ? [0, Math.max(0.1, ...all)] : undefined;
  const snapshots = profile.trajectories[0]?.points.length ?? 0;
  // Change is between dates: snapshots of one day are one moment, however many there are.
  const dates = new Set(profile.trajectories[0]?.points.map((p) => p.mindsetDate.slice(0, 10)) ?? []).size;
  return (
    <section className="panel">
      <div className="section-head">
        <h2>Trajectories</h2>
        <div className="segmented" role="group" aria-label="Measures">
          {TRAJECTORY_GROUPS.map(([g, label]) => (
            <button key={g} type="button" aria-pressed={group === g} className={group === g ? 'on' : ''} onClick={() => setGroup(g)}>
              {label}
            </button>
          ))}
        </div>
      </div>
      <p className="legend">
        Each measure at each snapshot’s mindset date ({snapshots} snapshot{snapshots === 1 ? '' : 's'} on {dates} date{dates === 1 ? '' : 's'}); paler dots rest on less evidence.
        {dates < 2 && (snapshots > 1 ? ' All the snapshots have one date, so there is no change over time to show: give each transcript the date it was said (its mindset date).' : ' Upload transcripts from other dates to see change over time.')}
      </p>
      <div className="small-multiples">
        {shown.map((t) => (
          <figure key={t.name}>
            <figcaption>{humanize(t.name)}</figcaption>
            <LineChart title={humanize(t.name)} domain={domain} format={f2} points={t.points.map((p) => ({ date: new Date(p.mindsetDate), value: p.score, opacity: p.confidence }))} />
            {t.change && <p className={`legend${t.change.exceedsNoise ? '' : ' muted'}`}>{t.change.note}</p>}
          </figure>
        ))}
      </div>
    </section>
  );
}

const FINDINGS_SHOWN = 6;

function Findings({ findings }: { findings: ProfileFinding[] }) {
  const [open, setOpen] = useState<string[]>([]);
  const groups = new Map<string, ProfileFinding[]>();
  for (const f of findings) groups.set(f.kind, [...(groups.get(f.kind) ?? []), f]);
  const rank = (k: string) => (KIND_ORDER.includes(k) ? KIND_ORDER.indexOf(k) : KIND_ORDER.length);
  const kinds = [...groups.keys()].sort((a, b) => rank(a) - rank(b));
  return (
    <section className="panel">
      <h2>Findings</h2>
      {findings.length === 0 && <p className="empty">No first-person statements were found yet.</p>}
      <div className="findings">
        {kinds.map((k) => (
          <div key={k} className="finding-group">
            <h3>
              {KIND_TITLE[k] ?? humanize(k)} <span className="count">{groups.get(k)!.length}</span>
            </h3>
            <ul>
              {groups
                .get(k)!
                .slice(0, open.includes(k) ? undefined : FINDINGS_SHOWN)
                .map((f, i) => (
                <li key={i} className={`finding ${f.polarity}`}>
                  <p>{f.statement}</p>
                  <blockquote>“{f.quote}”</blockquote>
                  <p className="meta">
                    said {fmtDate(f.mindsetDate)}
                    {f.startMs != null && `, ${fmtOffset(f.startMs)} into the recording`} · confidence {f2(f.confidence)}
                  </p>
                </li>
              ))}
            </ul>
            {groups.get(k)!.length > FINDINGS_SHOWN && !open.includes(k) && (
              <button type="button" className="linkish small" onClick={() => setOpen((o) => [...o, k])}>
                All {groups.get(k)!.length} {(KIND_TITLE[k] ?? humanize(k)).toLowerCase()}
              </button>
            )}
          </div>
        ))}
      </div>
    </section>
  );
}
