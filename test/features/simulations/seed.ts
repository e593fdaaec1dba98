/**
 * Seeds memory banks straight into the database (artifact → completed snapshot → turns → real
 * analysis rows), so simulation tests do not depend on the upload pipeline.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { analyseTurns, type AnalysisResult } from '../../../src/lib/analysis/index.ts';
import type { Db } from '../../../src/platform/db/client.ts';
import { artifacts, findings, keyTopics, psychometrics, snapshots, turns } from '../../../src/platform/db/schema.ts';
import { replyWordCounts } from '../../../src/features/snapshots/digest.ts';
import { FIXTURES_URL, SHARED_DATA_URL } from '../../support/shared-data.ts';

/** The debate excerpts of test/fixtures; the whole debates are in SHARED_TRANSCRIPTS (benchmarks). */
export const TRANSCRIPTS = new URL('transcripts/', FIXTURES_URL);
export const SHARED_TRANSCRIPTS = new URL('transcripts/', SHARED_DATA_URL);

export interface SeedTurn {
  speaker: string;
  text: string;
  startMs?: number | null;
  /** A later part of a long turn that ingest cut in parts (src/lib/ingest/split.ts). */
  continues?: true;
}

export interface SeedSnapshot {
  organizationId: string;
  mindId: string;
  /** Speaker name of the mind in `turns`. */
  mind: string;
  turns: SeedTurn[];
  mindsetDate: Date;
  status?: string;
  linked?: boolean;
  /** Run the real analysis and store psychometrics, topics and findings (default true). */
  analyse?: boolean;
  /** An analysis already computed for these turns with turn ids `t0`, `t1`, … (benchmarks reuse one per transcript). */
  precomputed?: AnalysisResult;
}

/** Replaces the `t<index>` turn ids of a precomputed analysis with the inserted turns' ids. */
function remap(a: AnalysisResult, ids: string[]): AnalysisResult {
  const id = (t: string) => ids[Number(t.slice(1))] ?? t;
  const ev = (list: { turnId: string; quote: string; startMs: number | null }[]) => list.map((e) => ({ ...e, turnId: id(e.turnId) }));
  return {
    mindWords: a.mindWords,
    psychometrics: a.psychometrics.map((p) => ({ ...p, evidence: ev(p.evidence) })),
    keyTopics: a.keyTopics.map((k) => ({ ...k, evidence: ev(k.evidence) })),
    findings: a.findings.map((f) => ({ ...f, turnId: id(f.turnId) })),
  };
}

/** The snapshot's speakers, as the pipeline records them. */
function speakersOf(turns: SeedTurn[], mind: string): { label: string; turns: number; words: number; isMind: boolean }[] {
  const by = new Map<string, { label: string; turns: number; words: number; isMind: boolean }>();
  for (const t of turns) {
    const sp = by.get(t.speaker) ?? { label: t.speaker, turns: 0, words: 0, isMind: t.speaker === mind };
    sp.turns++;
    sp.words += t.text.split(/\s+/).filter(Boolean).length;
    by.set(t.speaker, sp);
  }
  return [...by.values()];
}

/** Inserts one snapshot with its turns (context = the previous other speaker's turn) and analysis; returns its id. */
export async function seedSnapshot(db: Db, o: SeedSnapshot): Promise<{ snapshotId: string; turnIds: string[] }> {
  const [artifact] = await db
    .insert(artifacts)
    .values({ organizationId: o.organizationId, mindId: o.mindId, storageKey: `test/${randomUUID()}`, fileName: 'seed.txt', contentType: 'text/plain', kind: 'txt', status: 'uploaded' })
    .returning({ id: artifacts.id });
  const replies = replyWordCounts(o.turns);
  const rows = o.turns.map((t, i) => ({ id: randomUUID(), seq: i, speaker: t.speaker, text: t.text, startMs: t.startMs ?? null, isMind: t.speaker === o.mind, replyWords: replies[i]! }));
  const analysis = o.precomputed
    ? remap(o.precomputed, rows.map((r) => r.id))
    : o.analyse === false
      ? null
      : analyseTurns(rows.map((r, i) => ({ turnId: r.id, speaker: r.speaker, text: r.text, startMs: r.startMs, isMind: r.isMind, ...(o.turns[i]!.continues ? { continues: true as const } : {}) })));
  const [snap] = await db
    .insert(snapshots)
    .values({
      organizationId: o.organizationId,
      mindId: o.mindId,
      artifactId: artifact!.id,
      mindsetDate: o.mindsetDate,
      status: o.status ?? 'completed',
      linked: o.linked ?? true,
      mindSpeaker: o.mind,
      speakers: speakersOf(o.turns, o.mind),
      mindWords: analysis?.mindWords ?? 0,
      psychometricCount: analysis?.psychometrics.length ?? 0,
      keyTopicCount: analysis?.keyTopics.length ?? 0,
      findingCount: analysis?.findings.length ?? 0,
      completedAt: (o.status ?? 'completed') === 'completed' ? new Date() : null,
    })
    .returning({ id: snapshots.id });
  const snapshotId = snap!.id;
  let lastOther: string | null = null;
  const turnValues = rows.map((r) => {
    const context = r.isMind ? lastOther : null;
    if (!r.isMind) lastOther = r.text;
    return { ...r, organizationId: o.organizationId, mindId: o.mindId, snapshotId, context };
  });
  for (let i = 0; i < turnValues.length; i += 500) await db.insert(turns).values(turnValues.slice(i, i + 500));
  if (analysis) {
    const base = { organizationId: o.organizationId, mindId: o.mindId, snapshotId };
    if (analysis.psychometrics.length)
      await db.insert(psychometrics).values(analysis.psychometrics.map((p) => ({ ...base, instrument: p.instrument, name: p.name, score: p.score, percentile: p.percentile, confidence: p.confidence, note: p.note, evidence: p.evidence })));
    if (analysis.keyTopics.length)
      await db.insert(keyTopics).values(analysis.keyTopics.map((t, rank) => ({ ...base, rank, label: t.label, keywords: t.keywords, share: t.share, sentiment: t.sentiment, evidence: t.evidence })));
    if (analysis.findings.length)
      await db.insert(findings).values(analysis.findings.map((f) => ({ ...base, kind: f.kind, statement: f.statement, quote: f.quote, turnId: f.turnId, startMs: f.startMs, polarity: f.polarity, confidence: f.confidence })));
  }
  return { snapshotId, turnIds: rows.map((r) => r.id) };
}

/** Debates `*.said.txt`: `Full Name: text`; a line without a known name continues the last speaker. */
export function readDebate(date: string, root: URL = TRANSCRIPTS): SeedTurn[] {
  const meta = JSON.parse(readFileSync(new URL(`us-presidential-debates/${date}.json`, root), 'utf8')) as { speakers: { fullName: string }[] };
  const names = meta.speakers.map((s) => s.fullName);
  const out: SeedTurn[] = [];
  for (const line of readFileSync(new URL(`us-presidential-debates/${date}.said.txt`, root), 'utf8').split('\n')) {
    const text = line.trim();
    if (!text) continue;
    const name = names.find((n) => text.startsWith(`${n}:`));
    if (name) out.push({ speaker: name, text: text.slice(name.length + 1).trim() });
    else if (out.length > 0) out[out.length - 1]!.text += `\n${text}`;
  }
  return out;
}

/** A small hand-written interview: the interviewer asks, "Ada" answers. */
export function interview(answers: [question: string, answer: string][]): SeedTurn[] {
  return answers.flatMap(([q, a]) => [
    { speaker: 'Interviewer', text: q },
    { speaker: 'Ada', text: a },
  ]);
}
