/**
 * The engine on auto-captions (the first 2012 debate as YouTube captions it: no speaker names, no
 * punctuation), digested as the pipeline digests them. Each ~120-word turn used to be one
 * "sentence", so an answer quoted ~600 characters from the opening of the best turn; now it
 * quotes the few caption lines that bear on the question.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { contentStems, spokenSentences, words } from '../../../src/engines/extractive/index.ts';
import { UNLABELLED_ANSWER_WORDS, wordBudget } from '../../../src/engines/extractive/compose.ts';
import { isQuestion } from '../../../src/lib/language/text.ts';
import { captions2012, converse, type RealMind } from './real.ts';
import { hasSharedData, skipUnlessSharedData } from '../../support/shared-data.ts';

// The whole caption track of the first 2012 debate (../shared/data): without it every test here skips.
let mind: RealMind;
before(async () => {
  if (hasSharedData) mind = await captions2012();
});

/** Whether `quote`, found in its turn, begins and ends where the turn's caption lines (pseudo-sentences) do. */
function wholeLines(mind: RealMind, turnId: string, quote: string): boolean {
  const turn = mind.memory.find((t) => t.turnId === turnId)!;
  const at = turn.text.indexOf(quote);
  const spans = spokenSentences(turn.text);
  return at >= 0 && spans.some((s) => s.start === at) && spans.some((s) => s.end === at + quote.length);
}

test('the captions are one voice in ~120-word turns, each read as caption lines', skipUnlessSharedData, () => {
  assert.ok(mind.memory.length > 100 && mind.memory.every((t) => t.unlabelled && t.context === null));
  const t = mind.memory[10]!;
  assert.ok(spokenSentences(t.text).length >= 4, 'a turn is several lines, not one sentence');
});

test('"What would you do about taxes?" quotes a few caption lines on taxes, not a 600-character block', skipUnlessSharedData, async () => {
  const [r] = await converse(mind, ['What would you do about taxes?']);
  assert.ok(r!.evidence.length >= 1);
  assert.ok(words(r!.text).length <= UNLABELLED_ANSWER_WORDS * 1.5, r!.text);
  assert.ok(r!.text.length < 600, `${r!.text.length} characters`);
  for (const e of r!.evidence) {
    assert.ok(e.quote.length <= 450, `quote of ${e.quote.length} characters`);
    assert.ok(wholeLines(mind, e.turnId, e.quote), `whole lines: ${e.quote}`);
  }
  assert.ok(contentStems(r!.evidence[0]!.quote).includes('tax'), r!.evidence[0]!.quote);
  assert.equal(r!.text, r!.evidence.map((e) => e.quote.replace(/\n/g, ' ')).join(' '));
});

test('a follow-up on the captions goes on with other lines, never the same ones', skipUnlessSharedData, async () => {
  const [first, more] = await converse(mind, ['What about Medicare?', 'Tell me more.']);
  assert.ok(more!.evidence.length > 0);
  for (const e of more!.evidence) {
    for (const f of first!.evidence) assert.ok(e.turnId !== f.turnId || (!e.quote.includes(f.quote) && !f.quote.includes(e.quote)), `repeated: ${e.quote}`);
  }
});

test('the length of caption turns (a cut every ~120 words) does not set the answer length', skipUnlessSharedData, () => {
  const ranked = mind.memory.slice(0, 3).map((turn) => ({ turn, score: 1, matched: [], coverage: 1 }));
  assert.equal(wordBudget(mind.persona, mind.memory, ranked, true), UNLABELLED_ANSWER_WORDS);
});

test('"Who are you?" on captions: self-descriptions, never a question asked of someone', skipUnlessSharedData, async () => {
  const [r] = await converse(mind, ['Who are you?']);
  assert.ok(r!.evidence.length > 0, r!.text);
  for (const e of r!.evidence) for (const s of spokenSentences(e.quote)) assert.ok(!isQuestion(s.text), s.text);
});
