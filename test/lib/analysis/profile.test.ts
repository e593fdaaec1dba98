import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyseTurns, buildProfile, type ProfileSnapshotInput, type PsychometricResult } from '../../../src/lib/analysis/index.ts';
import { personaFromProfile } from '../../../src/features/profile/persona.ts';
import { loadBigFiveModel } from '../../../src/lib/analysis/big-five.ts';
import type { Trait } from '../../../src/lib/analysis/train/personality-data.ts';
import { debate, transcriptTurns } from './transcripts.ts';
import { skipUnlessSharedData } from '../../support/shared-data.ts';

const trait = (name: string, score: number | null, confidence = 0.9): PsychometricResult => ({
  instrument: 'big_five', name, score, percentile: score === null ? null : score * 100, confidence, evidence: [], note: null,
});
const style = (name: string, score: number): PsychometricResult => ({
  instrument: 'communication_style', name, score, percentile: null, confidence: 0.9, evidence: [], note: null,
});

function snapshot(id: string, date: string, words: number, openness: number | null, extra: Partial<ProfileSnapshotInput> = {}): ProfileSnapshotInput {
  return { snapshotId: id, mindsetDate: new Date(date), mindWords: words, psychometrics: [trait('openness', openness), style('wordsPerTurn', words / 100)], keyTopics: [], findings: [], ...extra };
}

test('traits are weighted by words and recency; trajectories run oldest first', () => {
  const old = snapshot('s-old', '2012-01-01', 10000, 0.2);
  const recent = snapshot('s-new', '2020-01-01', 10000, 0.8);
  const p = buildProfile([recent, old]);
  const openness = p.traits.find((t) => t.name === 'openness')!;
  // Same words, eight years apart (four half-lives): the recent snapshot dominates.
  assert.ok(openness.score! > 0.7 && openness.score! < 0.8, `${openness.score}`);
  assert.equal(openness.snapshots, 2);
  // Both snapshots share one model: the pooled 20k words × its held-out skill (0.9 at 10k words ⇒
  // skill 0.9 × 10600 / 10000), not 1 − Π(1 − cᵢ).
  assert.ok(Math.abs(openness.confidence - (20000 / 20600) * 0.954) < 1e-3, `${openness.confidence}`);
  // The trust note describes the aggregate, not the latest file.
  assert.equal(openness.words, 20000);
  assert.match(openness.note ?? '', /^Estimated from 20,000 words over 2 snapshots/);
  assert.ok(p.traits.find((t) => t.name === 'wordsPerTurn')!.confidence >= 0.99, 'style confidence: independent evidence adds up');
  const traj = p.trajectories.find((t) => t.name === 'openness')!;
  assert.deepEqual(traj.points.map((x) => x.snapshotId), ['s-old', 's-new']);
  assert.deepEqual(traj.points.map((x) => x.score), [0.2, 0.8]);
  assert.equal(p.snapshotCount, 2);
  assert.equal(p.mindWords, 20000);
  assert.equal(p.asOf, '2020-01-01T00:00:00.000Z');
  assert.equal(p.style.wordsPerTurn, 100);

  // Same date: the snapshot with more words weighs more.
  const big = snapshot('a', '2020-01-01', 9000, 0.9);
  const small = snapshot('b', '2020-01-01', 1000, 0.1);
  assert.ok(buildProfile([big, small]).traits[0]!.score! > 0.75);
});

test('snapshots without a score are skipped but still appear in the trajectory', () => {
  const p = buildProfile([snapshot('a', '2020-01-01', 50, null), snapshot('b', '2021-01-01', 5000, 0.6)]);
  const openness = p.traits.find((t) => t.name === 'openness')!;
  assert.equal(openness.score, 0.6);
  assert.equal(openness.snapshots, 1);
  assert.equal(p.trajectories.find((t) => t.name === 'openness')!.points.length, 2);
});

test('topics merge by label across snapshots; findings are deduplicated, newest kept', () => {
  const topic = (label: string, share: number) => ({ label, keywords: [label.toLowerCase()], share, sentiment: 0.5, evidence: [{ turnId: `${label}-t`, quote: label, startMs: null }] });
  const finding = (statement: string, confidence: number) => ({ kind: 'belief' as const, statement, quote: statement, turnId: 't', startMs: null, polarity: 'neutral' as const, confidence });
  const p = buildProfile(
    [
      snapshot('a', '2020-01-01', 1000, 0.5, { keyTopics: [topic('Taxes', 0.4), topic('Energy', 0.1)], findings: [finding('Thinks that X', 0.8)] }),
      snapshot('b', '2020-06-01', 1000, 0.5, { keyTopics: [topic('taxes', 0.2)], findings: [finding('Thinks that X', 0.8), finding('Wants Y', 0.7)] }),
    ],
    new Date('2020-06-01'),
  );
  assert.deepEqual(p.keyTopics.map((t) => t.label.toLowerCase()), ['taxes', 'energy']);
  assert.equal(p.keyTopics[0]!.snapshots, 2);
  assert.ok(p.keyTopics[0]!.share > 0.2 && p.keyTopics[0]!.share < 0.4);
  assert.deepEqual(p.findings.map((f) => [f.statement, f.snapshotId]), [['Thinks that X', 'b'], ['Wants Y', 'b']]);
});

test('no snapshots: an empty profile', () => {
  const p = buildProfile([]);
  assert.equal(p.snapshotCount, 0);
  assert.deepEqual(p.traits, []);
  assert.equal(p.asOf, null);
});

test('a persona card from real snapshots: Obama across three 2012 debates', skipUnlessSharedData, async () => {
  const dates = ['2012-10-03', '2012-10-16', '2012-10-22'];
  const snapshots = await Promise.all(
    dates.map(async (date) => {
      const r = analyseTurns(await transcriptTurns(debate(date), 'Barack H Obama'));
      return { snapshotId: date, mindsetDate: new Date(date), ...r };
    }),
  );
  const profile = buildProfile(snapshots);
  assert.equal(profile.snapshotCount, 3);
  assert.ok(profile.mindWords > 20000);
  const openness = profile.trajectories.find((t) => t.name === 'openness')!;
  assert.deepEqual(openness.points.map((p) => p.snapshotId), dates);
  const persona = personaFromProfile('Barack Obama', profile);
  assert.deepEqual(persona.traits.map((t) => t.name), ['openness', 'conscientiousness', 'extraversion', 'agreeableness', 'neuroticism']);
  for (const t of persona.traits) assert.ok(t.score !== null && t.score > 0 && t.score < 1);
  for (const name of ['wordsPerTurn', 'questionRate', 'hedging', 'formality', 'sentiment']) assert.equal(typeof persona.style[name], 'number');
  // Taxes come up in all three debates: the merged topics keep them near the top, as one topic.
  assert.ok(persona.topics.some((t) => /\btax/i.test([t.label, ...t.keywords].join(' '))));
  assert.ok(persona.findings.length > 5);
  const tax = profile.keyTopics.filter((t) => /^tax(es)?$/i.test(t.label));
  assert.equal(tax.length, 1, profile.keyTopics.map((t) => t.label).join('; '));
  assert.ok(tax[0]!.snapshots >= 2, `tax topic from ${tax[0]!.snapshots} snapshots`);
  // The kinds every snapshot has survive in the profile (the audit found 25 beliefs, 0 experiences).
  const kinds = (fs: { kind: string }[]): Map<string, number> => fs.reduce((m, f) => m.set(f.kind, (m.get(f.kind) ?? 0) + 1), new Map<string, number>());
  const inSnapshots = kinds(snapshots.flatMap((x) => x.findings));
  const inProfile = kinds(profile.findings);
  for (const kind of inSnapshots.keys()) assert.ok(inProfile.has(kind), `no ${kind} in the profile though the snapshots have ${inSnapshots.get(kind)}`);
  assert.ok(Math.max(...inProfile.values()) <= Math.ceil(profile.findings.length / 2), JSON.stringify([...inProfile]));
  // Big Five confidence pools the words but never exceeds the model's held-out skill.
  const model = loadBigFiveModel();
  for (const t of profile.traits.filter((x) => x.instrument === 'big_five')) {
    const r = model.traits[t.name as Trait].registers;
    assert.ok(t.confidence <= Math.max(r.written.skill, r.spoken.skill) + 1e-9, `${t.name}: ${t.confidence}`);
    // Over all three debates: the note counts every snapshot's words.
    assert.equal(t.words, profile.mindWords);
    assert.match(t.note ?? '', new RegExp(`^Estimated from ${profile.mindWords.toLocaleString('en-US')} words over 3 snapshots`));
  }
});

test('topics merge across snapshots by subject, not only by identical label', () => {
  const topic = (label: string, keywords: string[], share: number) => ({ label, keywords, share, sentiment: 0, evidence: [] });
  const p = buildProfile([
    snapshot('a', '2020-01-01', 1000, 0.5, { keyTopics: [topic('tax', ['tax', 'deficit', 'tax cuts', 'middle class'], 0.4), topic('Medicare', ['Medicare', 'voucher', 'seniors'], 0.2)] }),
    snapshot('b', '2020-06-01', 1000, 0.5, { keyTopics: [topic('taxes', ['taxes', 'middle class', 'deficit'], 0.3), topic('oil', ['oil', 'coal', 'energy'], 0.1)] }),
  ]);
  assert.deepEqual(p.keyTopics.map((t) => [t.label, t.snapshots]), [['tax', 2], ['Medicare', 1], ['oil', 1]]);
  assert.ok(p.keyTopics[0]!.keywords.includes('deficit'));
});

test('trajectories say whether a change exceeds the measurement noise', () => {
  const model = loadBigFiveModel();
  const noise = model.traits.openness.noise;
  // Two long snapshots far apart in value: a real change. Two short ones close together: noise.
  const big = buildProfile([snapshot('a', '2020-01-01', 20000, 0.2), snapshot('b', '2021-01-01', 20000, 0.8)]);
  const change = big.trajectories.find((t) => t.name === 'openness')!.change!;
  assert.equal(change.exceedsNoise, true, JSON.stringify(change));
  assert.match(change.note, /rose from 0\.20 to 0\.80/);
  const se = noise / Math.sqrt(200);
  const small = buildProfile([snapshot('a', '2020-01-01', 200, 0.5), snapshot('b', '2021-01-01', 200, 1 / (1 + Math.exp(-se)))]);
  const same = small.trajectories.find((t) => t.name === 'openness')!;
  assert.equal(same.change!.exceedsNoise, false);
  assert.match(same.change!.note, /No change beyond the measurement's noise/);
  // Each point carries its band, wider on fewer words; style trajectories have no change.
  const p = same.points[0]!;
  assert.ok(p.low! < 0.5 && p.high! > 0.5);
  const q = big.trajectories.find((t) => t.name === 'openness')!.points[0]!;
  assert.ok(q.high! - q.low! < p.high! - p.low!);
  assert.equal(big.trajectories.find((t) => t.name === 'wordsPerTurn')!.change, null);
  // A single snapshot: no change to report.
  assert.equal(buildProfile([snapshot('a', '2020-01-01', 2000, 0.4)]).trajectories[0]!.change, null);
});

test('a trajectory needs two dates: snapshots of one day report no change ("between 2026-11-28 and 2026-11-28")', () => {
  const sameDay = buildProfile([snapshot('a', '2026-11-28', 20000, 0.68), snapshot('b', '2026-11-28', 20000, 0.6)]);
  for (const t of sameDay.trajectories) assert.equal(t.change, null, `${t.name}: ${t.change?.note}`);
  assert.equal(sameDay.trajectories.find((t) => t.name === 'openness')!.points.length, 2, 'the points are still there');
  // A third snapshot on another day: the change runs from the first date to the last.
  const later = buildProfile([snapshot('a', '2026-11-28', 20000, 0.68), snapshot('b', '2026-11-28', 20000, 0.6), snapshot('c', '2027-02-01', 20000, 0.3)]);
  const note = later.trajectories.find((t) => t.name === 'openness')!.change!.note;
  assert.match(note, /between 2026-11-28 and 2027-02-01/);
});

test('questionnaire rows pooled in the profile say how far to trust them; none scored says so', () => {
  const ipip = (score: number | null, confidence: number): PsychometricResult => ({ instrument: 'ipip-bfm-50', name: 'openness', score, percentile: null, confidence, evidence: [], note: 'per snapshot' });
  const withRows = (id: string, date: string, words: number, row: PsychometricResult) => snapshot(id, date, words, 0.5, { psychometrics: [trait('openness', 0.5), row] });
  const pooled = buildProfile([withRows('a', '2024-01-01', 1000, ipip(0.6, 0.5)), withRows('b', '2024-06-01', 3000, ipip(0.8, 0.7))]).traits.find((t) => t.instrument === 'ipip-bfm-50')!;
  assert.ok(pooled.score! > 0.6 && pooled.score! < 0.8);
  assert.equal(pooled.percentile, null);
  assert.equal(pooled.words, 4000);
  assert.match(pooled.note!, /^Questionnaire, not text analysis: a language model answered the .+ in character/);
  assert.match(pooled.note!, /mean of 2 snapshots .*4,000 words/);
  assert.match(pooled.note!, /nothing here has checked them against the person's own answers/);
  const none = buildProfile([withRows('a', '2024-01-01', 1000, ipip(null, 0))]).traits.find((t) => t.instrument === 'ipip-bfm-50')!;
  assert.equal(none.score, null);
  assert.match(none.note!, /no score in the one snapshot that has its rows/);
  // Measures without an aggregate note keep none.
  assert.equal(buildProfile([withRows('a', '2024-01-01', 1000, ipip(0.6, 0.5))]).traits.find((t) => t.instrument === 'communication_style')?.note ?? null, null);
});
