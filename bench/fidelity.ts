/**
 * Fidelity benchmark for the extractive engine: does the simulated answer resemble what the
 * person really answered?
 *
 * For every person interviewed in the real transcripts (../shared/data/transcripts), a mind is
 * built the way the service builds one: the transcripts are parsed by the service's parser
 * (src/lib/ingest), stored as completed snapshots with the real analysis of their turns (so the
 * persona comes from the memory part only), in the real database (embedded PGlite). Memory is
 * the first half of a conversation plus all the person's other conversations. Each question an
 * interviewer really asked in the second half is then answered through the service's own path
 * (engineInput with the service's memory: hybrid retrieval, persona, other speakers; then the engine), and the answer is
 * compared with the person's real answer (token F1, ROUGE-L, content-word Jaccard). Baselines in
 * the same run, from the same memory: a random turn of the same person of answer length (≥ 8
 * words, as the real answers are), the person's single most generic turn, and a length-matched
 * random excerpt: for each question, consecutive whole sentences of the person's own words from a
 * random point in memory, as many words as the engine's answer to that question has (the engine
 * chooses its length from the person's usual answer length, and token F1 depends on length).
 *
 * The development split (bench/support/fidelity-split.ts) was fixed before the engine of issue 11
 * was tuned; the engine and its reranker were tuned on it only, and the evaluation split is what
 * is reported. "Before" in the same run is the engine without sentence embeddings and reranker
 * (`answer(input, { compose })`: the sentence-stitching composer of earlier versions, bench/support/composer.ts).
 *
 * Run: node --import tsx bench/fidelity.ts   (writes bench/results/fidelity.md; sections added
 * by hand after the generated ones — "## Before: …" and the like — are kept)
 *      node --import tsx bench/fidelity.ts --development   (development split only, printed: for tuning)
 *      FIDELITY_DUMP=file.json …   also writes every question's answer and scores (to compare two versions question by question)
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { analyseTurns, type AnalysisResult } from '../src/lib/analysis/index.ts';
import { answer, createExtractiveEngine } from '../src/engines/extractive/index.ts';
import { rerankEmbedder } from '../src/engines/extractive/rerank/index.ts';
import type { EngineResult } from '../src/engines/types.ts';
import { loadConversations, MIN_GUEST_TURNS, splitOf, wholeReply, type Conversation, type Split } from './support/fidelity-split.ts';
import { contentStems, words } from '../src/lib/language/text.ts';
import { isFollowUp } from '../src/lib/language/understand.ts';
import { oracleTurn, personaWin, setFidelity, specificity, tfidfSpace, tfidfTop1, type HeldOut } from '../src/lib/fidelity/measure.ts';
import { engineInput } from '../src/features/simulations/engine-input.ts';
import { embedSnapshot, loadMindScope } from '../src/features/memory/index.ts';
import { startTestServer } from '../test/support/server.ts';
import { seedSnapshot, type SeedTurn } from '../test/features/simulations/seed.ts';
import { tokenF1 } from './support/token-f1.ts';
import { composeAnswer } from './support/composer.ts';
import { lengthMatchedExcerpt, memorySentences, prng } from './support/length-matched.ts';
import { requireSharedData } from '../test/support/shared-data.ts';
import { PersonaCache } from '../src/features/profile/index.ts';

requireSharedData('bench/fidelity.ts');
const RESULTS = new URL('./results/fidelity.md', import.meta.url);
/** Questions shorter than this (words) are back-channel ("Really?"), not questions. */
const MIN_QUESTION_WORDS = 4;
/** Answers shorter than this (words) are interjections, not answers; the random baseline draws from turns as long. */
const MIN_ANSWER_WORDS = 8;
/** A person needs at least this many turns in memory to be simulated at all. */
const MIN_MEMORY_TURNS = 10;
/** Seeds of the random baselines (separate streams, so adding one does not move another). */
const RANDOM_SEED = 20240601;
const LENGTH_MATCHED_SEED = 20250101;
const LENGTH_MATCHED_BEFORE_SEED = 20250202;
/** Off-field questions put to each mind: every this-many-th question of the other fields (a fixed sample, to keep the run short). */
const OFF_FIELD_STEP = 8;
const SILENT = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
const EMBED_JOB = { id: 'bench', retryCount: 0, retryLimit: 0, isLastAttempt: true };

// ─── minds (one per held-out conversation and person) and their questions ───────────────

interface Item {
  question: string;
  answer: string;
}

/** A follow-up an interviewer really asked: a "?" turn that refers back to the exchange before it. */
interface FollowUpItem extends Item {
  /** The question of the exchange it follows up on (asked first, so the mind has the same history). */
  previous: string;
}

interface Case {
  person: string;
  split: Split;
  /** Debates, Lex Fridman or Lenny's Podcast: another person's mind of the same field answers the same questions (persona win). */
  field: string;
  conversation: Conversation;
  /** The snapshots of the mind: the person's other conversations, whole, and the first half of this one. */
  snapshots: { conversation: Conversation; turns: SeedTurn[]; whole: boolean }[];
  items: Item[];
  followUps: FollowUpItem[];
  /** The person's turns in memory (for the baselines). */
  memory: string[];
}

function buildCases(convs: Conversation[]): Case[] {
  const cases: Case[] = [];
  for (const conv of convs) {
    const half = Math.floor(conv.turns.length / 2);
    for (const person of conv.subjects) {
      const others = convs.filter((c) => c !== conv && c.subjects.includes(person));
      const snapshots = [...others.map((c) => ({ conversation: c, turns: c.turns, whole: true })), { conversation: conv, turns: conv.turns.slice(0, half), whole: false }];
      const memory = snapshots.flatMap((s) => s.turns.filter((t) => t.speaker === person).map((t) => t.text));
      if (memory.length < MIN_MEMORY_TURNS) continue; // e.g. a guest who only joins in the second half
      const items: Item[] = [];
      const followUps: FollowUpItem[] = [];
      for (let i = Math.max(1, half); i < conv.turns.length; i++) {
        const t = conv.turns[i]!;
        const q = conv.turns[i - 1]!;
        if (t.speaker !== person || t.continues || conv.subjects.includes(q.speaker)) continue; // asked by an interviewer, not an opponent
        if (!q.text.includes('?') || words(t.text).length < MIN_ANSWER_WORDS) continue;
        // A follow-up: the exchange before is an interviewer's question and this person's answer,
        // and the question has no subject of its own beyond it ("Why?", "Can you give an example?").
        const before = previousExchange(conv, person, i - 1);
        if (before && refersBack(q.text, before)) followUps.push({ question: q.text, answer: wholeReply(conv.turns, i), previous: before });
        if (words(q.text).length < MIN_QUESTION_WORDS) continue;
        items.push({ question: q.text, answer: wholeReply(conv.turns, i) });
      }
      if (items.length > 0) cases.push({ person, split: splitOf(conv.id), field: conv.id.split(' ')[0]!, conversation: conv, snapshots, items, followUps, memory });
    }
  }
  return cases;
}

/** Back-reference words of a short question: "Has that happened to you?", "Why?", "Can you give an example?". */
const BACK_REFERENCE = /\b(that|this|it|those|these|them|why|example|mean|more|such)\b/i;
const MAX_FOLLOW_UP_WORDS = 12;

/** A question that refers back to the exchange before it: nothing of its own beyond it (the engine's test), or short with a back-reference word. */
function refersBack(question: string, previous: string): boolean {
  return isFollowUp(question, [{ role: 'user', text: previous }]) || (words(question).length <= MAX_FOLLOW_UP_WORDS && BACK_REFERENCE.test(question));
}

/** The interviewer's question the person answered just before the question at `q` (null when the turns before are not such an exchange). */
function previousExchange(conv: Conversation, person: string, q: number): string | null {
  let a = q - 1;
  while (a >= 0 && conv.turns[a]!.continues) a--; // the answer's first part
  const prevQ = conv.turns[a - 1];
  if (a < 1 || conv.turns[a]!.speaker !== person || !prevQ || conv.subjects.includes(prevQ.speaker) || !prevQ.text.includes('?')) return null;
  return prevQ.text;
}

// ─── metrics ─────────────────────────────────────────────────────────────────────────────

interface Scores {
  f1: number;
  rougeL: number;
  jaccard: number;
}

/** ROUGE-L F1: longest common subsequence of tokens. */
function rougeL(pred: string[], gold: string[]): number {
  if (!pred.length || !gold.length) return 0;
  let prev = new Uint16Array(gold.length + 1);
  let cur = new Uint16Array(gold.length + 1);
  for (let i = 1; i <= pred.length; i++) {
    for (let j = 1; j <= gold.length; j++) {
      cur[j] = pred[i - 1] === gold[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  const lcs = prev[gold.length]!;
  if (lcs === 0) return 0;
  const p = lcs / pred.length;
  const r = lcs / gold.length;
  return (2 * p * r) / (p + r);
}

function contentJaccard(pred: string, gold: string): number {
  const a = new Set(contentStems(pred));
  const b = new Set(contentStems(gold));
  if (!a.size || !b.size) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

function score(pred: string, gold: string): Scores {
  const p = words(pred);
  const g = words(gold);
  return { f1: tokenF1(p, g), rougeL: rougeL(p, g), jaccard: contentJaccard(pred, gold) };
}

// ─── baselines ───────────────────────────────────────────────────────────────────────────

/** The turn most similar (cosine of content-stem counts) to all the person's other turns. */
function mostGenericTurn(memory: string[]): string {
  const vectors = memory.map((t) => {
    const v = new Map<string, number>();
    for (const s of contentStems(t)) v.set(s, (v.get(s) ?? 0) + 1);
    return v;
  });
  const total = new Map<string, number>();
  for (const v of vectors) for (const [k, n] of v) total.set(k, (total.get(k) ?? 0) + n);
  let best = 0;
  let bestSim = -1;
  vectors.forEach((v, i) => {
    let dot = 0;
    let nv = 0;
    let nr = 0;
    for (const [k, n] of v) {
      dot += n * (total.get(k)! - n);
      nv += n * n;
    }
    for (const [k, n] of total) {
      const rest = n - (v.get(k) ?? 0);
      nr += rest * rest;
    }
    const sim = nv && nr ? dot / Math.sqrt(nv * nr) : 0;
    if (sim > bestSim) {
      bestSim = sim;
      best = i;
    }
  });
  return memory[best]!;
}

// ─── running ─────────────────────────────────────────────────────────────────────────────

interface Record {
  person: string;
  split: Split;
  /** Index of the case (mind) in the run: the conversation set the specificity is taken within. */
  caseIndex: number;
  /** Texts the specificity measure compares (the engine's answer, the other minds', the baselines). */
  texts: { after: string; others: string[]; othersTop1: string[]; excerpt: string; top1: string; oracle: string };
  question: string;
  gold: string;
  after: EngineResult;
  before: EngineResult;
  s: { after: Scores; before: Scores; matched: Scores; matchedBefore: Scores; random: Scores; generic: Scores };
  /** Cosine (GloVe-SIF, glove-6b-100d-sif@1) of each answer with the real answer. */
  sim: { after: number; before: number; matched: number };
  words: { after: number; before: number; gold: number };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const median = (xs: number[]) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sourceTurns = (r: EngineResult) => new Set(r.evidence.map((e) => e.turnId)).size;

/** A question put to a mind apart from its held-out items: a follow-up (with the exchange before it) or another field's question (which it should decline). */
interface Extra {
  caseIndex: number;
  question: string;
  gold: string;
  text: string;
  abstained: boolean;
}

async function fidelity(cases: Case[], pool: Case[] = cases): Promise<{ records: Record[]; times: number[]; seedSeconds: number; followUps: Extra[]; offField: Extra[] }> {
  // MINDPRINT_LEXICAL_SEARCH=database measures the database's full-text ranking instead of the in-process one (the default here, on PGlite).
  const s = await startTestServer(process.env.MINDPRINT_LEXICAL_SEARCH ? { MINDPRINT_LEXICAL_SEARCH: process.env.MINDPRINT_LEXICAL_SEARCH } : {});
  try {
    const engine = createExtractiveEngine();
    const embed = await rerankEmbedder();
    const cos = (a: string, b: string) => {
      const x = embed(a);
      const y = embed(b);
      let d = 0;
      for (let i = 0; i < x.length; i++) d += x[i]! * y[i]!;
      return d;
    };
    // The service's own memory: the embedder, hybrid retrieval (full text + vectors, pgvector on
    // PGlite) and the persona cache, as src/features/simulations/module.ts builds it.
    const memory = s.ctx.memory;
    const services = { db: s.ctx.db, personas: new PersonaCache(), memory };
    // One analysis per whole conversation and person, reused by every mind that remembers it.
    const analyses = new Map<string, AnalysisResult>();
    const analysisOf = (c: Conversation, person: string) => {
      const key = `${c.id}/${person}`;
      let a = analyses.get(key);
      if (!a) {
        a = analyseTurns(c.turns.map((t, i) => ({ turnId: `t${i}`, speaker: t.speaker, text: t.text, startMs: t.startMs ?? null, isMind: t.speaker === person })));
        analyses.set(key, a);
      }
      return a;
    };
    const seedStart = performance.now();
    const minds: { c: Case; id: string; organizationId: string }[] = [];
    // The minds asked: the cases measured, and for persona win one mind of each other person of
    // the same field (their first case), whichever split it is in: it only answers, it is not measured.
    const others = new Map<string, Case>();
    for (const c of pool) if (!others.has(c.person)) others.set(c.person, c);
    const seeded = [...cases, ...[...others.values()].filter((c) => !cases.includes(c))];
    for (const c of seeded) {
      const mind = (await s.api('POST', '/minds', { name: c.person })).body.mind;
      for (const snap of c.snapshots) {
        const { snapshotId } = await seedSnapshot(s.ctx.db, {
          organizationId: mind.organizationId,
          mindId: mind.id,
          mind: c.person,
          turns: snap.turns,
          mindsetDate: snap.conversation.date,
          ...(snap.whole ? { precomputed: analysisOf(snap.conversation, c.person) } : {}),
        });
        // The semantic index, by the snapshot-embed job's own code.
        await embedSnapshot(memory, { snapshotId }, EMBED_JOB, SILENT);
      }
      minds.push({ c, id: mind.id, organizationId: mind.organizationId });
    }
    await s.ctx.database.execute('analyze'); // as the service leaves the database after ingesting
    const seedSeconds = (performance.now() - seedStart) / 1000;

    const records: Record[] = [];
    const rand = prng(RANDOM_SEED);
    const randMatched = prng(LENGTH_MATCHED_SEED);
    const randMatchedBefore = prng(LENGTH_MATCHED_BEFORE_SEED);
    const times: number[] = [];
    const scopes = new Map<Case, Awaited<ReturnType<typeof loadMindScope>> & object>();
    for (const { c, id, organizationId } of minds) {
      const loaded = (await loadMindScope(s.ctx.db, organizationId, id, null, memory.embedder.id))!;
      if (loaded.scope.embeddedSnapshotCount !== c.snapshots.length) throw new Error(`${c.person}: not every snapshot is embedded`);
      scopes.set(c, loaded);
    }
    const ask = async (c: Case, message: string) => engine.generate(await engineInput(services, scopes.get(c)!.scope, engine, null, 0, message));
    const followUps: Extra[] = [];
    const offField: Extra[] = [];
    for (const { c, id } of minds) {
      if (!cases.includes(c)) continue;
      const caseIndex = cases.indexOf(c);
      const scope = scopes.get(c)!.scope;
      const space = tfidfSpace(c.memory, contentStems);
      const rivals = [...others.values()].filter((o) => o.field === c.field && o.person !== c.person);
      const answerLength = c.memory.filter((t) => words(t).length >= MIN_ANSWER_WORDS);
      const generic = mostGenericTurn(answerLength);
      const sentencesOfMemory = memorySentences(c.memory);
      for (const item of c.items) {
        const t0 = performance.now();
        const input = await engineInput(services, scope, engine, null, 0, item.question);
        const after = await engine.generate(input);
        times.push(performance.now() - t0);
        const before = answer(input, { compose: composeAnswer });
        const theirs: string[] = [];
        for (const o of rivals) theirs.push((await ask(o, item.question)).text);
        const afterWords = words(after.text).length;
        const beforeWords = words(before.text).length;
        const excerpt = lengthMatchedExcerpt(sentencesOfMemory, afterWords, randMatched);
        const excerptBefore = lengthMatchedExcerpt(sentencesOfMemory, beforeWords, randMatchedBefore);
        records.push({
          person: c.person,
          split: c.split,
          caseIndex,
          texts: {
            after: after.text,
            others: theirs,
            othersTop1: rivals.map((o) => tfidfTop1(space, item.question, o.memory)),
            excerpt,
            top1: tfidfTop1(space, item.question, c.memory),
            oracle: oracleTurn(space, item.answer, c.memory),
          },
          question: item.question,
          gold: item.answer,
          after,
          before,
          s: {
            after: score(after.text, item.answer),
            before: score(before.text, item.answer),
            matched: score(excerpt, item.answer),
            matchedBefore: score(excerptBefore, item.answer),
            random: score(answerLength[Math.floor(rand() * answerLength.length)]!, item.answer),
            generic: score(generic, item.answer),
          },
          sim: { after: cos(after.text, item.answer), before: cos(before.text, item.answer), matched: cos(excerpt, item.answer) },
          words: { after: afterWords, before: beforeWords, gold: words(item.answer).length },
        });
      }
      // Follow-ups, in a real conversation of the service: the question before it, then it.
      for (const f of c.followUps) {
        const first = (await s.api('POST', '/simulate', { scenario: { message: f.previous }, mindId: id })).body;
        const next = (await s.api('POST', '/simulate', { scenario: { message: f.question }, mindId: id, conversationId: first.conversationId })).body;
        followUps.push({ caseIndex, question: f.question, gold: f.answer, text: next.message ?? '', abstained: !next.evidence?.length });
      }
      // Topics the person never discussed: questions of people of other fields (every OFF_FIELD_STEP-th one, a fixed sample).
      const foreign = pool.filter((o) => o.field !== c.field).flatMap((o) => o.items).filter((_, k) => k % OFF_FIELD_STEP === 0);
      for (const q of foreign) {
        const r = await ask(c, q.question);
        offField.push({ caseIndex, question: q.question, gold: '', text: r.text, abstained: r.evidence.length === 0 });
      }
    }
    return { records, times, seedSeconds, followUps, offField };
  } finally {
    await s.close();
  }
}

// ─── report ──────────────────────────────────────────────────────────────────────────────

const f3 = (x: number) => x.toFixed(3);
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
}

const avg = (rs: readonly Record[], f: (r: Record) => number) => mean(rs.map(f));

function line(name: string, rs: readonly Record[]): string {
  const after = avg(rs, (r) => r.s.after.f1);
  const before = avg(rs, (r) => r.s.before.f1);
  const lm = avg(rs, (r) => r.s.matched.f1);
  const lmBefore = avg(rs, (r) => r.s.matchedBefore.f1);
  const abst = (k: 'after' | 'before') => rs.filter((r) => r[k].evidence.length === 0).length;
  return `| ${name} | ${rs.length} | ${f3(after)} | ${f3(lm)} | **${ratio(after, lm)}** | ${f3(before)} | ${ratio(before, lmBefore)} | ${ratio(avg(rs, (r) => r.s.after.rougeL), avg(rs, (r) => r.s.matched.rougeL))} | ${ratio(avg(rs, (r) => r.s.after.jaccard), avg(rs, (r) => r.s.matched.jaccard))} | ${ratio(after, avg(rs, (r) => r.s.random.f1))} | ${f3(avg(rs, (r) => r.sim.after))} / ${f3(avg(rs, (r) => r.sim.before))} / ${f3(avg(rs, (r) => r.sim.matched))} | **${median(rs.map((r) => sourceTurns(r.after)))}** / ${median(rs.map((r) => sourceTurns(r.before)))} | ${abst('after')} / ${abst('before')} | ${Math.round(avg(rs, (r) => r.words.after))} / ${Math.round(avg(rs, (r) => r.words.before))} / ${Math.round(avg(rs, (r) => r.words.gold))} |`;
}

// ─── specificity (issue 22): src/lib/fidelity/measure.ts ──────────────────────────────────

type Answerer = 'after' | 'excerpt' | 'echo' | 'top1' | 'oracle';
const ANSWERERS: Answerer[] = ['after', 'excerpt', 'echo', 'top1', 'oracle'];

interface Specific {
  r: Record;
  spec: { [k in Answerer]: number | null };
  beyond: { [k in Answerer]: number | null };
  /** Persona win of the engine's answer and of the TF-IDF top-1, each against every other mind of the field (mean). */
  win: number | null;
  winTop1: number | null;
}

/** The specificity of every answer and baseline, each question against the other held-out questions of its mind. */
function specificities(rs: readonly Record[], cases: readonly Case[]): Specific[] {
  const out: Specific[] = [];
  const byCase = new Map<number, Record[]>();
  for (const r of rs) byCase.set(r.caseIndex, [...(byCase.get(r.caseIndex) ?? []), r]);
  for (const [ci, group] of byCase) {
    const space = tfidfSpace(cases[ci]!.memory, contentStems);
    const of = (k: Answerer) => setFidelity(space, group.map((r): HeldOut => ({ question: r.question, real: r.gold, simulated: k === 'echo' ? r.question : r.texts[k] })));
    const all = Object.fromEntries(ANSWERERS.map((k) => [k, of(k)])) as { [k in Answerer]: ReturnType<typeof setFidelity> };
    group.forEach((r, i) => {
      const meanWin = (mine: string, theirs: string[]) => (theirs.length ? mean(theirs.map((t) => personaWin(space, mine, t, r.gold))) : null);
      out.push({
        r,
        spec: Object.fromEntries(ANSWERERS.map((k) => [k, all[k][i]!.specificity])) as Specific['spec'],
        beyond: Object.fromEntries(ANSWERERS.map((k) => [k, all[k][i]!.beyond])) as Specific['beyond'],
        win: meanWin(r.texts.after, r.texts.others),
        winTop1: meanWin(r.texts.top1, r.texts.othersTop1),
      });
    });
  }
  return out;
}

const meanOf = (xs: (number | null)[]) => mean(xs.filter((x): x is number => x !== null));

const SPEC_HEADER = [
  '| | questions | **specificity AUC** engine | beyond the question | **persona win** | random excerpt | question echoed | TF-IDF top-1 (beyond; persona win) | oracle turn (beyond) | median source turns | abstained |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];

function specLine(name: string, xs: readonly Specific[]): string {
  const m = (k: Answerer) => f3(meanOf(xs.map((x) => x.spec[k])));
  const b = (k: Answerer) => f3(meanOf(xs.map((x) => x.beyond[k])));
  return `| ${name} | ${xs.length} | **${m('after')}** | ${b('after')} | **${f3(meanOf(xs.map((x) => x.win)))}** | ${m('excerpt')} | ${m('echo')} (${b('echo')}) | ${m('top1')} (${b('top1')}; ${f3(meanOf(xs.map((x) => x.winTop1)))}) | ${m('oracle')} (${b('oracle')}) | ${median(xs.map((x) => sourceTurns(x.r.after)))} | ${xs.filter((x) => x.r.after.evidence.length === 0).length} |`;
}

/** Follow-ups: specificity of the answer against the other real answers of the same mind; off-field questions: precision and recall of abstention. */
function extrasLines(name: string, split: Split | null, r: { records: Record[]; followUps: Extra[]; offField: Extra[] }, cases: readonly Case[]): string {
  const inSplit = (ci: number) => split === null || cases[ci]!.split === split;
  const fs = r.followUps.filter((f) => inSplit(f.caseIndex));
  const fSpec = fs.map((f) => {
    const c = cases[f.caseIndex]!;
    const others = [...c.items.map((i) => i.answer), ...c.followUps.map((x) => x.answer)].filter((a) => a !== f.gold);
    return specificity(tfidfSpace(c.memory, contentStems), f.text, f.gold, others);
  });
  const off = r.offField.filter((o) => inSplit(o.caseIndex));
  const own = r.records.filter((x) => inSplit(x.caseIndex));
  const tp = off.filter((o) => o.abstained).length;
  const fp = own.filter((x) => x.after.evidence.length === 0).length;
  return `| ${name} | ${fs.length} | ${f3(meanOf(fSpec))} | ${fs.filter((f) => f.abstained).length} | ${off.length} | ${tp + fp ? f3(tp / (tp + fp)) : 'n/a'} | ${off.length ? f3(tp / off.length) : 'n/a'} | ${fp} of ${own.length} |`;
}

const EXTRAS_HEADER = [
  '| | follow-ups | follow-up specificity AUC | follow-ups abstained | off-field questions | abstention precision | abstention recall | abstained on own questions |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
];

const HEADER = [
  '| | questions | F1 | F1 LM random | **F1 ÷ LM random** | F1 before | before ÷ its LM random | ROUGE-L ÷ LM | topical ÷ LM | F1 ÷ random turn | embedding sim. after / before / LM | **median source turns** after / before | abstained after / before | words after / before / real |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];

const clip = (text: string, n = 70) => {
  const ws = text.trim().split(/\s+/);
  return (ws.length <= n ? ws.join(' ') : `${ws.slice(0, n).join(' ')} …`).replace(/\|/g, '\\|');
};

/** Five evaluation questions, one per person (the first of each of five people, in name order). */
function examples(rs: readonly Record[]): string[] {
  const people = [...new Set(rs.filter((r) => r.split === 'evaluation').map((r) => r.person))].sort().slice(0, 5);
  return people.flatMap((p) => {
    const r = rs.find((x) => x.person === p && x.split === 'evaluation' && x.after.evidence.length > 0)!;
    return [
      `### ${p}`,
      '',
      `**Asked:** ${clip(r.question, 60)}`,
      '',
      `**Really answered:** ${clip(r.gold)}`,
      '',
      `**Before** (F1 ${f3(r.s.before.f1)}, ${sourceTurns(r.before)} turns): ${clip(r.before.text)}`,
      '',
      `**After** (F1 ${f3(r.s.after.f1)}, ${sourceTurns(r.after)} turn${sourceTurns(r.after) === 1 ? '' : 's'}): ${clip(r.after.text)}`,
      '',
    ];
  });
}

function report(r: Awaited<ReturnType<typeof fidelity>>, convs: Conversation[], cases: Case[]): string {
  const rs = r.records;
  const evaluation = rs.filter((x) => x.split === 'evaluation');
  const development = rs.filter((x) => x.split === 'development');
  const people = [...new Set(rs.map((x) => x.person))].sort();
  const spec = specificities(rs, cases);
  return [
    '# Fidelity of the extractive engine',
    '',
    'Generated by `node --import tsx bench/fidelity.ts` over the real conversations in `../shared/data/transcripts`',
    `(${convs.length} conversations: 6 debates, 6 Lex Fridman interviews, 3 Lenny's Podcast interviews), ${cases.length} minds, ${rs.length} held-out questions:`,
    `${evaluation.length} of the evaluation split, ${development.length} of the development split (bench/support/fidelity-split.ts, fixed before tuning;`,
    'the engine and its reranker were tuned and trained on development conversations only).',
    '',
    'Method. Every transcript is parsed by the service\'s parser (`src/lib/ingest`). For every person interviewed (debate',
    `nominees; podcast guests with ≥ ${MIN_GUEST_TURNS} turns) and each conversation they are in, a mind is built in the real database`,
    '(embedded PGlite) the way the service builds one: one completed, linked snapshot per remembered conversation — the',
    "person's other conversations whole, and the first half of this one. Each question an interviewer really asked in the",
    `second half (contains "?", ≥ ${MIN_QUESTION_WORDS} words; the answer ≥ ${MIN_ANSWER_WORDS} words) goes through the service's own path (\`engineInput\`, then the`,
    'engine) and is compared with what the person really said next: token F1, ROUGE-L, topical overlap (Jaccard of content',
    'stems) and the cosine of the two texts\' sentence embeddings (GloVe-SIF, `glove-6b-100d-sif@1`, the offline embedder of',
    '`src/lib/embeddings`). "LM random": for each question, a random excerpt of the same person\'s own words from the same memory,',
    'consecutive whole sentences as many words as the answer (seeded); the before-engine gets its own, as long as its answer.',
    '"Before" is the engine without sentence embeddings and reranker in the same run (`answer(input, { compose })`: the sentence-stitching',
    'composer); "after" is the engine as the service runs it. Source turns: distinct turns an answer quotes.',
    '',
    '## Specificity: is the answer about the question asked? (issue 22)',
    '',
    'For each held-out question i of a mind, with real answer a_i and simulated answer s_i: the share of the mind\'s other',
    'held-out real answers a_j for which cos(s_i, a_i) > cos(s_i, a_j) (ties count half), TF-IDF of content-word stems with',
    'the IDF over the mind\'s memory turns (`src/lib/fidelity/measure.ts`). 0.5: no more about this question than any other.',
    '"Beyond the question": the question\'s own words removed from the answer and every reference. Persona win: each other',
    'person of the same field (debates, Lex Fridman, Lenny\'s Podcast) has a mind in the same run that answers the same',
    'question with the same engine; the share of (question, other mind) where this mind\'s answer is closer to the real',
    'answer. Baselines in the same run: a random excerpt of the person\'s words (length-matched to the answer), the question',
    'echoed back, the person\'s turn most like the question by plain TF-IDF (its persona win against the other minds\' top-1),',
    'and the oracle: the person\'s single turn most like the real answer, chosen knowing it.',
    '',
    ...SPEC_HEADER,
    specLine('**evaluation** (reported)', spec.filter((x) => x.r.split === 'evaluation')),
    specLine('development (tuned on)', spec.filter((x) => x.r.split === 'development')),
    specLine('all', spec),
    '',
    ...SPEC_HEADER,
    ...people.map((p) => specLine(`${p} (${rs.find((x) => x.person === p)!.split})`, spec.filter((x) => x.r.person === p))),
    '',
    `Follow-ups: questions of the held-out half that refer back to the exchange before them (nothing new of their own, or ≤ ${MAX_FOLLOW_UP_WORDS} words`,
    'with a back-reference word), asked in a real conversation of the service after the question they follow; specificity',
    `against the mind's other real answers. Abstention: every ${OFF_FIELD_STEP}th question of the other fields' people put to each mind (topics`,
    "it never discussed, mostly) against the mind's own held-out questions (whose topic is in memory).",
    '',
    ...EXTRAS_HEADER,
    extrasLines('**evaluation** (reported)', 'evaluation', r, cases),
    extrasLines('development (tuned on)', 'development', r, cases),
    '',
    '## By split',
    '',
    ...HEADER,
    line('**evaluation** (reported)', evaluation),
    line('development (tuned on)', development),
    line('all', rs),
    '',
    '## Per person',
    '',
    ...HEADER,
    ...people.map((p) => line(`${p} (${rs.find((x) => x.person === p)!.split})`, rs.filter((x) => x.person === p))),
    '',
    '## Five real questions, before and after (evaluation split)',
    '',
    ...examples(rs),
    `Service path time per question (retrieval + persona + engine, no HTTP, no storage): p50 ${percentile(r.times, 50).toFixed(1)} ms, p99 ${percentile(r.times, 99).toFixed(1)} ms`,
    `(the first question of each mind loads its persona). Seeding ${cases.length} minds took ${r.seedSeconds.toFixed(0)} s. Latency of POST /simulate itself: bench/simulate.ts.`,
    '',
  ].join('\n');
}

/** Headings this script writes; any other `## ` section of the results file was added by hand. */
const GENERATED_SECTIONS = ['## Specificity: is the answer about the question asked? (issue 22)', '## By split', '## Per person', '## Five real questions, before and after (evaluation split)'];

/** The hand-written sections at the end of the existing results file (from its first heading this script does not write), kept on rewrite. */
function handWrittenSections(): string {
  if (!existsSync(RESULTS)) return '';
  const lines = readFileSync(RESULTS, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.startsWith('## ') && !GENERATED_SECTIONS.includes(l.trim()));
  return at < 0 ? '' : `\n${lines.slice(at).join('\n')}`;
}

async function main(): Promise<void> {
  const convs = await loadConversations();
  // --development: the development split only, printed and not written (for tuning; the
  // evaluation split is only ever run for the report).
  const development = process.argv.includes('--development');
  const pool = buildCases(convs);
  const cases = pool.filter((c) => !development || c.split === 'development');
  const result = await fidelity(cases, pool);
  if (process.env.FIDELITY_DUMP) writeFileSync(process.env.FIDELITY_DUMP, JSON.stringify({ records: result.records.map((r) => ({ person: r.person, caseIndex: r.caseIndex, q: r.question, gold: r.gold, a: r.after.text, texts: r.texts, turns: sourceTurns(r.after) })), followUps: result.followUps, offField: result.offField }));
  if (development) {
    const sp = specificities(result.records, cases);
    console.log([...HEADER, line('development', result.records), '', ...SPEC_HEADER, specLine('development', sp), ...[...new Set(cases.map((c) => c.person))].map((p) => specLine(p, sp.filter((x) => x.r.person === p))), '', ...EXTRAS_HEADER, extrasLines('development', 'development', result, cases)].join('\n'));
    return;
  }
  const md = report(result, convs, cases);
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(RESULTS, md + handWrittenSections());
  console.log(md);
}

await main();
