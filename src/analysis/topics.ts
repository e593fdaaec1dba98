/**
 * Key topics: what the person talks about, as phrases from their own words.
 *
 * 1. The mind's turns are cut into chunks of consecutive sentences (≈ 80 words).
 * 2. Candidate terms are nouns (by lemma) and noun phrases of 2–3 words, never stopwords,
 *    fillers, numbers or the names of the people in the conversation.
 * 3. Each term's keyness is Dunning's log-likelihood (G²) of its frequency in the mind's speech
 *    against a background of everyday English (models/background.json); only terms used more
 *    than in the background and in at least two chunks count.
 * 4. Terms are grouped greedily, strongest first: a term joins the topic whose chunks it shares
 *    most (cosine of chunk sets ≥ JOIN_SIMILARITY) or starts a new topic while there is room.
 * 5. Each chunk is assigned to the topic whose terms it mentions most; a topic's share is its
 *    chunks' words over all the mind's words, its sentiment the AFINN balance of those chunks, and
 *    its evidence the chunks that mention its terms most densely.
 */
import { loadBackground } from './background.ts';
import { quoteSentences } from './evidence.ts';
import { FILLER_PHRASES, STOPWORDS, VALENCE } from './lexicons.ts';
import type { PreparedTurn } from './prepare.ts';
import type { AnalysisTurn, KeyTopicResult } from './types.ts';

const CHUNK_WORDS = 80;
const JOIN_SIMILARITY = 0.25;
const CANDIDATE_TERMS = 120;
const MIN_TERM_COUNT = 3;
const MIN_TERM_CHUNKS = 2;
const KEYWORDS_PER_TOPIC = 10;
const EVIDENCE_PER_TOPIC = 3;

interface Chunk {
  turn: PreparedTurn;
  firstSentence: number;
  lastSentence: number;
  words: number;
  /** Term key → occurrences in this chunk. */
  terms: Map<string, number>;
  valence: { positive: number; negative: number };
}

interface Term {
  key: string;
  count: number;
  chunks: Set<number>;
  /** Surface forms as written, with counts: the label is the commonest. */
  surfaces: Map<string, number>;
  /** Lower-cased word forms seen, for the background frequency. */
  forms: Set<string>;
  words: number;
  keyness: number;
}

/** Topic count grows with the length of the speech: 3 for short, up to 15 for very long. */
export function topicBudget(mindWords: number): number {
  return Math.max(3, Math.min(15, Math.round(mindWords / 1500) + 3));
}

const FILLER_SET = new Set(FILLER_PHRASES);

function isContentWord(value: string, normal: string, type: string, pos: string, excluded: Set<string>): boolean {
  if (type !== 'word') return false;
  if (pos !== 'NOUN' && pos !== 'PROPN' && pos !== 'ADJ') return false;
  // Two-letter words count only as acronyms written in capitals (AI, EU).
  const acronym = normal.length === 2 && /^[A-Z]{2}$/.test(value);
  if ((normal.length < 3 && !acronym) || !/^[a-z][a-z.'-]*$/.test(normal)) return false;
  if (normal.includes("'") || normal.endsWith('.')) return false;
  return !STOPWORDS.has(normal) && !excluded.has(normal);
}

/** Name parts of everyone who speaks (and their possessives): people are not topics. */
function speakerNameParts(turns: AnalysisTurn[]): Set<string> {
  const parts = new Set<string>();
  for (const t of turns)
    for (const p of t.speaker.toLowerCase().split(/[^a-z]+/)) if (p.length >= 2) parts.add(p);
  return parts;
}

function chunkTurns(turns: PreparedTurn[], excluded: Set<string>): Chunk[] {
  const chunks: Chunk[] = [];
  for (const turn of turns) {
    const sentences = turn.tokens.sentences;
    let start = 0;
    while (start < sentences.length) {
      let end = start;
      let words = 0;
      for (; end < sentences.length; end++) {
        words += sentences[end]!.tokenEnd - sentences[end]!.tokenStart;
        if (words >= CHUNK_WORDS) break;
      }
      end = Math.min(end, sentences.length - 1);
      // A short remainder joins this chunk rather than standing alone.
      if (sentences.length - 1 - end <= 1) end = sentences.length - 1;
      chunks.push(extractChunk(turn, start, end, excluded));
      start = end + 1;
    }
  }
  return chunks;
}

function extractChunk(turn: PreparedTurn, first: number, last: number, excluded: Set<string>): Chunk {
  const tk = turn.tokens;
  const from = tk.sentences[first]!.tokenStart;
  const to = tk.sentences[last]!.tokenEnd;
  const terms = new Map<string, number>();
  const valence = { positive: 0, negative: 0 };
  let words = 0;
  const add = (key: string): void => {
    terms.set(key, (terms.get(key) ?? 0) + 1);
  };
  for (let i = from; i < to; i++) {
    if (tk.type[i] !== 'word') continue;
    words++;
    const v = VALENCE[tk.normal[i]!];
    if (v !== undefined) {
      const signed = tk.negated[i] ? -v : v;
      if (signed > 0) valence.positive += signed;
      else valence.negative -= signed;
    }
  }
  // Noun phrases: maximal runs of content words (adjectives and nouns) ending in a noun.
  let runStart = from;
  for (let i = from; i <= to; i++) {
    const inRun = i < to && isContentWord(tk.value[i]!, tk.normal[i]!, tk.type[i]!, tk.pos[i]!, excluded);
    if (inRun) continue;
    let end = i; // exclusive
    // An adjective alone after a determiner or possessive is used as a noun ("our military").
    const nominal = end - runStart === 1 && tk.pos[runStart] === 'ADJ' && (tk.pos[runStart - 1] === 'DET' || tk.pos[runStart - 1] === 'PRON');
    if (nominal) add(`1|${tk.normal[runStart]!}`);
    while (end > runStart && tk.pos[end - 1] === 'ADJ') end--;
    for (let j = runStart; j < end; j++) {
      if ((tk.pos[j] === 'NOUN' || tk.pos[j] === 'PROPN') && !STOPWORDS.has(tk.lemma[j]!.toLowerCase())) add(`1|${tk.lemma[j]!.toLowerCase()}`);
    }
    // Every 2- and 3-word window of the run that ends in a noun is a phrase candidate.
    for (let a = runStart; a < end; a++)
      for (let n = 2; n <= 3 && a + n <= end; n++) {
        const last = a + n - 1;
        if ((tk.pos[last] !== 'NOUN' && tk.pos[last] !== 'PROPN') || STOPWORDS.has(tk.lemma[last]!.toLowerCase())) continue;
        if (tk.pos[a] === 'ADJ' && n === 2 && tk.pos[last] === 'PROPN') continue;
        const lemmas = [];
        for (let j = a; j <= last; j++) lemmas.push(j === last ? tk.lemma[j]!.toLowerCase() : tk.normal[j]!);
        const phrase = lemmas.join(' ');
        if (!FILLER_SET.has(phrase)) add(`${n}|${phrase}`);
      }
    runStart = i + 1;
  }
  return { turn, firstSentence: first, lastSentence: last, words, terms, valence };
}

/** Surface form of a term in a chunk: the first matching token run as written. */
function collectSurfaces(chunks: Chunk[], termsByKey: Map<string, Term>): void {
  for (const c of chunks) {
    const tk = c.turn.tokens;
    const from = tk.sentences[c.firstSentence]!.tokenStart;
    const to = tk.sentences[c.lastSentence]!.tokenEnd;
    for (let i = from; i < to; i++) {
      for (let n = 1; n <= 3 && i + n <= to; n++) {
        const last = i + n - 1;
        const parts = [];
        for (let j = i; j <= last; j++) parts.push(j === last ? tk.lemma[j]!.toLowerCase() : tk.normal[j]!);
        const term = termsByKey.get(`${n}|${parts.join(' ')}`);
        if (!term) continue;
        const surface = tk.normal.slice(i, last + 1).join(' ');
        // Keep capitals only for proper nouns and acronyms (Medicare, Neuralink, AI), as written.
        const keepCase = tk.pos[last] === 'PROPN' || /^[A-Z]{2,}$/.test(tk.value[last]!);
        const written = keepCase ? tk.value.slice(i, last + 1).join(' ') : surface;
        term.surfaces.set(written, (term.surfaces.get(written) ?? 0) + 1);
        for (let j = i; j <= last; j++) term.forms.add(tk.normal[j]!);
      }
    }
  }
}

/** Dunning's G² for a word seen `a` times in `n` words against `b` times in `m` background words. */
function logLikelihood(a: number, n: number, b: number, m: number): number {
  const e1 = (n * (a + b)) / (n + m);
  const e2 = (m * (a + b)) / (n + m);
  return 2 * ((a > 0 ? a * Math.log(a / e1) : 0) + (b > 0 ? b * Math.log(b / e2) : 0));
}

function cosine(a: Set<number>, b: Set<number>): number {
  let common = 0;
  const [small, large] = a.size < b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) common++;
  return common / Math.sqrt(a.size * b.size || 1);
}

const mostCommon = (m: Map<string, number>): string =>
  [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? '';

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

export function extractTopics(mindTurns: PreparedTurn[], allTurns: AnalysisTurn[], mindWords: number): KeyTopicResult[] {
  const excluded = speakerNameParts(allTurns);
  const chunks = chunkTurns(mindTurns, excluded);
  const background = loadBackground();

  const terms = new Map<string, Term>();
  chunks.forEach((c, ci) => {
    for (const [key, n] of c.terms) {
      let t = terms.get(key);
      if (!t) {
        t = { key, count: 0, chunks: new Set(), surfaces: new Map(), forms: new Set(), words: Number(key[0]), keyness: 0 };
        terms.set(key, t);
      }
      t.count += n;
      t.chunks.add(ci);
    }
  });
  const frequent = new Map([...terms].filter(([, t]) => t.count >= MIN_TERM_COUNT && t.chunks.size >= MIN_TERM_CHUNKS));
  collectSurfaces(chunks, frequent);
  const totalTokens = chunks.reduce((s, c) => s + c.words, 0);
  for (const t of frequent.values()) {
    // Background count: a phrase's rarest word bounds how often the phrase can occur.
    const bg = t.words === 1
      ? [...t.forms].reduce((s, f) => s + (background.counts[f] ?? 0), 0)
      : Math.min(...t.key.slice(2).split(' ').map((w) => background.counts[w] ?? 0));
    const expectedRate = bg / background.totalWords;
    if (t.count / totalTokens <= expectedRate) continue;
    // Phrases get a bonus: they name a subject more precisely than their head noun.
    t.keyness = logLikelihood(t.count, totalTokens, bg, background.totalWords) * (t.words > 1 ? 1.5 : 1);
  }
  const ranked = [...frequent.values()]
    .filter((t) => t.keyness > 0)
    .sort((a, b) => b.keyness - a.keyness || (a.key < b.key ? -1 : 1))
    .slice(0, CANDIDATE_TERMS);

  // Greedy grouping by shared chunks.
  const budget = topicBudget(mindWords);
  const groups: { terms: Term[]; chunks: Set<number> }[] = [];
  for (const t of ranked) {
    let best = -1;
    let bestSim = JOIN_SIMILARITY;
    groups.forEach((g, gi) => {
      const sim = cosine(t.chunks, g.chunks);
      if (sim > bestSim) {
        bestSim = sim;
        best = gi;
      }
    });
    if (best >= 0) {
      const g = groups[best]!;
      g.terms.push(t);
      for (const c of t.chunks) g.chunks.add(c);
    } else if (groups.length < budget) groups.push({ terms: [t], chunks: new Set(t.chunks) });
  }

  // Assign each chunk to the topic it mentions most (weighted by term keyness rank).
  const assigned = new Map<number, number[]>();
  chunks.forEach((c, ci) => {
    let best = -1;
    let bestScore = 0;
    groups.forEach((g, gi) => {
      let s = 0;
      for (const t of g.terms) s += c.terms.get(t.key) ?? 0;
      if (s > bestScore) {
        bestScore = s;
        best = gi;
      }
    });
    if (best >= 0) assigned.set(best, [...(assigned.get(best) ?? []), ci]);
  });

  const topics: KeyTopicResult[] = [];
  groups.forEach((g, gi) => {
    const own = assigned.get(gi) ?? [];
    if (own.length === 0) return;
    const words = own.reduce((s, ci) => s + chunks[ci]!.words, 0);
    const pos = own.reduce((s, ci) => s + chunks[ci]!.valence.positive, 0);
    const neg = own.reduce((s, ci) => s + chunks[ci]!.valence.negative, 0);
    // Label: the strongest multi-word phrase if it is used nearly as often as the head term, else the head term.
    const head = g.terms[0]!;
    const phrase = g.terms.find((t) => t.words > 1 && t.count >= Math.max(MIN_TERM_COUNT, head.count * 0.3));
    const labelTerm = phrase ?? head;
    const label = mostCommon(labelTerm.surfaces);
    const keywords: string[] = [];
    for (const t of [labelTerm, ...g.terms]) {
      const s = mostCommon(t.surfaces);
      if (s && !keywords.includes(s)) keywords.push(s);
      if (keywords.length >= KEYWORDS_PER_TOPIC) break;
    }
    const density = (ci: number): number => {
      let s = 0;
      for (const t of g.terms) s += chunks[ci]!.terms.get(t.key) ?? 0;
      return s / Math.max(20, chunks[ci]!.words);
    };
    const evidence = [...own]
      .sort((a, b) => density(b) - density(a) || a - b)
      .slice(0, EVIDENCE_PER_TOPIC)
      .map((ci) => {
        const c = chunks[ci]!;
        return {
          turnId: c.turn.turn.turnId,
          quote: quoteSentences(c.turn.turn.text, c.turn.tokens.sentences, c.firstSentence, c.lastSentence),
          startMs: c.turn.turn.startMs,
        };
      });
    topics.push({
      label,
      keywords,
      share: round(words / Math.max(1, totalTokens)),
      sentiment: round(pos + neg > 0 ? (pos - neg) / (pos + neg) : 0),
      evidence,
    });
  });
  return topics.sort((a, b) => b.share - a.share || (a.label < b.label ? -1 : 1));
}
