/**
 * A mind's profile across its snapshots: traits and style weighted by how much the person said
 * in each snapshot and how recent its mindsetDate is, the topics and findings that carry the most
 * weight, and each measure's trajectory over time (for charts of how the person has changed).
 */
import { bigFiveConfidence, HALF_CONFIDENCE_WORDS, loadBigFiveModel, percentileOf, valueStandardError, type BigFiveModelFile } from './big-five.ts';
import { ipipBfm50, pooledQuestionnaireNote } from './questionnaire.ts';
import { TRAITS, type Trait } from './train/personality-data.ts';
import type { EvidenceRef, FindingKind, FindingResult, KeyTopicResult, PsychometricResult } from './types.ts';

export interface ProfileSnapshotInput {
  snapshotId: string;
  mindsetDate: Date;
  mindWords: number;
  psychometrics: PsychometricResult[];
  keyTopics: KeyTopicResult[];
  findings: FindingResult[];
}

export interface ProfileTrait {
  instrument: string;
  name: string;
  /**
   * Big Five: σ of the snapshots' values (log-odds) pooled with weights words × recency, so the
   * whole of the person's speech counts; others: weighted mean of the snapshots' scores (null when
   * no snapshot has a score).
   */
  score: number | null;
  /** Big Five: the pooled value's rank among the norm corpus speakers; others: weighted mean. */
  percentile: number | null;
  /** Big Five: pooled words × held-out skill; others: 1 − Π(1 − confidenceᵢ). */
  confidence: number;
  /** Snapshots that contributed a score. */
  snapshots: number;
  /** Words of the snapshots that contributed a score. */
  words: number;
  /** How far to trust it, describing the aggregate (null for measures without one). */
  note: string | null;
}

export interface TrajectoryPoint {
  snapshotId: string;
  mindsetDate: string;
  score: number | null;
  percentile: number | null;
  confidence: number;
  mindWords: number;
  /** Big Five: the score's 95 % band from the measurement noise at this snapshot's words (null otherwise). */
  low: number | null;
  high: number | null;
}

/** Whether the trait moved between the oldest and the newest scored snapshot by more than the noise. */
export interface TrajectoryChange {
  from: number;
  to: number;
  /** The change of the score exceeds the 95 % band of the difference of two noisy measurements. */
  exceedsNoise: boolean;
  note: string;
}

export interface TraitTrajectory {
  instrument: string;
  name: string;
  /** Oldest first. */
  points: TrajectoryPoint[];
  /** Big Five with ≥ 2 scored snapshots; null otherwise. */
  change: TrajectoryChange | null;
}

export interface ProfileTopic {
  label: string;
  keywords: string[];
  /** Weighted share of the person's words over all snapshots. */
  share: number;
  sentiment: number;
  snapshots: number;
  evidence: (EvidenceRef & { snapshotId: string })[];
}

export type ProfileFinding = FindingResult & { snapshotId: string; mindsetDate: string };

export interface MindProfile {
  /** The date weights are relative to (ISO). */
  asOf: string | null;
  snapshotCount: number;
  mindWords: number;
  traits: ProfileTrait[];
  /** Communication-style measures by name, for `persona.style[name]`. */
  style: Record<string, number | null>;
  keyTopics: ProfileTopic[];
  findings: ProfileFinding[];
  trajectories: TraitTrajectory[];
}

/** A snapshot's weight halves for every RECENCY_HALF_LIFE_DAYS it is older than the newest. */
export const RECENCY_HALF_LIFE_DAYS = 730;
const DAY_MS = 86_400_000;
const TOP_TOPICS = 12;
const TOP_FINDINGS = 40;
const TOPIC_KEYWORDS = 10;
const TOPIC_EVIDENCE = 3;

const isTrait = (name: string): name is Trait => (TRAITS as readonly string[]).includes(name);

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));
/** A stored Big Five score back to its value (log-odds); scores are rounded, so clamp away from 0 and 1. */
const valueOf = (score: number): number => {
  const p = Math.min(1 - 1e-4, Math.max(1e-4, score));
  return Math.log(p / (1 - p));
};
/** The held-out skill behind a stored Big Five confidence: c = n / (n + 600) × skill. */
const skillOf = (confidence: number, words: number): number => (words > 0 ? (confidence * (words + HALF_CONFIDENCE_WORDS)) / words : 0);
const fmtWords = (n: number): string => n.toLocaleString('en-US');

type Scored = { s: ProfileSnapshotInput; p: PsychometricResult };

/** The Big Five trait over all of the person's scored snapshots, and its trajectory's change. */
function bigFiveAggregate(
  trait: Trait,
  scored: Scored[],
  weightOf: (s: ProfileSnapshotInput) => number,
  model: BigFiveModelFile,
): { row: Omit<ProfileTrait, 'instrument' | 'name'>; change: TrajectoryChange | null; band: (r: Scored) => [number, number] } {
  const t = model.traits[trait];
  const words = scored.reduce((a, r) => a + r.s.mindWords, 0);
  const band = (r: Scored): [number, number] => {
    const z = valueOf(r.p.score!);
    const se = valueStandardError(t, r.s.mindWords);
    return [round(sigmoid(z - 1.96 * se)), round(sigmoid(z + 1.96 * se))];
  };
  if (!scored.length) return { row: { score: null, percentile: null, confidence: 0, snapshots: 0, words: 0, note: null }, change: null, band };
  const wSum = scored.reduce((a, r) => a + weightOf(r.s), 0) || 1;
  const z = scored.reduce((a, r) => a + weightOf(r.s) * valueOf(r.p.score!), 0) / wSum;
  const skill = scored.reduce((a, r) => a + r.s.mindWords * skillOf(r.p.confidence, r.s.mindWords), 0) / Math.max(1, words);
  const se = valueStandardError(t, words);
  const lo = sigmoid(z - 1.96 * se);
  const hi = sigmoid(z + 1.96 * se);
  const k = scored.length;
  const note = `Estimated from ${fmtWords(words)} words over ${k} snapshot${k === 1 ? '' : 's'}${k > 1 ? ' (each snapshot’s value weighted by its words and recency)' : ''}. Measurement band (95 %, from how much the value varies within one person’s speech): ${lo.toFixed(2)}–${hi.toFixed(2)}. Held-out skill of the model on this kind of text: ${skill > 0 ? `${skill.toFixed(2)} (2·AUC − 1; 0 = chance)` : 'none (the score carries no information)'}. The percentile ranks the value among ${t.norm.length} real speakers.`;
  let change: TrajectoryChange | null = null;
  // A change is between two dates: snapshots of one day (several files of one conversation, or
  // uploads that all got the day they were uploaded) are no trajectory.
  const day = (r: Scored) => r.s.mindsetDate.toISOString().slice(0, 10);
  if (k >= 2 && day(scored[0]!) !== day(scored[k - 1]!)) {
    const a = scored[0]!;
    const b = scored[k - 1]!;
    const za = valueOf(a.p.score!);
    const zb = valueOf(b.p.score!);
    const noise = 1.96 * Math.hypot(valueStandardError(t, a.s.mindWords), valueStandardError(t, b.s.mindWords));
    const exceedsNoise = Math.abs(zb - za) > noise;
    const dir = zb > za ? 'rose' : 'fell';
    const dates = `between ${a.s.mindsetDate.toISOString().slice(0, 10)} and ${b.s.mindsetDate.toISOString().slice(0, 10)}`;
    change = {
      from: a.p.score!,
      to: b.p.score!,
      exceedsNoise,
      note: exceedsNoise
        ? `The score ${dir} from ${a.p.score!.toFixed(2)} to ${b.p.score!.toFixed(2)} ${dates}: more than the measurement's noise at these amounts of text.`
        : `No change beyond the measurement's noise ${dates} (${a.p.score!.toFixed(2)} → ${b.p.score!.toFixed(2)}; two measurements of the same person on this much text differ by up to ${(sigmoid(noise) - 0.5).toFixed(2)} around 0.5).`,
    };
  }
  return {
    row: { score: round(sigmoid(z)), percentile: round(percentileOf(z, t.norm), 1), confidence: round(bigFiveConfidence(words, skill)), snapshots: k, words, note },
    change,
    band,
  };
}

export function buildProfile(snapshots: ProfileSnapshotInput[], now?: Date, model: BigFiveModelFile = loadBigFiveModel()): MindProfile {
  // Same mindsetDate: the caller's order (ids are random, so they never break ties).
  const ordered = snapshots
    .map((s, i) => ({ s, i }))
    .sort((a, b) => a.s.mindsetDate.getTime() - b.s.mindsetDate.getTime() || a.i - b.i)
    .map(({ s }) => s);
  const newest = ordered.length ? ordered[ordered.length - 1]!.mindsetDate.getTime() : null;
  const ref = now ? now.getTime() : newest;
  const recency = (s: ProfileSnapshotInput): number =>
    ref === null ? 1 : 0.5 ** (Math.max(0, ref - s.mindsetDate.getTime()) / DAY_MS / RECENCY_HALF_LIFE_DAYS);
  const weight = new Map(ordered.map((s) => [s.snapshotId, Math.max(1, s.mindWords) * recency(s)]));
  const totalWeight = [...weight.values()].reduce((a, b) => a + b, 0) || 1;

  // Traits and trajectories, keyed by instrument and name, in first-seen order.
  const keys: string[] = [];
  const rows = new Map<string, Scored[]>();
  const point = ({ s, p }: Scored): Omit<TrajectoryPoint, 'low' | 'high'> => ({
    snapshotId: s.snapshotId,
    mindsetDate: s.mindsetDate.toISOString(),
    score: p.score,
    percentile: p.percentile,
    confidence: p.confidence,
    mindWords: s.mindWords,
  });
  for (const s of ordered)
    for (const p of s.psychometrics) {
      const key = `${p.instrument}\u0000${p.name}`;
      if (!rows.has(key)) {
        rows.set(key, []);
        keys.push(key);
      }
      rows.get(key)!.push({ s, p });
    }
  const traits: ProfileTrait[] = [];
  const trajectories: TraitTrajectory[] = [];
  for (const key of keys) {
    const list = rows.get(key)!;
    const [instrument, name] = key.split('\u0000') as [string, string];
    const scored = list.filter((r) => r.p.score !== null);
    if (instrument === 'big_five' && isTrait(name)) {
      const { row, change, band } = bigFiveAggregate(name, scored, (s) => weight.get(s.snapshotId)!, model);
      traits.push({ instrument, name, ...row });
      trajectories.push({
        instrument,
        name,
        points: list.map((r) => {
          const [low, high] = r.p.score === null ? [null, null] : band(r);
          return { ...point(r), low, high };
        }),
        change,
      });
      continue;
    }
    const w = (r: Scored): number => weight.get(r.s.snapshotId)! * Math.max(0.05, r.p.confidence);
    const wSum = scored.reduce((a, r) => a + w(r), 0);
    const withPct = scored.filter((r) => r.p.percentile !== null);
    const pSum = withPct.reduce((a, r) => a + w(r), 0);
    const words = scored.reduce((a, r) => a + r.s.mindWords, 0);
    // Independent snapshots each add evidence: 1 − Π(1 − cᵢ).
    const confidence = 1 - list.reduce((a, r) => a * (1 - Math.min(1, Math.max(0, r.p.confidence))), 1);
    traits.push({
      instrument,
      name,
      score: scored.length ? round(scored.reduce((a, r) => a + w(r) * r.p.score!, 0) / wSum) : null,
      percentile: withPct.length ? round(withPct.reduce((a, r) => a + w(r) * r.p.percentile!, 0) / pSum, 1) : null,
      confidence: round(confidence),
      snapshots: scored.length,
      words,
      note: instrument === ipipBfm50().id ? pooledQuestionnaireNote(ipipBfm50(), scored.length, words, list.length) : null,
    });
    trajectories.push({ instrument, name, points: list.map((r) => ({ ...point(r), low: null, high: null })), change: null });
  }
  const style: Record<string, number | null> = {};
  for (const t of traits) if (t.instrument === 'communication_style') style[t.name] = t.score;

  const keyTopics = mergeTopics(ordered, (s) => weight.get(s.snapshotId)! / totalWeight);
  const findings = pickFindings(ordered, recency);

  return {
    asOf: ref === null ? null : new Date(ref).toISOString(),
    snapshotCount: ordered.length,
    mindWords: ordered.reduce((a, s) => a + s.mindWords, 0),
    traits,
    style,
    keyTopics,
    findings,
    trajectories,
  };
}

const normalise = (phrase: string): string => phrase.toLowerCase().replace(/(?<=[a-z]{3})s$/, '');

/** Words of a topic for matching across snapshots: label and keywords, lower-cased, plural "s" dropped. */
function topicWords(t: { label: string; keywords: string[] }): Set<string> {
  return new Set([t.label, ...t.keywords].map(normalise));
}

/**
 * The same subject in two snapshots: same label, one's label among the other's keywords, or at
 * least two shared keywords that are also a third of the smaller set.
 */
function sameSubject(a: Set<string>, aLabel: string, b: Set<string>, bLabel: string): boolean {
  if (aLabel === bLabel || a.has(bLabel) || b.has(aLabel)) return true;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared >= Math.max(2, Math.min(a.size, b.size) / 3);
}

interface MergedTopic {
  /** The first label seen, normalised like `topicWords`: what other snapshots' topics are matched on. */
  key: string;
  labels: Map<string, number>;
  keywords: Map<string, number>;
  words: Set<string>;
  share: number;
  sentiment: number;
  snapshots: Set<string>;
  evidence: ProfileTopic['evidence'];
}

/**
 * Topics merged across snapshots by subject (label or keyword overlap, not only identical
 * labels). Share and sentiment are weighted by each snapshot's weight; the label is the one with
 * the most weighted share; `snapshots` counts the snapshots that spoke of it; evidence newest first.
 */
function mergeTopics(ordered: ProfileSnapshotInput[], weightOf: (s: ProfileSnapshotInput) => number): ProfileTopic[] {
  const merged: MergedTopic[] = [];
  for (const s of ordered) {
    const w = weightOf(s);
    for (const t of s.keyTopics) {
      const words = topicWords(t);
      const key = normalise(t.label);
      let m = merged.find((x) => sameSubject(x.words, x.key, words, key));
      if (!m) {
        m = { key, labels: new Map(), keywords: new Map(), words: new Set(), share: 0, sentiment: 0, snapshots: new Set(), evidence: [] };
        merged.push(m);
      }
      m.labels.set(t.label, (m.labels.get(t.label) ?? 0) + t.share * w);
      for (const k of t.keywords) m.keywords.set(k, (m.keywords.get(k) ?? 0) + t.share * w);
      for (const x of words) m.words.add(x);
      m.share += t.share * w;
      m.sentiment += t.sentiment * t.share * w;
      m.snapshots.add(s.snapshotId);
      m.evidence = [...t.evidence.map((e) => ({ ...e, snapshotId: s.snapshotId })), ...m.evidence];
    }
  }
  const top = (m: Map<string, number>): string[] => [...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k]) => k);
  return merged
    .map((m) => {
      const label = top(m.labels)[0]!;
      const keywords = top(m.keywords).filter((k, i, all) => all.findIndex((x) => x.toLowerCase() === k.toLowerCase()) === i).slice(0, TOPIC_KEYWORDS);
      return {
        label,
        keywords,
        share: round(m.share),
        sentiment: round(m.share > 0 ? m.sentiment / m.share : 0),
        snapshots: m.snapshots.size,
        evidence: m.evidence.slice(0, TOPIC_EVIDENCE),
      };
    })
    .sort((a, b) => b.share - a.share || a.label.localeCompare(b.label))
    .slice(0, TOP_TOPICS);
}

const bareStatement = (s: string): string => ` ${s.toLowerCase().replace(/^maybe: /, '').replace(/[^\p{L}\p{N}' ]+/gu, ' ').replace(/\s+/g, ' ').trim()} `;

/**
 * Findings across snapshots: the same statement once (newest kept; one contained in a fuller one
 * of the same kind is dropped), ranked by confidence × recency × the snapshot's share of words,
 * then taken round-robin by kind (kinds ordered by their best finding) so the mix of beliefs,
 * goals, experiences… survives, at most TOP_FINDINGS.
 */
function pickFindings(ordered: ProfileSnapshotInput[], recency: (s: ProfileSnapshotInput) => number): ProfileFinding[] {
  const maxWords = Math.max(1, ...ordered.map((s) => s.mindWords));
  const position = new Map(ordered.map((s, i) => [s.snapshotId, i]));
  const seen = new Set<string>();
  const candidates: { f: ProfileFinding; rank: number; bare: string }[] = [];
  for (const s of [...ordered].reverse())
    for (const f of s.findings) {
      const bare = bareStatement(f.statement);
      if (seen.has(bare)) continue;
      seen.add(bare);
      const words = 0.5 + (0.5 * Math.max(1, s.mindWords)) / maxWords;
      candidates.push({ f: { ...f, snapshotId: s.snapshotId, mindsetDate: s.mindsetDate.toISOString() }, rank: f.confidence * recency(s) * words, bare });
    }
  const distinct = candidates.filter((a) => !candidates.some((b) => b !== a && b.f.kind === a.f.kind && b.bare.includes(a.bare)));
  distinct.sort(
    (a, b) => b.rank - a.rank || position.get(b.f.snapshotId)! - position.get(a.f.snapshotId)! || a.f.statement.localeCompare(b.f.statement),
  );
  const byKind = new Map<FindingKind, ProfileFinding[]>();
  for (const c of distinct) byKind.set(c.f.kind, [...(byKind.get(c.f.kind) ?? []), c.f]);
  const queues = [...byKind.values()];
  const picked: ProfileFinding[] = [];
  for (let round = 0; picked.length < TOP_FINDINGS && queues.some((q) => q.length > round); round++)
    for (const q of queues) if (q[round] && picked.length < TOP_FINDINGS) picked.push(q[round]!);
  return picked;
}
