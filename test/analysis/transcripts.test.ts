/**
 * Quality gates on the real transcripts: topics name the subjects of each conversation, nothing
 * but the mind's own words is quoted, nothing is empty for a long transcript, and the same input
 * gives the same analysis.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyseTurns, type AnalysisResult, type AnalysisTurn } from '../../src/analysis/index.ts';
import { FILLER_PHRASES, STOPWORDS } from '../../src/analysis/lexicons.ts';
import { GOLDEN, type Golden } from './golden.ts';
import { asAnalysisTurns, readDebate, readLex } from './transcripts.ts';

function turnsOf(g: Golden): AnalysisTurn[] {
  const raw = g.source.kind === 'debate' ? readDebate(g.source.date) : readLex(g.source.file);
  return asAnalysisTurns(raw, g.mind);
}

const analysed = new Map<string, { turns: AnalysisTurn[]; result: AnalysisResult }>();
function analysis(g: Golden): { turns: AnalysisTurn[]; result: AnalysisResult } {
  let a = analysed.get(g.name);
  if (!a) {
    const turns = turnsOf(g);
    a = { turns, result: analyseTurns(turns) };
    analysed.set(g.name, a);
  }
  return a;
}

/** Every quote must be a verbatim excerpt of the cited turn, and that turn must be the mind's. */
function assertMindQuote(turns: AnalysisTurn[], ref: { turnId: string; quote: string }, what: string): void {
  const turn = turns.find((t) => t.turnId === ref.turnId);
  assert.ok(turn, `${what}: cites unknown turn ${ref.turnId}`);
  assert.ok(turn.isMind, `${what}: quotes ${turn.speaker}, who is not the mind: "${ref.quote}"`);
  assert.ok(ref.quote.length > 0 && turn.text.includes(ref.quote), `${what}: quote is not verbatim from ${ref.turnId}: "${ref.quote}"`);
}

for (const g of GOLDEN) {
  test(`${g.name}: topics name the conversation's subjects`, () => {
    const { result } = analysis(g);
    const words = result.keyTopics.flatMap((t) => [t.label, ...t.keywords]).join(' | ').toLowerCase();
    for (const alternatives of g.subjects) {
      assert.ok(
        alternatives.some((a) => new RegExp(`\\b${a}\\b`).test(words)),
        `none of [${alternatives.join(', ')}] among topics: ${result.keyTopics.map((t) => t.label).join('; ')}`,
      );
    }
  });

  test(`${g.name}: stopwords, filler and other speakers' names never become topics`, () => {
    const { turns, result } = analysis(g);
    const others = new Set(
      turns.filter((t) => !t.isMind).flatMap((t) => t.speaker.toLowerCase().split(/\s+/)).filter((p) => p.length > 2),
    );
    const fillers = new Set([...FILLER_PHRASES, 'you know', 'kind of', 'i mean']);
    for (const t of result.keyTopics) {
      for (const phrase of [t.label, ...t.keywords]) {
        const lower = phrase.toLowerCase();
        assert.ok(!fillers.has(lower), `filler as topic: ${phrase}`);
        assert.ok(!STOPWORDS.has(lower), `stopword as topic: ${phrase}`);
        for (const w of lower.split(/\s+/)) assert.ok(!others.has(w), `another speaker's name in topic "${phrase}"`);
      }
    }
  });

  test(`${g.name}: findings and evidence quote only the mind`, () => {
    const { turns, result } = analysis(g);
    for (const f of result.findings) assertMindQuote(turns, f, `finding "${f.statement}"`);
    for (const t of result.keyTopics) for (const e of t.evidence) assertMindQuote(turns, e, `topic ${t.label}`);
    for (const p of result.psychometrics) for (const e of p.evidence) assertMindQuote(turns, e, `${p.instrument}.${p.name}`);
  });

  test(`${g.name}: nothing is empty for a long transcript`, () => {
    const { result } = analysis(g);
    assert.ok(result.mindWords > 5000, `expected a long transcript, got ${result.mindWords} words`);
    const big5 = result.psychometrics.filter((p) => p.instrument === 'big_five');
    assert.deepEqual(big5.map((p) => p.name), ['openness', 'conscientiousness', 'extraversion', 'agreeableness', 'neuroticism']);
    for (const p of big5) {
      assert.ok(p.score !== null && p.score > 0 && p.score < 1, `${p.name} score ${p.score}`);
      assert.ok(p.percentile !== null && p.percentile >= 0 && p.percentile <= 100);
      assert.ok(p.confidence > 0.85, `${p.name}: confidence ${p.confidence} for ${result.mindWords} words`);
      assert.ok(!/low confidence/i.test(p.note ?? ''));
      assert.ok(p.evidence.length > 0, `${p.name} has no evidence`);
    }
    assert.ok(result.keyTopics.length >= 3 && result.keyTopics.length <= 15, `${result.keyTopics.length} topics`);
    for (const t of result.keyTopics) {
      assert.ok(t.share > 0 && t.share <= 1 && t.evidence.length > 0 && t.keywords.length > 0, `topic ${t.label} is empty`);
      assert.ok(t.sentiment >= -1 && t.sentiment <= 1);
    }
    const totalShare = result.keyTopics.reduce((s, t) => s + t.share, 0);
    assert.ok(totalShare <= 1.0001, `topic shares add up to ${totalShare}`);
    assert.ok(result.findings.length >= 10, `${result.findings.length} findings`);
    assert.ok(new Set(result.findings.map((f) => f.kind)).size >= 2, 'findings cover more than one kind');
  });
}

test('a topic label is a phrase the mind actually said', () => {
  for (const g of GOLDEN) {
    const { turns, result } = analysis(g);
    const said = turns.filter((t) => t.isMind).map((t) => t.text.toLowerCase().replace(/[\u2018\u2019]/g, "'")).join('\n');
    for (const t of result.keyTopics) assert.ok(said.includes(t.label.toLowerCase()), `label "${t.label}" never said`);
  }
});

test('the same transcript gives the same analysis', () => {
  const g = GOLDEN.find((x) => x.mind === 'Elon Musk')!;
  const first = analysis(g).result;
  const again = analyseTurns(turnsOf(g));
  assert.deepEqual(again, first);
});

test("other speakers' turns do not change the mind's results, only name exclusions", () => {
  const g = GOLDEN[0]!;
  const turns = turnsOf(g);
  const withoutOthers = analyseTurns(turns.filter((t) => t.isMind));
  const full = analysis(g).result;
  assert.equal(withoutOthers.mindWords, full.mindWords);
  assert.deepEqual(withoutOthers.psychometrics, full.psychometrics);
  assert.deepEqual(withoutOthers.findings, full.findings);
});
