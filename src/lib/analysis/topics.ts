/**
 * Key topics: what the person talks about, as phrases from their own words.
 *
 * 1. The mind's turns are cut into chunks of consecutive sentences (≈ CHUNK_WORDS words).
 * 2. Candidate terms are noun phrases: runs of nouns, proper nouns and adjectives (hyphenated
 *    compounds kept whole: "trade-offs") and their 1–4-word windows ending in a noun, never
 *    stopwords, fillers, numbers (also leading a compound: "four-year"), generic nouns ("data",
 *    "companies", "feet"), intensifiers ("super") or the names of the people in the conversation.
 *    A lone word must be a noun.
 * 3. A term that is mostly said as part of a longer term is that longer term ("Supreme" →
 *    "Supreme Court", "stage startup" → "early stage startup"): it is absorbed when the longer
 *    term occurs at least ABSORB times as often.
 * 4. Each term's keyness is Dunning's log-likelihood (G²) of its frequency in the mind's speech
 *    against a background of everyday English (models/background.json); only terms used more
 *    than in the background, at least twice (three times in a long speech), in two sentences.
 * 5. Terms are grouped greedily, strongest first: a term joins the topic whose members it
 *    co-occurs with most (mean cosine of chunk sets ≥ JOIN_SIMILARITY over the topic's strongest
 *    members, so a big topic does not swallow everything; below a broad seed word like "reforms"
 *    it must also meet the first member that is not broad), else starts a new topic. Topics that
 *    share a head word ("tax breaks", "tax plan") or whose chunks largely coincide are merged, and
 *    so are topics whose passages mean the same (centred GloVe-SIF vectors of their chunks alike,
 *    and near-synonymous seeds: "relationship" / "friendship"); a broad word that gathered nothing
 *    is not a topic.
 * 6. Each chunk goes to the topic whose terms it mentions most; share = those chunks' words over
 *    the mind's words, sentiment = their AFINN balance. Members are weighted by centrality
 *    (keyness × co-occurrence with the other members); the label is a member a reader would call a
 *    topic (THE RULE, topic-labels.ts `readerTopicFailure`: a noun phrase of the person's own
 *    words, no bare platform or shell noun like "post" or "video", not a fragment like
 *    "Amendment"), the most specific that still represents the topic ("Medicare" rather than
 *    "insurance", "federal government" rather than "government"), then the most representative
 *    phrase holding it (closest in meaning to the topic's passages), in its commonest written
 *    form; a topic with no such member is dropped; keywords = the label,
 *    then members by weight; evidence = the whole sentences densest in the topic's terms.
 */
import { loadBackground } from './background.ts';
import { MAX_QUOTE_CHARS } from './evidence.ts';
import { FILLER_PHRASES, GENERIC_NOUNS, STOPWORDS, VALENCE } from './lexicons.ts';
import { BROAD_NOUNS, chooseLabel, containsWords, indexLabels, labelUses, type LabelIndex, longerForms, NUMBER_WORDS, readerTopicFailure } from './topic-labels.ts';
import { analysisVectors, cosineOf, meanVector } from './vectors.ts';
import type { TurnTokens } from './nlp.ts';
import type { LabelCandidate } from './topic-labels.ts';
import type { PreparedTurn } from './prepare.ts';
import type { AnalysisTurn, EvidenceRef, KeyTopicResult } from './types.ts';

const CHUNK_WORDS = 60;
/** A short speech is cut finer, so a few hundred words still separate into several subjects. */
const SHORT_CHUNK_WORDS = 20;
const JOIN_SIMILARITY = 0.2;
/** Topics whose chunk sets have at least this cosine are one subject. */
const MERGE_SIMILARITY = 0.4;
/** A term joins a topic only if it shares at least this many chunks with its strongest members. */
const MIN_SHARED_CHUNKS = 2;
/** Mean similarity is taken over at most this many of a topic's strongest members. */
const LINKAGE_MEMBERS = 5;
const CANDIDATE_TERMS = 120;
/** A term is absorbed by a longer term containing it that occurs at least this share as often. */
const ABSORB = 0.5;
const MAX_TERM_WORDS = 4;
const MIN_TOPICS = 3;
const KEYWORDS_PER_TOPIC = 10;
const EVIDENCE_PER_TOPIC = 3;
/** A phrase holding a lone-noun label takes it when said this share as often and closer in meaning. */
const PHRASE_SHARE = 0.25;
/** Below this many mind words a term needs 2 occurrences, else 3. */
const SHORT_SPEECH_WORDS = 1500;

interface Chunk {
  turn: PreparedTurn;
  firstSentence: number;
  lastSentence: number;
  words: number;
  /** Term key → occurrences in this chunk. */
  terms: Map<string, number>;
  valence: { positive: number; negative: number };
  /** GloVe-SIF vector of the chunk's text (unit length, or zero). */
  vector: Float32Array;
}

interface Term {
  key: string;
  /** Lemma of every word: what containment is tested on. */
  lemmas: string[];
  words: number;
  count: number;
  chunks: Set<number>;
  sentences: Set<string>;
  /** Written forms with counts: the label and keyword are the commonest. */
  surfaces: Map<string, number>;
  /** Lower-cased word forms seen, for the background frequency. */
  forms: Set<string>;
  keyness: number;
}

/** Topic count grows with the length of the speech: 3 for short, up to 15 for very long. */
export function topicBudget(mindWords: number): number {
  return Math.max(3, Math.min(15, Math.round(mindWords / 1500) + 3));
}

const FILLER_SET = new Set(FILLER_PHRASES);
const NOUNISH = new Set(['NOUN', 'PROPN']);
const ROMAN = /^[ivxlc]+$/;

/**
 * A word unit of a sentence: one word token, or a hyphenated compound written without spaces
 * ("trade-offs", "mid-market"), which counts as one word whose part of speech is its last part's.
 */
interface Unit {
  first: number;
  last: number;
  written: string;
  normal: string;
  lemma: string;
  pos: string;
  /** `normal` and `lemma` split into words (a compound has several). */
  normalWords: string[];
  lemmaWords: string[];
  /** Capitalised only because it opens the sentence (lower-cased in labels unless a proper noun). */
  sentenceStart: boolean;
}

function unitsOf(tk: TurnTokens, from: number, to: number): Unit[] {
  const units: Unit[] = [];
  for (let i = from; i < to; i++) {
    if (tk.type[i] !== 'word') {
      units.push({ first: i, last: i, written: tk.value[i]!, normal: tk.normal[i]!, lemma: tk.normal[i]!, pos: 'PUNCT', normalWords: [tk.normal[i]!], lemmaWords: [tk.normal[i]!], sentenceStart: false });
      continue;
    }
    let last = i;
    while (
      last + 2 < to && tk.value[last + 1] === '-' && !tk.spaceBefore[last + 1] && !tk.spaceBefore[last + 2] && tk.type[last + 2] === 'word'
    )
      last += 2;
    const written = tk.value.slice(i, last + 1).join('');
    // A compound's key is its parts as separate words, so "middle-class" and "middle class" are one term.
    // (wink keeps some compounds as one token: "e-mails", "anti-war".)
    const parts = tk.normal.slice(i, last + 1).filter((p) => p !== '-').flatMap((p) => p.split('-')).filter(Boolean);
    const lastLemma = tk.lemma[last]!.toLowerCase().split('-').filter(Boolean);
    const lemmaWords = [...parts.slice(0, parts.length - 1), lastLemma[lastLemma.length - 1] ?? parts[parts.length - 1]!];
    units.push({
      first: i,
      last,
      written,
      normal: parts.join(' '),
      lemma: lemmaWords.join(' '),
      normalWords: parts,
      lemmaWords,
      pos: last > i && tk.pos[last] === 'VERB' ? 'NOUN' : tk.pos[last]!,
      sentenceStart: i === from,
    });
    i = last;
  }
  return units;
}

function isContent(u: Unit, excluded: Set<string>): boolean {
  if (u.pos !== 'NOUN' && u.pos !== 'PROPN' && u.pos !== 'ADJ') return false;
  // Two-letter words count only as acronyms written in capitals (AI, EU).
  const acronym = u.normal.length === 2 && /^[A-Z]{2}$/.test(u.written);
  if ((u.normal.length < 3 && !acronym) || !/^[a-z][a-z. ]*[a-z]$|^[a-z]{2}$/.test(u.normal)) return false;
  if (STOPWORDS.has(u.normal) || STOPWORDS.has(u.lemma)) return false;
  // A compound led by a number is a measure ("four-year", "two-minute"), not a subject.
  if (u.normalWords.length > 1 && NUMBER_WORDS.has(u.normalWords[0]!)) return false;
  return !u.normalWords.some((p) => excluded.has(p));
}

/** A capitalised proper noun right after another one continues a name even if it is a common word ("Milky Way"). */
function continuesName(prev: Unit, u: Unit, excluded: Set<string>): boolean {
  const named = (x: Unit): boolean => x.pos === 'PROPN' && /^[A-Z]/.test(x.written);
  return named(prev) && named(u) && /^[a-z][a-z ]*$/.test(u.normal) && !u.normalWords.some((p) => excluded.has(p));
}

/** Written form of a unit in a label: capitals kept for proper nouns, acronyms and mid-sentence capitals. */
function writtenForm(u: Unit): string {
  if (u.pos === 'PROPN' || /^[A-Z]{2,}$/.test(u.written)) return u.written;
  if (u.sentenceStart || u.written === u.written.toUpperCase()) return u.written.toLowerCase();
  return u.written;
}

/** Name parts of everyone who speaks (and their possessives): people are not topics. */
function speakerNameParts(turns: AnalysisTurn[]): Set<string> {
  const parts = new Set<string>();
  for (const t of turns) for (const p of t.speaker.toLowerCase().split(/[^a-z]+/)) if (p.length >= 2) parts.add(p);
  return parts;
}

/** A term occurrence found in a sentence. */
interface Found {
  key: string;
  words: number;
  lemmas: string[];
  surface: string;
  forms: string[];
}

/** The candidate terms of one sentence (tokens `from`…`to`). */
/** A phrase's key and what is recorded with it: the words before the last as written (lower-cased), the last by lemma. */
function phraseOf(parts: Unit[]): Omit<Found, 'surface'> & { phrase: string } {
  const phrase = parts.map((u, k) => (k === parts.length - 1 ? u.lemma : u.normal)).join(' ');
  const lemmas = parts.length === 1 ? parts[0]!.lemmaWords : parts.flatMap((u) => u.lemmaWords);
  return { key: `${lemmas.length}|${phrase}`, phrase, words: lemmas.length, lemmas, forms: parts.length === 1 ? parts[0]!.normalWords : parts.flatMap((u) => u.normalWords) };
}

function termsOfSentence(tk: TurnTokens, units: Unit[], excluded: Set<string>): Found[] {
  const found: Found[] = [];
  let runStart = 0;
  for (let i = 0; i <= units.length; i++) {
    if (i < units.length && (isContent(units[i]!, excluded) || (i > runStart && continuesName(units[i - 1]!, units[i]!, excluded)))) continue;
    let end = i; // exclusive
    const run = units.slice(runStart, end);
    // An adjective alone after a determiner or possessive is used as a noun ("our military").
    if (run.length === 1 && run[0]!.pos === 'ADJ' && runStart > 0 && (tk.pos[units[runStart - 1]!.last] === 'DET' || tk.pos[units[runStart - 1]!.last] === 'PRON')) {
      const u = run[0]!;
      const words = u.normalWords;
      if (!GENERIC_NOUNS.has(u.normal)) found.push({ key: `${words.length}|${u.normal}`, words: words.length, lemmas: words, surface: writtenForm(u), forms: words });
    }
    while (end > runStart && units[end - 1]!.pos === 'ADJ') end--;
    for (let a = runStart; a < end; a++)
      for (let n = 1; n <= MAX_TERM_WORDS && a + n <= end; n++) {
        const parts = units.slice(a, a + n);
        const last = parts[n - 1]!;
        if (!NOUNISH.has(last.pos)) continue;
        if (n === 1 && (GENERIC_NOUNS.has(last.lemma) || GENERIC_NOUNS.has(last.normal) || STOPWORDS.has(last.normal) || ROMAN.test(last.normal))) continue;
        // "good Obama", "great Neuralink": an adjective before a lone proper noun is not part of its name.
        if (n === 2 && parts[0]!.pos === 'ADJ' && last.pos === 'PROPN') continue;
        const p = phraseOf(parts);
        if (FILLER_SET.has(p.phrase)) continue;
        found.push({ key: p.key, words: p.words, lemmas: p.lemmas, surface: parts.map(writtenForm).join(' '), forms: p.forms });
      }
    runStart = i + 1;
  }
  return found;
}

interface SentenceRef {
  chunk: number;
  turn: PreparedTurn;
  index: number;
  units: Unit[];
  terms: Map<string, number>;
  words: number;
}

function record(terms: Map<string, Term>, f: Found, chunk: Chunk, ref: SentenceRef): void {
  let t = terms.get(f.key);
  if (!t) {
    t = { key: f.key, lemmas: f.lemmas, words: f.words, count: 0, chunks: new Set(), sentences: new Set(), surfaces: new Map(), forms: new Set(), keyness: 0 };
    terms.set(f.key, t);
  }
  t.count++;
  t.chunks.add(ref.chunk);
  t.sentences.add(`${ref.chunk}:${ref.index}`);
  t.surfaces.set(f.surface, (t.surfaces.get(f.surface) ?? 0) + 1);
  for (const w of f.forms) t.forms.add(w);
  chunk.terms.set(f.key, (chunk.terms.get(f.key) ?? 0) + 1);
  ref.terms.set(f.key, (ref.terms.get(f.key) ?? 0) + 1);
}

/**
 * A phrase the tagger split once ("Prompt injection" with "Prompt" read as a verb) still occurs
 * there: count every run of words matching a phrase already found, whatever their tags, so a
 * phrase's count (and the absorption of its parts) reflects what was said.
 */
function countPhrasesAgain(terms: Map<string, Term>, chunks: Chunk[], sentences: SentenceRef[], excluded: Set<string>): void {
  // Only runs starting with the first word of some phrase can match.
  const starts = new Set<string>();
  for (const t of terms.values()) if (t.words > 1) starts.add(t.key.slice(t.key.indexOf('|') + 1).split(' ')[0]!);
  const usable = (u: Unit): boolean => u.pos !== 'PUNCT' && !u.normalWords.some((w) => excluded.has(w));
  for (const ref of sentences) {
    const seen = new Map<string, Found[]>();
    const units = ref.units;
    for (let a = 0; a < units.length; a++) {
      if (!starts.has(units[a]!.normalWords[0]!) || !usable(units[a]!)) continue;
      for (let n = 2; n <= MAX_TERM_WORDS && a + n <= units.length; n++) {
        if (!usable(units[a + n - 1]!)) break;
        const parts = units.slice(a, a + n);
        const p = phraseOf(parts);
        const t = terms.get(p.key);
        if (!t || t.words < 2) continue;
        const list = seen.get(p.key) ?? [];
        list.push({ ...p, surface: parts.map(writtenForm).join(' ') });
        seen.set(p.key, list);
      }
    }
    for (const [key, found] of seen) for (const f of found.slice(ref.terms.get(key) ?? 0)) record(terms, f, chunks[ref.chunk]!, ref);
  }
}

function chunkTurns(turns: PreparedTurn[], chunkWords: number, excluded: Set<string>, terms: Map<string, Term>, sentences: SentenceRef[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const turn of turns) {
    const tk = turn.tokens;
    const ss = tk.sentences;
    let start = 0;
    while (start < ss.length) {
      let end = start;
      let words = 0;
      for (; end < ss.length; end++) {
        words += ss[end]!.tokenEnd - ss[end]!.tokenStart;
        if (words >= chunkWords) break;
      }
      end = Math.min(end, ss.length - 1);
      // A short remainder joins this chunk rather than standing alone.
      if (ss.length - 1 - end <= 1) end = ss.length - 1;
      const ci = chunks.length;
      const text = tk.sentences.slice(start, end + 1).map((x) => x.text).join(' ');
      const chunk: Chunk = { turn, firstSentence: start, lastSentence: end, words: 0, terms: new Map(), valence: { positive: 0, negative: 0 }, vector: analysisVectors().embedOne(text) };
      for (let si = start; si <= end; si++) {
        const s = ss[si]!;
        const ref: SentenceRef = { chunk: ci, turn, index: si, units: unitsOf(tk, s.tokenStart, s.tokenEnd), terms: new Map(), words: 0 };
        for (let i = s.tokenStart; i < s.tokenEnd; i++) {
          if (tk.type[i] !== 'word') continue;
          ref.words++;
          const v = VALENCE[tk.normal[i]!];
          if (v !== undefined) {
            const signed = tk.negated[i] ? -v : v;
            if (signed > 0) chunk.valence.positive += signed;
            else chunk.valence.negative -= signed;
          }
        }
        chunk.words += ref.words;
        for (const f of termsOfSentence(tk, ref.units, excluded)) record(terms, f, chunk, ref);
        sentences.push(ref);
      }
      chunks.push(chunk);
      start = end + 1;
    }
  }
  return chunks;
}

/**
 * Every passage of one speaker shares their voice (words, register), so raw sentence vectors of
 * one speech are all alike (cosine 0.75–0.9). What a passage is about is what sets it apart from
 * the speaker's other passages: each chunk's vector minus the speech's mean, renormalised.
 */
function centreVectors(chunks: Chunk[]): void {
  if (chunks.length === 0) return;
  const d = chunks[0]!.vector.length;
  const mean = new Float32Array(d);
  for (const c of chunks) for (let i = 0; i < d; i++) mean[i]! += c.vector[i]! / chunks.length;
  for (const c of chunks) {
    const v = new Float32Array(d);
    for (let i = 0; i < d; i++) v[i] = c.vector[i]! - mean[i]!;
    c.vector = meanVector([v], d);
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

interface Group {
  terms: Term[];
  chunks: Set<number>;
}

const isBroad = (t: Term): boolean => t.words === 1 && BROAD_NOUNS.has(t.lemmas[0]!);

/**
 * Mean co-occurrence of `t` with the group's strongest members; 0 unless `t` shares at least
 * MIN_SHARED_CHUNKS chunks with them (one coincidence is not a connection).
 */
function linkage(t: Term, g: Group): number {
  const members = g.terms.slice(0, LINKAGE_MEMBERS);
  let shared = 0;
  for (const c of t.chunks) if (members.some((m) => m.chunks.has(c))) shared++;
  // It must also meet the topic's seed term, or topics chain (Supreme Court → election → Putin).
  // A broad seed ("reforms", "government") is said of unrelated subjects (Wall Street reform,
  // education reform), so the first member that is not broad must be met as well.
  if (shared < MIN_SHARED_CHUNKS || cosine(t.chunks, members[0]!.chunks) === 0) return 0;
  const anchor = isBroad(members[0]!) ? members.find((m) => !isBroad(m)) : undefined;
  if (anchor && cosine(t.chunks, anchor.chunks) === 0) return 0;
  return members.reduce((s, m) => s + cosine(t.chunks, m.chunks), 0) / members.length;
}

/** Two words name the same thing when one is the other or a closed compound ending in it ("rainforest", "forest"). */
function sameHead(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.length - short.length >= 3 && long.endsWith(short);
}

const namingWords = (t: Term): string[] => t.lemmas.filter((w) => !GENERIC_NOUNS.has(w));

/**
 * Do two groups name the same thing: their seeds share a word ("tax breaks", "tax plan";
 * "Amazon", "Amazon rainforest"), or one's seed is a word of the other's strongest members
 * ("caiman" and a group holding "spectacled caiman")?
 */
function sharesHead(a: Group, b: Group): boolean {
  const meets = (seed: Term, other: Group): boolean =>
    other.terms.slice(0, 3).some((t) => namingWords(seed).some((x) => namingWords(t).some((y) => sameHead(x, y))));
  return meets(a.terms[0]!, b) || meets(b.terms[0]!, a);
}

function mergeGroups(groups: Group[]): Group[] {
  let merged = true;
  while (merged) {
    merged = false;
    outer: for (let a = 0; a < groups.length; a++)
      for (let b = a + 1; b < groups.length; b++) {
        const ga = groups[a]!;
        const gb = groups[b]!;
        if (!sharesHead(ga, gb) && cosine(ga.chunks, gb.chunks) < MERGE_SIMILARITY) continue;
        ga.terms.push(...gb.terms);
        ga.terms.sort((x, y) => y.keyness - x.keyness || (x.key < y.key ? -1 : 1));
        for (const c of gb.chunks) ga.chunks.add(c);
        groups.splice(b, 1);
        merged = true;
        break outer;
      }
  }
  return groups;
}

/** Topics whose passages read alike (centred GloVe-SIF mean, cosine ≥ this) … */
const MEANING_MERGE = 0.6;
/** … and whose seeds mean nearly the same thing (their own vectors' cosine ≥ this) are one subject. */
const SEED_MERGE = 0.55;

/**
 * Grouping by meaning, which co-occurrence cannot see: two topics are one subject when what is
 * said in their passages is alike (their chunks' centred sentence vectors point the same way) and
 * their seed terms are near-synonyms for GloVe ("relationship" / "friendship", "jungle" /
 * "rainforest"). Both are required: passages alike alone joins any two subjects a person
 * discusses in the same register, and similar words alone joins "China" and "Russia".
 */
function mergeByMeaning(groups: Group[], chunks: Chunk[]): Group[] {
  const vectors = analysisVectors();
  const centres = new Map<Group, Float32Array>();
  const seeds = new Map<Group, Float32Array>();
  const centreOf = (g: Group): Float32Array => {
    let c = centres.get(g);
    if (!c) centres.set(g, (c = meanVector([...g.chunks].map((ci) => chunks[ci]!.vector), vectors.dimensions)));
    return c;
  };
  const seedOf = (g: Group): Float32Array => {
    let v = seeds.get(g);
    if (!v) seeds.set(g, (v = vectors.embedOne(mostCommon(g.terms[0]!.surfaces))));
    return v;
  };
  let merged = true;
  while (merged) {
    merged = false;
    outer: for (let a = 0; a < groups.length; a++)
      for (let b = a + 1; b < groups.length; b++) {
        const ga = groups[a]!;
        const gb = groups[b]!;
        // A broad seed ("revenue", "reforms") stands for whatever was said around it, not for one meaning.
        if (isBroad(ga.terms[0]!) || isBroad(gb.terms[0]!)) continue;
        if (cosineOf(centreOf(ga), centreOf(gb)) < MEANING_MERGE || cosineOf(seedOf(ga), seedOf(gb)) < SEED_MERGE) continue;
        ga.terms.push(...gb.terms);
        ga.terms.sort((x, y) => y.keyness - x.keyness || (x.key < y.key ? -1 : 1));
        for (const c of gb.chunks) ga.chunks.add(c);
        groups.splice(b, 1);
        centres.delete(ga);
        seeds.delete(ga);
        merged = true;
        break outer;
      }
  }
  return groups;
}

/** Each chunk goes to the topic whose terms it mentions most (a tie to the narrower topic). */
function assignChunks(chunks: Chunk[], groups: Group[]): Map<Group, number[]> {
  const assigned = new Map<Group, number[]>();
  chunks.forEach((c, ci) => {
    let best: Group | undefined;
    let bestScore = 0;
    for (const g of groups) {
      let s = 0;
      for (const t of g.terms) s += c.terms.get(t.key) ?? 0;
      if (s > bestScore || (s === bestScore && s > 0 && best && g.terms.length < best.terms.length)) {
        bestScore = s;
        best = g;
      }
    }
    if (best) {
      const list = assigned.get(best);
      if (list) list.push(ci);
      else assigned.set(best, [ci]);
    }
  });
  return assigned;
}

/**
 * At least MIN_TOPICS topics when there is the material: while fewer topics hold chunks, a
 * member of a larger topic that does not share a word with its seed, and that would hold a chunk
 * on its own, becomes a topic. A speech with fewer distinct key terms gets fewer topics.
 */
function assignWithMinimum(chunks: Chunk[], groups: Group[]): Map<Group, number[]> {
  let assigned = assignChunks(chunks, groups);
  while (assigned.size < MIN_TOPICS) {
    let split = false;
    for (const donor of [...assigned.keys()].sort((a, b) => b.terms.length - a.terms.length)) {
      const seed = donor.terms[0]!;
      const at = donor.terms.findIndex(
        (t, i) => i > 0 && !namingWords(t).some((x) => namingWords(seed).some((y) => sameHead(x, y))) &&
          [...t.chunks].some((ci) => 2 * (chunks[ci]!.terms.get(t.key) ?? 0) >= donor.terms.reduce((s, m) => s + (chunks[ci]!.terms.get(m.key) ?? 0), 0)),
      );
      if (at < 0) continue;
      const [t] = donor.terms.splice(at, 1);
      donor.chunks = new Set(donor.terms.flatMap((m) => [...m.chunks]));
      groups.push({ terms: [t!], chunks: new Set(t!.chunks) });
      split = true;
      break;
    }
    if (!split) break;
    assigned = assignChunks(chunks, groups);
  }
  return assigned;
}

/** Each member's weight in its topic: keyness × (1 + its mean co-occurrence with the others). */
function centrality(g: Group): Map<Term, number> {
  const w = new Map<Term, number>();
  for (const t of g.terms) {
    const others = g.terms.filter((o) => o !== t);
    const link = others.length ? others.reduce((s, o) => s + cosine(t.chunks, o.chunks), 0) / others.length : 0;
    w.set(t, t.keyness * (1 + link));
  }
  return w;
}

export function extractTopics(mindTurns: PreparedTurn[], allTurns: AnalysisTurn[], mindWords: number): KeyTopicResult[] {
  const excluded = speakerNameParts(allTurns);
  const terms = new Map<string, Term>();
  const sentences: SentenceRef[] = [];
  const short = mindWords < SHORT_SPEECH_WORDS;
  const chunks = chunkTurns(mindTurns, short ? SHORT_CHUNK_WORDS : CHUNK_WORDS, excluded, terms, sentences);
  countPhrasesAgain(terms, chunks, sentences, excluded);
  centreVectors(chunks);
  const background = loadBackground();
  const totalTokens = chunks.reduce((s, c) => s + c.words, 0);
  const minCount = short ? 2 : 3;

  // Frequent enough: phrases twice, single words minCount times, in two sentences.
  const frequent = [...terms.values()].filter((t) => t.count >= (t.words > 1 ? 2 : minCount) && t.sentences.size >= 2);
  // Absorption: a term mostly said inside a longer frequent term is that term.
  const byWord = new Map<string, Term[]>();
  for (const o of frequent) if (o.words > 1) for (const w of new Set(o.lemmas)) byWord.set(w, [...(byWord.get(w) ?? []), o]);
  const absorbed = new Set<Term>();
  for (const t of frequent) {
    const hosts = byWord.get(t.lemmas[0]!) ?? [];
    if (hosts.some((o) => o.words > t.words && o.count >= ABSORB * t.count && containsWords(o.lemmas, t.lemmas))) absorbed.add(t);
  }
  for (const t of frequent) {
    if (absorbed.has(t)) continue;
    // Background count: a phrase's rarest word bounds how often the phrase can occur.
    const bg = t.words === 1
      ? [...t.forms].reduce((s, f) => s + (background.counts[f] ?? 0), 0)
      : Math.min(...t.key.slice(2).split(' ').map((w) => background.counts[w] ?? 0));
    const expectedRate = bg / background.totalWords;
    if (t.count / totalTokens <= expectedRate) continue;
    // Phrases get a bonus: they name a subject more precisely than their head noun.
    t.keyness = logLikelihood(t.count, totalTokens, bg, background.totalWords) * (t.words > 1 ? 1.5 : 1);
  }
  const ranked = frequent
    .filter((t) => t.keyness > 0 && !absorbed.has(t))
    .sort((a, b) => b.keyness - a.keyness || (a.key < b.key ? -1 : 1))
    .slice(0, CANDIDATE_TERMS);

  // Greedy grouping by co-occurrence with each topic's strongest members.
  const budget = topicBudget(mindWords);
  let groups: Group[] = [];
  for (const t of ranked) {
    let best = -1;
    let bestSim = JOIN_SIMILARITY;
    groups.forEach((g, gi) => {
      const sim = linkage(t, g);
      if (sim >= bestSim) {
        bestSim = sim;
        best = gi;
      }
    });
    if (best >= 0) {
      const g = groups[best]!;
      g.terms.push(t);
      for (const c of t.chunks) g.chunks.add(c);
    } else if (groups.length < budget * 2) groups.push({ terms: [t], chunks: new Set(t.chunks) });
  }
  // A broad word that gathered nothing ("experience", "topic") is a word the person uses a lot,
  // not a subject.
  groups = mergeByMeaning(mergeGroups(groups), chunks).filter((g) => g.terms.length > 1 || !isBroad(g.terms[0]!));

  const assigned = assignWithMinimum(chunks, groups);
  const tokens = indexLabels(mindTurns.map((t) => t.tokens));
  const vectors = analysisVectors();

  const topics: (KeyTopicResult & { weight: number })[] = [];
  for (const g of groups) {
    const own = assigned.get(g) ?? [];
    if (own.length === 0) continue;
    const words = own.reduce((s, ci) => s + chunks[ci]!.words, 0);
    const pos = own.reduce((s, ci) => s + chunks[ci]!.valence.positive, 0);
    const neg = own.reduce((s, ci) => s + chunks[ci]!.valence.negative, 0);
    const weights = centrality(g);
    const members = [...g.terms].sort((a, b) => weights.get(b)! - weights.get(a)! || (a.key < b.key ? -1 : 1));
    const passages = (t: Term): number => own.reduce((n, ci) => n + (chunks[ci]!.terms.has(t.key) ? 1 : 0), 0);
    const centre = meanVector(own.map((ci) => chunks[ci]!.vector), vectors.dimensions);
    const chosen = labelOf(members.map((t) => ({ term: t, lemmas: t.lemmas, surface: mostCommon(t.surfaces), count: t.count, weight: weights.get(t)!, passages: passages(t) })), tokens, centre);
    if (!chosen) continue;
    const { term: labelTerm, surface: label } = chosen;
    // Keywords: the label, then members by weight (fragments of longer terms were absorbed before grouping).
    const keywords: string[] = [];
    const shown: Term[] = [];
    for (const t of [labelTerm, ...members.filter((m) => m !== labelTerm)]) {
      const s = t === labelTerm ? label : mostCommon(t.surfaces);
      if (s && !keywords.some((k) => k.toLowerCase() === s.toLowerCase())) {
        keywords.push(s);
        shown.push(t);
      }
      if (keywords.length >= KEYWORDS_PER_TOPIC) break;
    }
    topics.push({
      label,
      keywords,
      share: round(words / Math.max(1, totalTokens)),
      sentiment: round(pos + neg > 0 ? (pos - neg) / (pos + neg) : 0),
      evidence: topicEvidence(shown, labelTerm, sentences),
      weight: words,
    });
  }
  return topics
    .sort((a, b) => b.weight - a.weight || (a.label < b.label ? -1 : 1))
    .slice(0, budget)
    .map(({ weight: _weight, ...t }) => t);
}

interface LabelChoice extends LabelCandidate {
  term: Term;
}

/**
 * The label of a topic: a member that passes THE RULE (topic-labels.ts, `readerTopicFailure`: a
 * noun phrase of the person's own words that names something on its own and is not a fragment),
 * chosen by `chooseLabel` (the most specific member that still represents the topic). A member that
 * is a fragment of a longer name or phrase ("Amendment", "middle-income") stands for that longer
 * form when the person said it at least twice ("Second Amendment", "middle-income Americans").
 * Then the most representative phrase: a lone common noun gives way to a phrase of the topic that
 * holds it, is said in two of its passages and a quarter as often as the noun, and is at least as
 * close in meaning to the topic's passages (cosine of its GloVe-SIF vector with their centred mean).
 * Null when no member passes: nothing a reader would call a topic.
 */
function labelOf(members: LabelChoice[], tokens: LabelIndex, centre: Float32Array): LabelChoice | null {
  const passing: LabelChoice[] = [];
  // The label is among the members shown as keywords.
  for (const m of members.slice(0, KEYWORDS_PER_TOPIC)) {
    const failure = readerTopicFailure(m.surface, labelUses(m.surface, tokens));
    if (!failure) passing.push(m);
    else if (failure === 'whole') {
      const longer = [...longerForms(m.surface, tokens)]
        .filter(([form, n]) => n >= 2 && !readerTopicFailure(form, labelUses(form, tokens)))
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
      if (longer) passing.push({ ...m, surface: longer[0], lemmas: longer[0].toLowerCase().split(/[\s-]+/) });
    }
  }
  if (passing.length === 0) return null;
  const chosen = chooseLabel(passing);
  if (chosen.lemmas.length > 1 || /\p{Lu}/u.test(chosen.surface)) return chosen;
  const vectors = analysisVectors();
  const closeness = (c: LabelChoice): number => cosineOf(vectors.embedOne(c.surface), centre);
  const own = closeness(chosen);
  const phrase = passing
    .filter((c) => c.lemmas.length > 1 && containsWords(c.lemmas, chosen.lemmas) && c.passages >= 2 && c.count >= PHRASE_SHARE * chosen.count && closeness(c) >= own)
    .sort((a, b) => b.count - a.count || (a.surface < b.surface ? -1 : 1))[0];
  return phrase ?? chosen;
}

/**
 * The whole sentences densest in the topic's label and keywords (each counted once per sentence,
 * the label double), one per turn, that fit in a quote.
 */
function topicEvidence(shown: Term[], labelTerm: Term, sentences: SentenceRef[]): EvidenceRef[] {
  const keys = new Set(shown.map((t) => t.key));
  const scored: { s: SentenceRef; score: number; order: number }[] = [];
  sentences.forEach((s, order) => {
    let hits = 0;
    for (const k of s.terms.keys()) if (keys.has(k)) hits += k === labelTerm.key ? 2 : 1;
    if (hits === 0 || s.words < 6) return;
    const text = s.turn.tokens.sentences[s.index]!.text.trim();
    if (text.length > MAX_QUOTE_CHARS || text.endsWith('?')) return;
    scored.push({ s, score: hits / Math.max(12, s.words), order });
  });
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  const out: EvidenceRef[] = [];
  const turns = new Set<PreparedTurn>();
  for (const { s } of scored) {
    if (turns.has(s.turn)) continue;
    turns.add(s.turn);
    out.push({ turnId: s.turn.turn.turnId, quote: s.turn.tokens.sentences[s.index]!.text.trim(), startMs: s.turn.turn.startMs });
    if (out.length >= EVIDENCE_PER_TOPIC) break;
  }
  return out;
}
