/**
 * One definition of a word: a snapshot's `mindWords` (the row in the dashboard) and the words of its
 * mind speaker (the speaker picker) are the same number, on real transcripts whose words differ
 * between definitions ("U.S.", "10,000", "well—known", "don't").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digestInThisThread } from '../../../src/features/snapshots/digest.ts';
import { countWords as analysisWords } from '../../../src/lib/analysis/nlp.ts';
import { countWords } from '../../../src/lib/ingest/index.ts';
import { fixturePath } from '../../support/shared-data.ts';

test('the analysis counts words as ingest does', () => {
  for (const text of ['U.S. exports rose 10,000 units', 'well—known, don’t you think?', 'e.g. the 3.5% rate', '— … !']) {
    assert.equal(analysisWords(text), countWords(text), text);
  }
});

test('mindWords equals the mind speaker’s words, labelled transcript and auto-captions', async () => {
  for (const [file, kind, mindName] of [
    ['2012-10-03.said.txt', 'txt', 'W Mitt Romney'],
    ['2012-10-03.vtt', 'vtt', 'W Mitt Romney'],
  ] as const) {
    const d = await digestInThisThread(fixturePath(`transcripts/us-presidential-debates/${file}`), kind, { mindName, requestedSpeaker: null });
    const mind = d.attribution.speakers.find((s) => s.isMind)!;
    assert.ok(mind.words > 1000, file);
    assert.equal(d.analysis.mindWords, mind.words, file);
  }
});
