import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyseTurns } from '../../../src/lib/analysis/index.ts';
import { tokenize } from '../../../src/lib/analysis/nlp.ts';

test('every token has a lemma, even where wink gives none ("cannot" before punctuation)', () => {
  const t = tokenize('I truly cannot. CANNOT! Cannot?');
  assert.ok(t.lemma.every((l) => typeof l === 'string' && l.length > 0), JSON.stringify(t.lemma));
});

test('a mind whose turns say "cannot." is analysed without throwing', () => {
  const text = 'I truly cannot. We cannot, and we will not. I think we cannot stop now because the project matters to me.';
  const turns = Array.from({ length: 30 }, (_, i) => ({ turnId: `m${i}`, speaker: 'Alice', text, startMs: i * 1000, isMind: true }));
  const result = analyseTurns(turns);
  assert.ok(result.mindWords > 100);
  assert.ok(result.psychometrics.length > 0);
});
