/**
 * Real memory banks for engine tests: transcripts (the 2012 debate excerpts of test/fixtures; the
 * podcasts and whole caption tracks of ../shared/data, for the tests that skip without it) parsed by the
 * service's own parser (src/lib/ingest), each mind turn with the question before it as context (as
 * the snapshot pipeline stores them), the persona from the real analysis of those turns, and
 * the other speakers' names. A conversation helper feeds each answer's evidence back as
 * history, the way the service does.
 */
import { analyseTurns, buildProfile } from '../../../src/lib/analysis/index.ts';
import { personaFromProfile } from '../../../src/features/profile/persona.ts';
import { parseInThisThread } from '../../../src/lib/ingest/parse.ts';
import { createExtractiveEngine } from '../../../src/engines/extractive/index.ts';
import { digestTranscript } from '../../../src/features/snapshots/digest.ts';
import type { ConversationMessage, EngineInput, EngineResult, MemoryTurn, PersonaCard } from '../../../src/engines/types.ts';
import { FIXTURES_URL, SHARED_DATA_URL } from '../../support/shared-data.ts';

export const TRANSCRIPTS = new URL('transcripts/', SHARED_DATA_URL);
export const FIXTURE_TRANSCRIPTS = new URL('transcripts/', FIXTURES_URL);

export interface RealMind {
  name: string;
  memory: MemoryTurn[];
  persona: PersonaCard;
  otherSpeakers: string[];
}

/** `files` are paths under the transcripts folder with their mindset dates; `speaker` the mind's label. */
export async function loadMind(speaker: string, files: [path: string, date: string][], root: URL = TRANSCRIPTS): Promise<RealMind> {
  const memory: MemoryTurn[] = [];
  const others = new Set<string>();
  const snapshots = [];
  for (const [path, date] of files) {
    const transcript = await parseInThisThread(new URL(path, root).pathname, 'txt');
    let lastOther: string | null = null;
    const turns = transcript.turns.map((t, seq) => {
      const isMind = t.speaker === speaker;
      const turn = { turnId: `${path}#${seq}`, speaker: t.speaker, text: t.text, startMs: t.startMs ?? null, isMind, context: isMind ? lastOther : null, seq };
      if (!isMind) {
        lastOther = t.text.slice(-1000);
        others.add(t.speaker);
      }
      return turn;
    });
    const analysis = analyseTurns(turns);
    snapshots.push({ snapshotId: path, mindsetDate: new Date(date), mindWords: analysis.mindWords, psychometrics: analysis.psychometrics, keyTopics: analysis.keyTopics, findings: analysis.findings });
    for (const t of turns) {
      if (t.isMind) memory.push({ turnId: t.turnId, snapshotId: path, text: t.text, context: t.context, startMs: t.startMs, mindsetDate: new Date(date), seq: t.seq });
    }
  }
  return { name: speaker, memory, persona: personaFromProfile(speaker, buildProfile(snapshots)), otherSpeakers: [...others] };
}

export const obama2012 = () =>
  loadMind('Barack H Obama', [
    ['us-presidential-debates/2012-10-03.said.txt', '2012-10-03'],
    ['us-presidential-debates/2012-10-16.said.txt', '2012-10-16'],
    ['us-presidential-debates/2012-10-22.said.txt', '2012-10-22'],
  ], FIXTURE_TRANSCRIPTS);
/**
 * Auto-captions of the first 2012 debate (no speaker names, no punctuation), digested as the
 * snapshot pipeline digests them for a mind "Barack Obama": one voice holding everyone's words.
 */
export async function captions2012(): Promise<RealMind> {
  const path = 'us-presidential-debates/2012-10-03.vtt';
  const transcript = await parseInThisThread(new URL(path, TRANSCRIPTS).pathname, 'vtt');
  let n = 0;
  const digest = digestTranscript(transcript, { mindName: 'Barack Obama', requestedSpeaker: null }, () => `${path}#${n++}`);
  const mindsetDate = new Date('2012-10-03');
  const memory = digest.turns.filter((t) => t.isMind).map((t) => ({ turnId: t.id, snapshotId: path, text: t.text, context: t.context, startMs: t.startMs, mindsetDate, seq: t.seq, unlabelled: !digest.speakersLabelled }));
  const profile = buildProfile([{ snapshotId: path, mindsetDate, mindWords: digest.analysis.mindWords, psychometrics: digest.analysis.psychometrics, keyTopics: digest.analysis.keyTopics, findings: digest.analysis.findings }]);
  return { name: 'Barack Obama', memory, persona: personaFromProfile('Barack Obama', profile), otherSpeakers: [] };
}

export const elon = () => loadMind('Elon Musk', [['lex-fridman-podcast/400-elon-musk.txt', '2023-11-09']]);
export const moesta = () => loadMind('Bob Moesta', [['lennys-podcast/bob-moesta.transcript.md.txt', '2023-01-01']]);

const engine = createExtractiveEngine();

export function inputFor(mind: RealMind, message: string, history: ConversationMessage[] = []): EngineInput {
  return { mindName: mind.name, message, history, memory: mind.memory, persona: mind.persona, otherSpeakers: mind.otherSpeakers };
}

/** Asks `messages` in one conversation; each answer (with its evidence) becomes history for the next. */
export async function converse(mind: RealMind, messages: string[]): Promise<EngineResult[]> {
  const history: ConversationMessage[] = [];
  const results: EngineResult[] = [];
  for (const message of messages) {
    const r = await engine.generate(inputFor(mind, message, history));
    results.push(r);
    history.push({ role: 'user', text: message }, { role: 'assistant', text: r.text, evidence: r.evidence });
  }
  return results;
}
