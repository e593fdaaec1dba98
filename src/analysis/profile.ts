/**
 * A mind's profile across its snapshots: traits and style weighted by how much the person said
 * in each snapshot and how recent its mindsetDate is, the topics and findings that carry the most
 * weight, and each measure's trajectory over time (for charts of how the person has changed).
 */
import type { EvidenceRef, FindingResult, KeyTopicResult, PsychometricResult } from './types.ts';

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
  /** Weighted mean of the snapshots' scores (null when no snapshot has a score). */
  score: number | null;
  percentile: number | null;
  /** 1 − Π(1 − confidenceᵢ): independent snapshots each add evidence. */
  confidence: number;
  /** Snapshots that contributed a score. */
  snapshots: number;
}

export interface TrajectoryPoint {
  snapshotId: string;
  mindsetDate: string;
  score: number | null;
  percentile: number | null;
  confidence: number;
  mindWords: number;
}

export interface TraitTrajectory {
  instrument: string;
  name: string;
  /** Oldest first. */
  points: TrajectoryPoint[];
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

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

export function buildProfile(snapshots: ProfileSnapshotInput[], now?: Date): MindProfile {
  // Same mindsetDate: the caller's order (ids are random, so they never break ties).
  const ordered = snapshots
    .map((s, i) => ({ s, i }))
    .sort((a, b) => a.s.mindsetDate.getTime() - b.s.mindsetDate.getTime() || a.i - b.i)
    .map(({ s }) => s);
  const position = new Map(ordered.map((s, i) => [s.snapshotId, i]));
  const newest = ordered.length ? ordered[ordered.length - 1]!.mindsetDate.getTime() : null;
  const ref = now ? now.getTime() : newest;
  const recency = (s: ProfileSnapshotInput): number =>
    ref === null ? 1 : 0.5 ** (Math.max(0, ref - s.mindsetDate.getTime()) / DAY_MS / RECENCY_HALF_LIFE_DAYS);
  const weight = new Map(ordered.map((s) => [s.snapshotId, Math.max(1, s.mindWords) * recency(s)]));
  const totalWeight = [...weight.values()].reduce((a, b) => a + b, 0) || 1;

  // Traits and trajectories, keyed by instrument and name, in first-seen order.
  const keys: string[] = [];
  const rows = new Map<string, { s: ProfileSnapshotInput; p: PsychometricResult }[]>();
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
    const w = (r: { s: ProfileSnapshotInput; p: PsychometricResult }): number => weight.get(r.s.snapshotId)! * Math.max(0.05, r.p.confidence);
    const wSum = scored.reduce((a, r) => a + w(r), 0);
    const withPct = scored.filter((r) => r.p.percentile !== null);
    const pSum = withPct.reduce((a, r) => a + w(r), 0);
    traits.push({
      instrument,
      name,
      score: scored.length ? round(scored.reduce((a, r) => a + w(r) * r.p.score!, 0) / wSum) : null,
      percentile: withPct.length ? round(withPct.reduce((a, r) => a + w(r) * r.p.percentile!, 0) / pSum, 1) : null,
      confidence: round(1 - list.reduce((a, r) => a * (1 - Math.min(1, Math.max(0, r.p.confidence))), 1)),
      snapshots: scored.length,
    });
    trajectories.push({
      instrument,
      name,
      points: list.map(({ s, p }) => ({
        snapshotId: s.snapshotId,
        mindsetDate: s.mindsetDate.toISOString(),
        score: p.score,
        percentile: p.percentile,
        confidence: p.confidence,
        mindWords: s.mindWords,
      })),
    });
  }
  const style: Record<string, number | null> = {};
  for (const t of traits) if (t.instrument === 'communication_style') style[t.name] = t.score;

  // Topics merged by label (case-insensitive) across snapshots.
  const topicMap = new Map<string, { label: string; keywords: string[]; share: number; sentiment: number; snapshots: number; evidence: ProfileTopic['evidence'] }>();
  for (const s of ordered) {
    const w = weight.get(s.snapshotId)! / totalWeight;
    for (const t of s.keyTopics) {
      const key = t.label.toLowerCase();
      const cur = topicMap.get(key) ?? { label: t.label, keywords: [], share: 0, sentiment: 0, snapshots: 0, evidence: [] };
      cur.share += t.share * w;
      cur.sentiment += t.sentiment * t.share * w;
      cur.snapshots++;
      for (const k of t.keywords) if (!cur.keywords.includes(k) && cur.keywords.length < 10) cur.keywords.push(k);
      // Newer evidence first: later snapshots are prepended.
      cur.evidence = [...t.evidence.map((e) => ({ ...e, snapshotId: s.snapshotId })), ...cur.evidence];
      topicMap.set(key, cur);
    }
  }
  const keyTopics: ProfileTopic[] = [...topicMap.values()]
    .map((t) => ({ ...t, share: round(t.share), sentiment: round(t.share > 0 ? t.sentiment / t.share : 0), evidence: t.evidence.slice(0, 3) }))
    .sort((a, b) => b.share - a.share || a.label.localeCompare(b.label))
    .slice(0, TOP_TOPICS);

  // Findings: the most confident, discounted by age; the same statement counts once (newest kept).
  const seen = new Set<string>();
  const candidates: { f: ProfileFinding; rank: number }[] = [];
  for (const s of [...ordered].reverse())
    for (const f of s.findings) {
      const key = f.statement.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      candidates.push({ f: { ...f, snapshotId: s.snapshotId, mindsetDate: s.mindsetDate.toISOString() }, rank: f.confidence * recency(s) });
    }
  const findings = candidates
    .sort((a, b) => b.rank - a.rank || position.get(b.f.snapshotId)! - position.get(a.f.snapshotId)! || a.f.statement.localeCompare(b.f.statement))
    .slice(0, TOP_FINDINGS)
    .map((c) => c.f);

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
