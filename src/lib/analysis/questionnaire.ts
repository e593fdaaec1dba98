/**
 * Questionnaire psychometrics: a public-domain inventory (instruments/ipip-bfm-50.json, the
 * 50-item IPIP Big-Five Factor Markers) answered item by item, scored with its published key.
 * Pure: the answers come from elsewhere (src/engines/llm/questionnaire.ts has an LLM answer in
 * character); this module reads them robustly, scores them and writes the psychometric rows.
 *
 * Scoring, as the IPIP key says: answers 1–5 (Very Inaccurate … Very Accurate); a "+" keyed item
 * counts as answered, a "−" keyed item as 6 − answer; a factor's score is the mean of its keyed
 * items, here mapped to 0..1 ((mean − 1) / 4). A factor the published key names the other way
 * round from the text model's trait (Emotional Stability vs neuroticism) is reported reflected.
 */
import { readFileSync } from 'node:fs';
import type { EvidenceRef, PsychometricResult } from './types.ts';

export interface QuestionnaireFactor {
  /** The published factor's code (I … V). */
  code: string;
  /** The published factor's name (Emotional Stability, Intellect/Imagination, …). */
  label: string;
  /** The row name it is reported under: the text model's trait name (big_five), so the two sit side by side. */
  reportedAs: string;
  /** Reported as 6 − the published factor's mean (Emotional Stability → neuroticism). */
  reflected: boolean;
}

export interface QuestionnaireItem {
  /** The published item number (order of administration). */
  n: number;
  factor: string;
  key: '+' | '-';
  text: string;
}

export interface Instrument {
  /** The psychometric rows' `instrument`. */
  id: string;
  name: string;
  citation: string;
  source: string;
  licence: string;
  /** The published instructions to the respondent. */
  instructions: string;
  /** Labels of the answers 1 … 5. */
  anchors: string[];
  factors: QuestionnaireFactor[];
  items: QuestionnaireItem[];
}

export const IPIP_BFM_50_URL = new URL('./instruments/ipip-bfm-50.json', import.meta.url);

/** Reads an instrument file and checks it (checkInstrument). */
export function loadInstrument(url: URL = IPIP_BFM_50_URL): Instrument {
  const inst = JSON.parse(readFileSync(url, 'utf8')) as Instrument;
  checkInstrument(inst);
  return inst;
}

let bfm50: Instrument | null = null;
/** The 50-item IPIP Big-Five Factor Markers, read once. */
export function ipipBfm50(): Instrument {
  bfm50 ??= loadInstrument();
  return bfm50;
}

/**
 * Throws unless the instrument is well formed: items numbered 1…N once each, every item of a known
 * factor with a + or − key, every factor with items of both keys (so acquiescence can be checked),
 * five anchors.
 */
export function checkInstrument(inst: Instrument): void {
  const fail = (why: string): never => {
    throw new Error(`instrument ${inst.id ?? '?'}: ${why}`);
  };
  if (!Array.isArray(inst.anchors) || inst.anchors.length !== 5) fail('expected 5 answer anchors');
  const codes = new Set(inst.factors.map((f) => f.code));
  if (codes.size !== inst.factors.length) fail('duplicate factor codes');
  inst.items.forEach((item, i) => {
    if (item.n !== i + 1) fail(`item ${i + 1} is numbered ${item.n}`);
    if (!codes.has(item.factor)) fail(`item ${item.n} has unknown factor ${item.factor}`);
    if (item.key !== '+' && item.key !== '-') fail(`item ${item.n} has key ${String(item.key)}`);
    if (typeof item.text !== 'string' || item.text.trim() === '') fail(`item ${item.n} has no text`);
  });
  for (const f of inst.factors) {
    const own = inst.items.filter((i) => i.factor === f.code);
    if (!own.some((i) => i.key === '+') || !own.some((i) => i.key === '-')) fail(`factor ${f.code} needs items of both keys`);
  }
}

/** The id an item goes by in a prompt and in an answer ("Q7"). */
export const itemId = (n: number): string => `Q${n}`;

export type ItemAnswer =
  | { n: number; status: 'answered'; value: number; /** 1-based number of the excerpt the answer rests on, if given. */ excerpt: number | null }
  | { n: number; status: 'refused' }
  | { n: number; status: 'unparseable'; /** What came back instead (cut), or "missing". */ raw: string };

/** Answers that mean "I cannot say": counted as refused, not as a 3. */
const REFUSALS = /^(null|none|n\/?a|refused?|skip(ped)?|unknown|cannot say|can'?t say|no basis|not sure|-)?$/i;

/** The item number an answer names: 7, "7", "Q7", "q7", "#7", "item 7". */
function itemNumber(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v !== 'string') return null;
  const m = /^\s*(?:item\s*|q\s*|#\s*)?(\d{1,3})\s*$/i.exec(v);
  return m ? Number(m[1]) : null;
}

/** An answer value: 1–5, a digit string, or one of the anchors (case-insensitive). */
function answerValue(v: unknown, anchors: string[]): { value: number } | 'refused' | 'unparseable' {
  if (v === null || v === undefined) return 'refused';
  if (typeof v === 'number') return Number.isInteger(v) && v >= 1 && v <= 5 ? { value: v } : 'unparseable';
  if (typeof v !== 'string') return 'unparseable';
  const s = v.trim();
  if (REFUSALS.test(s)) return 'refused';
  if (/^[1-5]$/.test(s)) return { value: Number(s) };
  const lead = /^([1-5])\s*[-–—:=.)]\s*\S/.exec(s); // "4 - Moderately Accurate"
  if (lead) return { value: Number(lead[1]) };
  const i = anchors.findIndex((a) => a.toLowerCase() === s.toLowerCase().replace(/\s+/g, ' '));
  return i >= 0 ? { value: i + 1 } : 'unparseable';
}

/** The first JSON value in a model's text: the whole text, a ```json fence, or the outermost {…} / […]. */
function jsonIn(text: string): unknown {
  const candidates = [text, /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1]];
  const brace = text.indexOf('{');
  if (brace >= 0) candidates.push(text.slice(brace, text.lastIndexOf('}') + 1));
  const bracket = text.indexOf('[');
  if (bracket >= 0) candidates.push(text.slice(bracket, text.lastIndexOf(']') + 1));
  for (const c of candidates) {
    if (!c?.trim()) continue;
    try {
      return JSON.parse(c);
    } catch {
      // next candidate
    }
  }
  return undefined;
}

const clip = (s: string, max = 60): string => (s.length > max ? `${s.slice(0, max)}…` : s);

/**
 * Reads a respondent's answers to `items` (item numbers) from whatever came back: a parsed object
 * or the raw text. Accepted shapes: {answers: [{item, answer, excerpt?}]}, a bare array of such
 * entries, or an object from item id to answer ({"Q1": 4}); entry keys item|id|n|number and
 * answer|value|rating|score. Every asked item gets exactly one result: an item answered twice
 * with different values, out of range (0, 6, 3.5), in words that are no anchor, or missing is
 * unparseable; null or "cannot say" is refused. Items not asked are ignored.
 */
export function parseAnswers(raw: unknown, items: readonly number[], anchors: string[]): ItemAnswer[] {
  const value = typeof raw === 'string' ? jsonIn(raw) : raw;
  const asked = new Set(items);
  const entries: { n: number; answer: unknown; excerpt: unknown }[] = [];
  const list = Array.isArray(value) ? value : value && typeof value === 'object' ? (value as Record<string, unknown>).answers : undefined;
  if (Array.isArray(list)) {
    for (const e of list) {
      if (!e || typeof e !== 'object') continue;
      const o = e as Record<string, unknown>;
      const n = itemNumber(o.item ?? o.id ?? o.n ?? o.number);
      const answerKey = ['answer', 'value', 'rating', 'score'].find((k) => k in o);
      if (n !== null) entries.push({ n, answer: answerKey ? o[answerKey] : undefined, excerpt: o.excerpt });
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const n = itemNumber(k);
      if (n !== null) entries.push({ n, answer: v, excerpt: null });
    }
  }
  const seen = new Map<number, ItemAnswer>();
  const conflicting = new Set<number>();
  for (const e of entries) {
    if (!asked.has(e.n)) continue;
    // An entry with no answer key at all is a malformed entry, not a refusal.
    const parsed = e.answer === undefined ? 'unparseable' : answerValue(e.answer, anchors);
    const excerpt = itemNumber(e.excerpt);
    const result: ItemAnswer =
      parsed === 'refused'
        ? { n: e.n, status: 'refused' }
        : parsed === 'unparseable'
          ? { n: e.n, status: 'unparseable', raw: clip(JSON.stringify(e.answer) ?? 'no answer') }
          : { n: e.n, status: 'answered', value: parsed.value, excerpt: excerpt !== null && excerpt >= 1 ? excerpt : null };
    const before = seen.get(e.n);
    if (!before) seen.set(e.n, result);
    else if (JSON.stringify({ ...before, excerpt: null }) !== JSON.stringify({ ...result, excerpt: null })) conflicting.add(e.n);
  }
  return items.map((n) => {
    if (conflicting.has(n)) return { n, status: 'unparseable', raw: 'answered twice, differently' };
    return seen.get(n) ?? { n, status: 'unparseable', raw: value === undefined ? 'no JSON in the reply' : 'missing' };
  });
}

/** A factor is scored only when at least this share of its items is answered… */
export const MIN_ANSWERED_SHARE = 0.7;

export interface ScoredItem {
  n: number;
  key: '+' | '-';
  text: string;
  answer: ItemAnswer;
  /** The answer through the key (6 − x for a − keyed item); null unless answered. */
  keyed: number | null;
}

export interface FactorScore {
  factor: QuestionnaireFactor;
  /** 0..1, toward `reportedAs`; null when abstaining. */
  score: number | null;
  /** The published factor's mean of keyed answers (1–5), before any reflection; null when abstaining. */
  publishedMean: number | null;
  answered: number;
  refused: number;
  unparseable: number;
  items: ScoredItem[];
  /** Why no score, or null. */
  abstained: string | null;
}

/**
 * Scores every factor with the published key. A factor abstains unless ≥ 70 % of its items are
 * answered and among them at least one of each key direction: a mean of only "+" items would
 * mistake a respondent who agrees with everything (acquiescence) for a high scorer.
 */
export function scoreQuestionnaire(inst: Instrument, answers: readonly ItemAnswer[]): FactorScore[] {
  const byItem = new Map(answers.map((a) => [a.n, a]));
  return inst.factors.map((factor) => {
    const items: ScoredItem[] = inst.items
      .filter((i) => i.factor === factor.code)
      .map((i) => {
        const answer = byItem.get(i.n) ?? { n: i.n, status: 'unparseable', raw: 'missing' };
        const keyed = answer.status === 'answered' ? (i.key === '+' ? answer.value : 6 - answer.value) : null;
        return { n: i.n, key: i.key, text: i.text, answer, keyed };
      });
    const count = (s: ItemAnswer['status']) => items.filter((i) => i.answer.status === s).length;
    const answered = count('answered');
    const needed = Math.ceil(MIN_ANSWERED_SHARE * items.length);
    const bothKeys = (['+', '-'] as const).every((k) => items.some((i) => i.key === k && i.keyed !== null));
    const abstained =
      answered < needed
        ? `only ${answered} of ${items.length} items answered (${needed} needed)`
        : !bothKeys
          ? 'the answered items are all keyed the same way, so agreeing with everything cannot be told from the trait'
          : null;
    const keyedValues = items.flatMap((i) => (i.keyed === null ? [] : [i.keyed]));
    const publishedMean = abstained ? null : keyedValues.reduce((a, b) => a + b, 0) / keyedValues.length;
    const reported = publishedMean === null ? null : factor.reflected ? 6 - publishedMean : publishedMean;
    return {
      factor,
      score: reported === null ? null : round((reported - 1) / 4),
      publishedMean: publishedMean === null ? null : round(publishedMean),
      answered,
      refused: count('refused'),
      unparseable: count('unparseable'),
      items,
      abstained,
    };
  });
}

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Words of material at which confidence reaches half its ceiling: the text model's saturation (big-five.ts), so the two grow alike. */
export const HALF_CONFIDENCE_WORDS = 600;

/** Who answered, from what: for the notes. */
export interface Administration {
  /** E.g. "gpt-4o-mini role-playing Ada Lovelace". */
  respondent: string;
  /** The excerpts the respondent was shown (index 0 is excerpt 1): cited answers become evidence. */
  excerpts: EvidenceRef[];
  /** Words of the person's own turns in those excerpts. */
  materialWords: number;
}

const MAX_EVIDENCE = 3;

/**
 * The psychometric rows of a scored administration: one per factor, instrument `inst.id`, name
 * the reported trait. Confidence = answered share × words / (words + 600): completeness of the
 * answers and the amount of the person's speech they rest on — it says nothing about whether a
 * role-played answer is what the person would answer (no validation of that exists here). The
 * note lists every item with its key and answer, so the score can be audited by hand.
 */
export function questionnaireRows(inst: Instrument, scores: readonly FactorScore[], admin: Administration): PsychometricResult[] {
  const material = admin.materialWords / (admin.materialWords + HALF_CONFIDENCE_WORDS);
  return scores.map((f) => {
    const cited = new Map<number, number>();
    for (const i of f.items) if (i.answer.status === 'answered' && i.answer.excerpt !== null && admin.excerpts[i.answer.excerpt - 1]) cited.set(i.answer.excerpt, (cited.get(i.answer.excerpt) ?? 0) + 1);
    const evidence = [...cited.entries()]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, MAX_EVIDENCE)
      .map(([x]) => admin.excerpts[x - 1]!);
    return {
      instrument: inst.id,
      name: f.factor.reportedAs,
      score: f.score,
      percentile: null,
      confidence: f.score === null ? 0 : round((f.answered / f.items.length) * material),
      evidence,
      note: factorNote(inst, f, admin),
    };
  });
}

/** Rows that say why the questionnaire could not be given (no words, the provider refused…): no scores. */
export function notAdministeredRows(inst: Instrument, reason: string): PsychometricResult[] {
  return inst.factors.map((f) => ({
    instrument: inst.id,
    name: f.reportedAs,
    score: null,
    percentile: null,
    confidence: 0,
    evidence: [],
    note: `${inst.name}: not administered. ${reason}`,
  }));
}

/**
 * How far to trust a questionnaire factor pooled over a mind's snapshots (the profile): what it is,
 * what it rests on, and what no one has checked.
 */
export function pooledQuestionnaireNote(inst: Instrument, scoredSnapshots: number, words: number, snapshotsWithRows: number): string {
  if (scoredSnapshots === 0) {
    const where = snapshotsWithRows === 1 ? 'the one snapshot that has its rows' : `any of the ${snapshotsWithRows} snapshots that have its rows`;
    return `${inst.name}: no score in ${where} (each snapshot's row says why).`;
  }
  const over = scoredSnapshots === 1 ? 'one snapshot' : `${scoredSnapshots} snapshots (each weighted by its words, recency and confidence)`;
  return (
    `Questionnaire, not text analysis: a language model answered the ${inst.name} in character from the person's own words, ` +
    `scored with the published key; the mean of ${over}, resting on ${words.toLocaleString('en-US')} words. ` +
    `Score (mean − 1) / 4 on the 1–5 scale; no percentile (there are no norms for role-played answers). ` +
    `These are a model's answers on the person's behalf: nothing here has checked them against the person's own answers. ` +
    `Each snapshot's row lists every item's answer.`
  );
}

function factorNote(inst: Instrument, f: FactorScore, admin: Administration): string {
  const published = f.factor.reflected ? `Published factor ${f.factor.code} ${f.factor.label}, reported reflected (6 − mean) as ${f.factor.reportedAs}` : `Published factor ${f.factor.code} ${f.factor.label}`;
  const head =
    `Questionnaire, not text analysis: ${admin.respondent} answered the ${inst.name} in character, from ${admin.excerpts.length} ` +
    `excerpt${admin.excerpts.length === 1 ? '' : 's'} (${admin.materialWords.toLocaleString('en-US')} words) of the person's speech in this snapshot. ` +
    `These are a language model's answers on the person's behalf, not the person's own. ${published}.`;
  const tally = `${f.answered} of ${f.items.length} items answered (${f.refused} refused, ${f.unparseable} unparseable).`;
  const result = f.abstained ? `No score: ${f.abstained}.` : `Mean ${f.publishedMean!.toFixed(2)} on the 1–5 scale → score (mean − 1) / 4.`;
  const items = f.items.map((i) => {
    const key = i.key === '+' ? '+' : '−';
    const a = i.answer;
    const given = a.status === 'answered' ? (i.key === '+' ? `${a.value}` : `${a.value}→${i.keyed}`) : a.status === 'refused' ? 'refused' : `unparseable (${a.raw})`;
    return `#${i.n} (${key}) "${i.text}" ${given}`;
  });
  return `${head} ${tally} ${result} Items (key, answer → keyed): ${items.join('; ')}.`;
}
