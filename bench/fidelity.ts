/**
 * Fidelity benchmark for the extractive engine: does the simulated answer resemble what the
 * person really answered?
 *
 * For every person interviewed in the real transcripts (../shared/data/transcripts), a mind is
 * built the way the service builds one: the transcripts are parsed by the service's parser
 * (src/ingest), stored as completed snapshots with the real analysis of their turns (so the
 * persona comes from the memory part only), in the real database (embedded PGlite). Memory is
 * the first half of a conversation plus all the person's other conversations. Each question an
 * interviewer really asked in the second half is then answered through the service's own path
 * (engineInput: full-text retrieval, persona, other speakers; then the engine), and the answer is
 * compared with the person's real answer (token F1, ROUGE-L, content-word Jaccard). Baselines in
 * the same run, from the same memory: a random turn of the same person of answer length (≥ 8
 * words, as the real answers are), the person's single most generic turn, and a length-matched
 * random excerpt: for each question, consecutive whole sentences of the person's own words from a
 * random point in memory, as many words as the engine's answer to that question has (the engine
 * chooses its length from the person's usual answer length, and token F1 depends on length).
 *
 * Run: node --import tsx bench/fidelity.ts   (writes bench/results/fidelity.md; sections added
 * by hand after the generated ones — "## Before: …" and the like — are kept)
 */
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { analyseTurns, type AnalysisResult } from '../src/analysis/index.ts';
import { parseInThisThread } from '../src/ingest/parse.ts';
import { createExtractiveEngine } from '../src/simulation/extractive/index.ts';
import { contentStems, spokenSentences, words } from '../src/simulation/extractive/text.ts';
import { engineInput } from '../src/simulations/run.ts';
import { loadMindScope, PersonaCache } from '../src/simulations/retrieval.ts';
import { startTestServer } from '../test/support/server.ts';
import { seedSnapshot, type SeedTurn } from '../test/simulations/seed.ts';
import { requireSharedData, SHARED_DATA_URL } from '../test/support/shared-data.ts';

requireSharedData('bench/fidelity.ts');
const DATA = new URL('transcripts/', SHARED_DATA_URL);
const RESULTS = new URL('./results/fidelity.md', import.meta.url);
/** Questions shorter than this (words) are back-channel ("Really?"), not questions. */
const MIN_QUESTION_WORDS = 4;
/** Answers shorter than this (words) are interjections, not answers; the random baseline draws from turns as long. */
const MIN_ANSWER_WORDS = 8;
/** A person needs at least this many turns in memory to be simulated at all. */
const MIN_MEMORY_TURNS = 10;
/** Podcast guests: non-hosts with at least this many turns (not a sponsor read). */
const MIN_GUEST_TURNS = 20;
const HOSTS = new Set(['Lex Fridman', 'Lenny Rachitsky', 'Lenny']);
/** Seeds of the random baselines (separate streams, so adding one does not move another). */
const RANDOM_SEED = 20240601;
const LENGTH_MATCHED_SEED = 20250101;

// ─── the conversations, parsed as the service parses uploads ─────────────────────────────

interface Conversation {
  id: string;
  date: Date;
  turns: SeedTurn[];
  /** The people interviewed (everyone else asks). */
  subjects: string[];
}

async function parse(url: URL): Promise<SeedTurn[]> {
  const transcript = await parseInThisThread(fileURLToPath(url), 'txt');
  return transcript.turns.map((t) => ({ speaker: t.speaker, text: t.text, startMs: t.startMs ?? null, ...(t.continues ? { continues: true as const } : {}) }));
}

/**
 * What the person really answered: the turn at `i` and the parts that continue it. Ingest cuts a
 * turn over 400 words into parts for retrieval; the answer to compare with is still the whole reply.
 */
function wholeReply(turns: readonly SeedTurn[], i: number): string {
  const parts = [turns[i]!.text];
  for (let j = i + 1; j < turns.length && turns[j]!.continues; j++) parts.push(turns[j]!.text);
  return parts.join(' ');
}

/** Guests of a podcast: non-hosts with enough turns to be interviewed. */
function guests(turns: SeedTurn[]): string[] {
  const counts = new Map<string, number>();
  // Turns taken, not the parts ingest cut long ones into.
  for (const t of turns) if (!t.continues) counts.set(t.speaker, (counts.get(t.speaker) ?? 0) + 1);
  return [...counts].filter(([s, n]) => !HOSTS.has(s) && n >= MIN_GUEST_TURNS).map(([s]) => s).sort();
}

async function loadConversations(): Promise<Conversation[]> {
  const out: Conversation[] = [];
  const debates = new URL('us-presidential-debates/', DATA);
  for (const f of readdirSync(debates).filter((f) => f.endsWith('.said.txt')).sort()) {
    const meta = JSON.parse(readFileSync(new URL(f.replace('.said.txt', '.json'), debates), 'utf8')) as { speakers: { fullName: string; role: string }[] };
    const subjects = meta.speakers.filter((s) => /nominee/i.test(s.role)).map((s) => s.fullName);
    out.push({ id: `debate ${f.slice(0, 10)}`, date: new Date(`${f.slice(0, 10)}T00:00:00Z`), turns: await parse(new URL(f, debates)), subjects });
  }
  const lex = new URL('lex-fridman-podcast/', DATA);
  for (const f of readdirSync(lex).sort()) {
    const src = readFileSync(new URL(f, lex), 'utf8');
    const posted = /posted in .*? on \[([A-Z][a-z]+ \d+, \d{4})\]/.exec(src)?.[1];
    const turns = await parse(new URL(f, lex));
    out.push({ id: `lex ${f.replace('.txt', '')}`, date: new Date(`${posted ?? 'January 1, 2023'} UTC`), turns, subjects: guests(turns) });
  }
  const lenny = new URL('lennys-podcast/', DATA);
  for (const f of readdirSync(lenny).sort()) {
    const src = readFileSync(new URL(f, lenny), 'utf8');
    const date = /^publish_date: (\d{4}-\d\d-\d\d)/m.exec(src)?.[1] ?? '2024-01-01';
    const turns = await parse(new URL(f, lenny));
    out.push({ id: `lenny ${f.replace('.transcript.md.txt', '')}`, date: new Date(`${date}T00:00:00Z`), turns, subjects: guests(turns) });
  }
  return out;
}

// ─── minds (one per held-out conversation and person) and their questions ───────────────

interface Item {
  question: string;
  answer: string;
}

interface Case {
  person: string;
  conversation: Conversation;
  /** The snapshots of the mind: the person's other conversations, whole, and the first half of this one. */
  snapshots: { conversation: Conversation; turns: SeedTurn[]; whole: boolean }[];
  items: Item[];
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
      for (let i = Math.max(1, half); i < conv.turns.length; i++) {
        const t = conv.turns[i]!;
        const q = conv.turns[i - 1]!;
        if (t.speaker !== person || conv.subjects.includes(q.speaker)) continue; // asked by an interviewer, not an opponent
        if (!q.text.includes('?') || words(q.text).length < MIN_QUESTION_WORDS || words(t.text).length < MIN_ANSWER_WORDS) continue;
        items.push({ question: q.text, answer: wholeReply(conv.turns, i) });
      }
      if (items.length > 0) cases.push({ person, conversation: conv, snapshots, items, memory });
    }
  }
  return cases;
}

// ─── metrics ─────────────────────────────────────────────────────────────────────────────

interface Scores {
  f1: number;
  rougeL: number;
  jaccard: number;
}

function tokenF1(pred: string[], gold: string[]): number {
  if (!pred.length || !gold.length) return 0;
  const counts = new Map<string, number>();
  for (const g of gold) counts.set(g, (counts.get(g) ?? 0) + 1);
  let common = 0;
  for (const p of pred) {
    const c = counts.get(p) ?? 0;
    if (c > 0) {
      common++;
      counts.set(p, c - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / pred.length;
  const recall = common / gold.length;
  return (2 * precision * recall) / (precision + recall);
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

/** mulberry32: a small seeded PRNG so the random baseline is the same every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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

/** The sentences of each of the person's turns in memory, in memory order (for lengthMatchedExcerpt). */
function memorySentences(memory: readonly string[]): string[][] {
  return memory.map((t) => spokenSentences(t).map((s) => s.text.trim()).filter((s) => words(s).length > 0));
}

/**
 * A random excerpt of the person's own words about `target` words long: a random memory turn, a
 * random sentence in it (split as the engine splits: spokenSentences), then the following whole
 * sentences — on into the person's next turns in memory, wrapping at the end — until the excerpt
 * reaches `target` words. The last sentence is kept only if that leaves the count nearer the
 * target than stopping before it; at least one sentence is always taken.
 */
function lengthMatchedExcerpt(turns: readonly (readonly string[])[], target: number, rand: () => number): string {
  const total = turns.reduce((n, t) => n + t.length, 0);
  if (total === 0) return '';
  let ti = Math.floor(rand() * turns.length);
  while (turns[ti]!.length === 0) ti = (ti + 1) % turns.length;
  let si = Math.floor(rand() * turns[ti]!.length);
  const out: string[] = [];
  let count = 0;
  for (let taken = 0; taken < total; taken++) {
    const sentence = turns[ti]![si]!;
    const n = words(sentence).length;
    if (out.length > 0 && Math.abs(count + n - target) > Math.abs(count - target)) break;
    out.push(sentence);
    count += n;
    if (count >= target) break;
    si++;
    while (si >= turns[ti]!.length) {
      ti = (ti + 1) % turns.length;
      si = 0;
    }
  }
  return out.join(' ');
}

// ─── running ─────────────────────────────────────────────────────────────────────────────

interface Row {
  person: string;
  n: number;
  engine: Scores;
  random: Scores;
  randomAny: Scores;
  generic: Scores;
  /** The length-matched random excerpt. */
  matched: Scores;
  abstained: number;
  words: number;
  goldWords: number;
  matchedWords: number;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const meanScores = (xs: Scores[]): Scores => ({ f1: mean(xs.map((x) => x.f1)), rougeL: mean(xs.map((x) => x.rougeL)), jaccard: mean(xs.map((x) => x.jaccard)) });

interface Acc {
  engine: Scores[];
  random: Scores[];
  randomAny: Scores[];
  generic: Scores[];
  matched: Scores[];
  abstained: number;
  words: number[];
  gold: number[];
  matchedWords: number[];
}

function row(person: string, a: Acc): Row {
  return {
    person,
    n: a.engine.length,
    engine: meanScores(a.engine),
    random: meanScores(a.random),
    randomAny: meanScores(a.randomAny),
    generic: meanScores(a.generic),
    matched: meanScores(a.matched),
    abstained: a.abstained,
    words: mean(a.words),
    goldWords: mean(a.gold),
    matchedWords: mean(a.matchedWords),
  };
}

async function fidelity(cases: Case[]): Promise<{ rows: Row[]; overall: Row; macro: Row; times: number[]; seedSeconds: number }> {
  const s = await startTestServer();
  try {
    const engine = createExtractiveEngine();
    const services = { db: s.ctx.db, personas: new PersonaCache() };
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
    for (const c of cases) {
      const mind = (await s.api('POST', '/minds', { name: c.person })).body.mind;
      for (const snap of c.snapshots) {
        await seedSnapshot(s.ctx.db, {
          organizationId: mind.organizationId,
          mindId: mind.id,
          mind: c.person,
          turns: snap.turns,
          mindsetDate: snap.conversation.date,
          ...(snap.whole ? { precomputed: analysisOf(snap.conversation, c.person) } : {}),
        });
      }
      minds.push({ c, id: mind.id, organizationId: mind.organizationId });
    }
    await s.ctx.database.execute('analyze'); // as the service leaves the database after ingesting
    const seedSeconds = (performance.now() - seedStart) / 1000;

    const per = new Map<string, Acc>();
    const rand = prng(RANDOM_SEED);
    const randMatched = prng(LENGTH_MATCHED_SEED);
    const times: number[] = [];
    for (const { c, id, organizationId } of minds) {
      const scope = (await loadMindScope(s.ctx.db, organizationId, id, null))!.scope;
      const answerLength = c.memory.filter((t) => words(t).length >= MIN_ANSWER_WORDS);
      const generic = mostGenericTurn(answerLength);
      const sentencesOfMemory = memorySentences(c.memory);
      const acc = per.get(c.person) ?? { engine: [], random: [], randomAny: [], generic: [], matched: [], abstained: 0, words: [], gold: [], matchedWords: [] };
      per.set(c.person, acc);
      for (const item of c.items) {
        const t0 = performance.now();
        const input = await engineInput(services, scope, engine, null, 0, item.question);
        const result = await engine.generate(input);
        times.push(performance.now() - t0);
        acc.engine.push(score(result.text, item.answer));
        acc.random.push(score(answerLength[Math.floor(rand() * answerLength.length)]!, item.answer));
        acc.randomAny.push(score(c.memory[Math.floor(rand() * c.memory.length)]!, item.answer));
        acc.generic.push(score(generic, item.answer));
        const answerWords = words(result.text).length;
        const excerpt = lengthMatchedExcerpt(sentencesOfMemory, answerWords, randMatched);
        acc.matched.push(score(excerpt, item.answer));
        acc.matchedWords.push(words(excerpt).length);
        if (result.evidence.length === 0) acc.abstained++;
        acc.words.push(answerWords);
        acc.gold.push(words(item.answer).length);
      }
    }
    const rows = [...per].map(([person, a]) => row(person, a)).sort((a, b) => a.person.localeCompare(b.person));
    const all = [...per.values()];
    const merged: Acc = {
      engine: all.flatMap((a) => a.engine),
      random: all.flatMap((a) => a.random),
      randomAny: all.flatMap((a) => a.randomAny),
      generic: all.flatMap((a) => a.generic),
      matched: all.flatMap((a) => a.matched),
      abstained: all.reduce((n, a) => n + a.abstained, 0),
      words: all.flatMap((a) => a.words),
      gold: all.flatMap((a) => a.gold),
      matchedWords: all.flatMap((a) => a.matchedWords),
    };
    const overall = row('all questions (micro mean)', merged);
    const macro: Row = {
      person: 'mean of people (macro)',
      n: rows.length,
      engine: meanScores(rows.map((r) => r.engine)),
      random: meanScores(rows.map((r) => r.random)),
      randomAny: meanScores(rows.map((r) => r.randomAny)),
      generic: meanScores(rows.map((r) => r.generic)),
      matched: meanScores(rows.map((r) => r.matched)),
      abstained: merged.abstained,
      words: mean(rows.map((r) => r.words)),
      goldWords: mean(rows.map((r) => r.goldWords)),
      matchedWords: mean(rows.map((r) => r.matchedWords)),
    };
    return { rows, overall, macro, times, seedSeconds };
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

function report(r: Awaited<ReturnType<typeof fidelity>>, convs: Conversation[], cases: Case[]): string {
  const line = (x: Row) =>
    `| ${x.person} | ${x.n} | ${f3(x.engine.f1)} | ${f3(x.random.f1)} | ${f3(x.generic.f1)} | **${ratio(x.engine.f1, x.random.f1)}** | ${ratio(x.engine.f1, x.generic.f1)} | ${f3(x.matched.f1)} | **${ratio(x.engine.f1, x.matched.f1)}** | ${f3(x.engine.rougeL)} | ${f3(x.random.rougeL)} | ${f3(x.generic.rougeL)} | ${ratio(x.engine.rougeL, x.random.rougeL)} | ${f3(x.matched.rougeL)} | ${ratio(x.engine.rougeL, x.matched.rougeL)} | ${f3(x.engine.jaccard)} | ${f3(x.random.jaccard)} | ${f3(x.generic.jaccard)} | ${ratio(x.engine.jaccard, x.random.jaccard)} | ${f3(x.matched.jaccard)} | ${ratio(x.engine.jaccard, x.matched.jaccard)} | ${x.abstained} | ${Math.round(x.words)} / ${Math.round(x.goldWords)} | ${Math.round(x.matchedWords)} |`;
  const peopleBelow = (x: (r: Row) => number, bar: number) => r.rows.filter((p) => x(p) < bar).length;
  const o = r.overall;
  return [
    '# Fidelity of the extractive engine',
    '',
    'Generated by `node --import tsx bench/fidelity.ts` over the real conversations in `../shared/data/transcripts`',
    `(${convs.length} conversations: 6 debates, 6 Lex Fridman interviews, 3 Lenny's Podcast interviews), ${cases.length} minds, ${o.n} held-out questions.`,
    '',
    'Method. Every transcript is parsed by the service\'s parser (`src/ingest`). For every person interviewed (debate',
    `nominees; podcast guests with ≥ ${MIN_GUEST_TURNS} turns) and each conversation they are in, a mind is built in the real database`,
    '(embedded PGlite) the way the service builds one: one completed, linked snapshot per remembered conversation — the',
    "person's other conversations whole, and the first half of this one — each with its turns (the question before each",
    'turn as its context), its speakers and the real analysis of those turns, so the persona comes from the memory part only.',
    `Each question an interviewer (moderator, audience member, host) really asked in the second half (contains "?", ≥ ${MIN_QUESTION_WORDS} words;`,
    `the answer ≥ ${MIN_ANSWER_WORDS} words) is answered through the service's own path — \`engineInput\` (the full-text retrieval of POST`,
    '/simulate, the persona card from the analysis, the other speakers\' names) then the extractive engine — and compared with',
    'what the person really said next: token F1 (lower-case words), ROUGE-L F1 (longest common word subsequence) and topical',
    'overlap (Jaccard of stemmed content words). Baselines from the same memory, in the same run: a random turn of the same person',
    `of answer length (≥ ${MIN_ANSWER_WORDS} words, as every real answer is; seeded PRNG), and the single most generic turn (of those, the one with the`,
    'highest cosine similarity of content-stem counts to all the person\'s other turns).',
    '',
    'Length-matched random baseline ("LM random"). The engine sets the length of its answer from how long the person usually',
    'answers a question (`usualLength` / `wordBudget` in src/simulation/extractive/compose.ts), and token F1 and ROUGE-L depend',
    'strongly on length, so the random turn above is not a like-for-like comparison. For each question this baseline takes a',
    'random excerpt of the same person\'s own words from the same memory with about as many words as the engine\'s answer to',
    'that question: a random memory turn, a random sentence in it (split as the engine splits), then the following whole',
    'sentences — on into the person\'s next turns in memory — until the engine answer\'s word count is reached (the last sentence',
    `kept only if that lands nearer the count). Own seeded PRNG (${LENGTH_MATCHED_SEED}), separate from the random turn's, so neither moves the other.`,
    'When the engine abstains, its answer is a short "I haven\'t talked about that" and the excerpt is as short.',
    '',
    '## Per person (means over held-out questions)',
    '',
    'Columns: engine, random own turn (≥ 8 words), most generic turn; ratios engine / random and engine / generic; then the',
    'length-matched random excerpt ("LM random") and engine / LM random. "Abstained" = questions answered "I haven\'t talked',
    'about that" (no noun phrase of the question found in memory). Words = engine / real; LM words = the excerpts\' mean length.',
    '',
    '| person | questions | F1 | F1 random | F1 generic | F1 ÷ random | F1 ÷ generic | F1 LM random | F1 ÷ LM random | ROUGE-L | RL random | RL generic | RL ÷ random | RL LM random | RL ÷ LM random | Jaccard | J random | J generic | J ÷ random | J LM random | J ÷ LM random | abstained | words | LM words |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map(line),
    line(r.macro),
    line(o),
    '',
    `Overall (all ${o.n} questions): engine / random-own-turn = **${ratio(o.engine.f1, o.random.f1)} token F1**, **${ratio(o.engine.rougeL, o.random.rougeL)} ROUGE-L**, **${ratio(o.engine.jaccard, o.random.jaccard)} topical overlap**;`,
    `engine / most-generic-turn = ${ratio(o.engine.f1, o.generic.f1)} F1, ${ratio(o.engine.rougeL, o.generic.rougeL)} ROUGE-L, ${ratio(o.engine.jaccard, o.generic.jaccard)} topical overlap. Aim: ≥ 1.3× random-own-turn.`,
    '',
    `Length-matched: engine / LM-random = **${ratio(o.engine.f1, o.matched.f1)} token F1** (${ratio(r.macro.engine.f1, r.macro.matched.f1)} macro), **${ratio(o.engine.rougeL, o.matched.rougeL)} ROUGE-L**, **${ratio(o.engine.jaccard, o.matched.jaccard)} topical overlap**`,
    `(LM-random F1 ${f3(o.matched.f1)} against ${f3(o.random.f1)} for the random turn; excerpts ${Math.round(o.matchedWords)} words on average, the engine ${Math.round(o.words)}).`,
    `On token F1 the engine's advantage over a random sample of the person's own words ${o.matched.f1 > o.random.f1 ? 'shrinks' : 'does not shrink'} when the sample is as long as`,
    `the engine's answer: ${ratio(o.engine.f1, o.random.f1)} → ${ratio(o.engine.f1, o.matched.f1)}; ROUGE-L ${ratio(o.engine.rougeL, o.random.rougeL)} → ${ratio(o.engine.rougeL, o.matched.rougeL)}; topical overlap ${ratio(o.engine.jaccard, o.random.jaccard)} → ${ratio(o.engine.jaccard, o.matched.jaccard)}.`,
    `People below 1.3× on F1: ${peopleBelow((p) => p.engine.f1 / p.random.f1, 1.3)} of ${r.rows.length} against the random turn, ${peopleBelow((p) => p.engine.f1 / p.matched.f1, 1.3)} of ${r.rows.length} against LM random;`,
    `below 1.0× (worse than a random excerpt of the same length): ${peopleBelow((p) => p.engine.f1 / p.matched.f1, 1)} of ${r.rows.length}.`,
    '',
    'Caveat: the engine\'s design choices (answer length, match weights, which words are searched) were evaluated on these same',
    'held-out questions — there is no separate development split — so every engine ratio on this page may be optimistic.',
    '',
    `For reference, against a random turn of any length (including "Yeah." interjections, the baseline of earlier runs), the`,
    `engine's F1 ratio would be ${ratio(o.engine.f1, o.randomAny.f1)} (random-any F1 ${f3(o.randomAny.f1)}): short turns share few words with any answer, which flattered the engine.`,
    '',
    `Service path time per question (retrieval + persona + engine, no HTTP, no storage): p50 ${percentile(r.times, 50).toFixed(1)} ms, p99 ${percentile(r.times, 99).toFixed(1)} ms`,
    `(the first question of each mind loads its persona). Seeding ${cases.length} minds took ${r.seedSeconds.toFixed(0)} s. Latency of POST /simulate itself: bench/simulate.ts.`,
    '',
  ].join('\n');
}

/** Headings this script writes; any other `## ` section of the results file was added by hand. */
const GENERATED_SECTIONS = ['## Per person (means over held-out questions)'];

/** The hand-written sections at the end of the existing results file (from its first heading this script does not write), kept on rewrite. */
function handWrittenSections(): string {
  if (!existsSync(RESULTS)) return '';
  const lines = readFileSync(RESULTS, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.startsWith('## ') && !GENERATED_SECTIONS.includes(l.trim()));
  return at < 0 ? '' : `\n${lines.slice(at).join('\n')}`;
}

async function main(): Promise<void> {
  const convs = await loadConversations();
  const cases = buildCases(convs);
  const result = await fidelity(cases);
  const md = report(result, convs, cases);
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(RESULTS, md + handWrittenSections());
  console.log(md);
}

await main();
