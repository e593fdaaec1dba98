/**
 * Speech without sentence punctuation (auto-captions) and without speaker names: no measure may
 * blow up on it. Compared with the same speech punctuated: the debates' auto-caption tracks
 * (`*.vtt`) against their punctuated transcripts (`*.said.txt`), everyone who speaks counted as
 * the mind in both (that is what an unlabelled upload is).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyseTurns, styleMap, type AnalysisResult, type AnalysisTurn, type PsychometricResult } from '../../../src/lib/analysis/index.ts';
import { parseInThisThread } from '../../../src/lib/ingest/parse.ts';
import { digestTranscript } from '../../../src/features/snapshots/digest.ts';
import { counterIds, fixtureDebate, parseTranscript, TRANSCRIPTS } from './transcripts.ts';
import { fileURLToPath } from 'node:url';
import { skipUnlessSharedData } from '../../support/shared-data.ts';
import { loadBigFiveModel, valueStandardError } from '../../../src/lib/analysis/big-five.ts';
import type { Trait } from '../../../src/lib/analysis/train/personality-data.ts';

/**
 * Two readings of the same speech agree within the measurement's noise: their values (log-odds)
 * differ by less than the 95 % band of a difference of two values measured on that many words
 * (2·√2 standard errors, from the model's within-speech noise that the profile's bands use).
 */
function assertWithinNoise(label: string, trait: string, a: number, b: number, words: number): void {
  const logit = (p: number): number => Math.log(p / (1 - p));
  const band = 2 * Math.SQRT2 * valueStandardError(loadBigFiveModel().traits[trait as Trait], words);
  const delta = Math.abs(logit(a) - logit(b));
  assert.ok(delta <= band, `${label} ${trait}: ${b} vs ${a} (|Δ log-odds| ${delta.toFixed(3)} > 2·√2 standard errors ${band.toFixed(3)} at ${words} words)`);
}

const mind = (...texts: string[]): AnalysisTurn[] => texts.map((text, i) => ({ turnId: `m${i}`, speaker: 'Ann', text, startMs: i * 1000, isMind: true }));
const row = (rows: PsychometricResult[], name: string): PsychometricResult => {
  const r = rows.find((x) => x.name === name);
  assert.ok(r, `${name} missing`);
  return r;
};
/** The same words as speech recognition writes them: lower case, no punctuation. */
const asCaptions = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[.,!?;:"“”()]+(?=\s|$)/g, '')
    .replace(/\s+/g, ' ')
    .trim();

test('readability stays on its 0–100 scale: a run-on sentence is 0, not −9,000', () => {
  const runOn = `We ${'and then the committee considered the extraordinarily complicated administrative arrangements '.repeat(40)}went home.`;
  const rows = analyseTurns(mind(runOn)).psychometrics;
  assert.equal(row(rows, 'readability').score, 0);
  const easy = analyseTurns(mind('I go. You go. We go. Go on. Yes.')).psychometrics;
  assert.equal(row(easy, 'readability').score, 100);
});

test('unpunctuated speech: readability from pseudo-sentences, question rate not measured, nothing else moves much', async () => {
  // Obama's punctuated turns in the first 2012 debate, and the same words as captions write them.
  const t = await parseTranscript(fixtureDebate('2012-10-03'));
  const texts = t.turns.filter((x) => x.speaker === 'Barack H Obama').map((x) => x.text);
  const punctuated = analyseTurns(mind(...texts));
  const captions = analyseTurns(mind(...texts.map(asCaptions)));
  const p = styleMap(punctuated.psychometrics);
  const c = styleMap(captions.psychometrics);
  assert.ok(c.readability! >= 0 && c.readability! <= 100);
  assert.ok(Math.abs(c.readability! - p.readability!) < 6, `readability ${c.readability} vs ${p.readability} punctuated`);
  assert.match(row(captions.psychometrics, 'readability').note!, /no sentence punctuation/);
  assert.equal(c.questionRate, null);
  assert.match(row(captions.psychometrics, 'questionRate').note!, /questions cannot be told from statements/);
  assert.ok(p.questionRate! > 0);
  // Per-word measures read the same words; sentiment and emotions need the negation to end with
  // its (pseudo-)sentence, not run to the end of the turn.
  for (const name of ['hedging', 'certainty', 'pronounI', 'pronounWe', 'pronounYou', 'lexicalDiversity']) {
    assert.ok(Math.abs(c[name]! - p[name]!) <= 0.05 * Math.max(1, Math.abs(p[name]!)), `${name}: ${c[name]} vs ${p[name]}`);
  }
  assert.ok(Math.abs(c.sentiment! - p.sentiment!) < 0.1, `sentiment ${c.sentiment} vs ${p.sentiment}`);
  assert.ok(Math.abs(c.formality! - p.formality!) < 2, `formality ${c.formality} vs ${p.formality}`);
  assert.equal(c.wordsPerTurn, p.wordsPerTurn, 'the same turns');
  // Big Five: the punctuation features (questions, exclamations, sentence length) count as unknown.
  for (const trait of ['openness', 'conscientiousness', 'extraversion', 'agreeableness', 'neuroticism']) {
    const a = row(punctuated.psychometrics, trait);
    const b = row(captions.psychometrics, trait);
    assertWithinNoise('fixture', trait, a.score!, b.score!, punctuated.mindWords);
    assert.ok(Math.abs(a.percentile! - b.percentile!) < 30, `${trait}: percentile ${b.percentile} vs ${a.percentile}`);
  }
  // Findings still come, from clauses of sentence size, a little less sure of where they start.
  assert.ok(captions.findings.length > 0);
  for (const f of captions.findings) {
    assert.ok(f.quote.split(/\s+/).length <= 30, `quote of ${f.quote.split(/\s+/).length} words`);
    assert.ok(f.statement.split(/\s+/).length <= 40, f.statement);
    assert.ok(f.confidence <= 0.85 * 0.8 + 1e-9);
  }
  assert.ok(captions.keyTopics.some((k) => k.label === 'tax' || k.keywords.includes('tax')));
});

test('a transcript without speaker names: words per turn is not measured, and every note says whose words these are', () => {
  const text = 'we need to invest in education and training for young people but we also need to bring down the deficit '.repeat(12);
  const result = analyseTurns(mind(text, text), { unlabelled: true });
  const perTurn = row(result.psychometrics, 'wordsPerTurn');
  assert.equal(perTurn.score, null);
  assert.match(perTurn.note!, /names no speakers/);
  for (const r of result.psychometrics) assert.match(r.note ?? '', /names no speakers/, r.name);
});

test('words per turn counts the parts of a long turn as one turn', () => {
  const turns = mind('One two three four.', 'Five six seven eight.', 'Nine ten.');
  turns[1]!.continues = true;
  assert.equal(styleMap(analyseTurns(turns).psychometrics).wordsPerTurn, 5);
});

/** Everyone in the file is the mind, as in an upload without speaker names. */
function everyone(turns: { speaker: string; text: string; startMs?: number }[], unlabelled: boolean): AnalysisResult {
  return analyseTurns(
    turns.map((x, i) => ({ turnId: `t${i}`, speaker: x.speaker, text: x.text, startMs: x.startMs ?? null, isMind: true })),
    { unlabelled },
  );
}

test('the six auto-captioned debates: every measure in range and near what the punctuated transcript gives', skipUnlessSharedData, async () => {
  for (const id of ['2012-10-03', '2012-10-16', '2012-10-22', '2016-09-26', '2016-10-09', '2016-10-19']) {
    const path = (ext: string) => fileURLToPath(new URL(`us-presidential-debates/${id}.${ext}`, TRANSCRIPTS));
    const vtt = await parseInThisThread(path('vtt'), 'vtt');
    const said = await parseInThisThread(path('said.txt'), 'txt');
    const c = everyone(vtt.turns, true);
    const p = everyone(said.turns, false);
    const cs = styleMap(c.psychometrics);
    const ps = styleMap(p.psychometrics);
    assert.ok(cs.readability! >= 0 && cs.readability! <= 100 && Math.abs(cs.readability! - ps.readability!) < 5, `${id}: readability ${cs.readability} vs ${ps.readability}`);
    assert.ok(Math.abs(cs.formality! - ps.formality!) < 2, `${id}: formality ${cs.formality} vs ${ps.formality}`);
    assert.ok(Math.abs(cs.sentiment! - ps.sentiment!) < 0.1, `${id}: sentiment ${cs.sentiment} vs ${ps.sentiment}`);
    assert.equal(cs.wordsPerTurn, null);
    assert.equal(cs.questionRate, null);
    for (const r of c.psychometrics.filter((x) => x.instrument === 'big_five')) {
      const q = row(p.psychometrics, r.name);
      // Within the measurement's noise. The register classifier reads captions a little more
      // "written" than the punctuated transcript (lower-case text changes the POS tags), and the
      // written and spoken readings of a debate differ, so the values move a little.
      assertWithinNoise(id, r.name, q.score!, r.score!, p.mindWords);
    }
    for (const r of c.psychometrics.filter((x) => x.instrument === 'emotion')) assert.ok(r.score! >= 0 && r.score! < 3, `${id}: ${r.name} ${r.score}`);
    assert.ok(c.keyTopics.length >= 3, `${id}: ${c.keyTopics.length} topics`);
    assert.ok(c.findings.length >= 10, `${id}: ${c.findings.length} findings`);
    for (const e of [...c.keyTopics.flatMap((k) => k.evidence), ...c.psychometrics.flatMap((x) => x.evidence)]) assert.ok(e.quote.length <= 320);
  }
});

test('2012-10-03.vtt as a mind "Barack Obama": quotable turns, a profile a person can read', skipUnlessSharedData, async () => {
  const path = fileURLToPath(new URL('us-presidential-debates/2012-10-03.vtt', TRANSCRIPTS));
  const digest = digestTranscript(await parseInThisThread(path, 'vtt'), { mindName: 'Barack Obama', requestedSpeaker: null }, counterIds());
  assert.deepEqual([digest.attribution.mindLabel, digest.attribution.attribution], ['Speaker', 'inferred']);
  assert.ok(digest.turns.length >= 100, `${digest.turns.length} turns, not one`);
  const style = styleMap(digest.analysis.psychometrics);
  assert.equal(style.wordsPerTurn, null);
  assert.ok(style.readability! > 60 && style.readability! < 85, `readability ${style.readability}`);
  const labels = digest.analysis.keyTopics.map((k) => k.label);
  for (const subject of ['tax', 'medicare']) assert.ok(labels.includes(subject), `${subject} among ${labels.join(', ')}`);
  for (const r of digest.analysis.psychometrics.filter((x) => x.instrument === 'big_five')) {
    assert.ok(r.percentile! > 2 && r.percentile! < 98, `${r.name} percentile ${r.percentile}: not pinned to an end`);
  }
});
