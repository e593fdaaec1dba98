/**
 * Large valid files complete within the default budgets: a 45 MB plain-text interview and a WebVTT
 * file whose one cue holds 4 million words (a whole talk) are parsed, attributed and analysed in a
 * parser process whose peak resident memory stays under 1 GB. The huge cue is read in bounded
 * pieces (caption-runs.ts boundedRuns) and cut into turns of at most ~400 words; the analysis reads an
 * even sample of such long transcripts (digest.ts analysisSample). Files are generated here.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { closeParserPool, digestTranscriptFile, type ParseStats } from '../../../src/features/snapshots/pool.ts';
import { hugeCueVtt, largeTranscriptText } from '../../support/hostile-files.ts';
import { tempDir } from './helpers.ts';

const tmp = tempDir('large');
after(async () => {
  await closeParserPool();
  tmp.cleanup();
});

const request = { mindName: 'Jane Doe', requestedSpeaker: null };
const onLinux = process.platform === 'linux';

test('a 45 MB plain-text transcript completes with the parser under 1 GB', async () => {
  const path = tmp.file('interview.txt', '');
  const words = await largeTranscriptText(path, 45 * 1024 * 1024);
  assert.ok(statSync(path).size >= 45 * 1024 * 1024);
  let stats: ParseStats | undefined;
  const digest = await digestTranscriptFile(path, 'txt', request, {}, { onStats: (s) => (stats = s) });
  assert.equal(digest.attribution.mindLabel, 'Jane Doe');
  assert.ok(digest.turns.length > 100_000);
  // Every word of the mind is counted, though the analysis read a sample.
  assert.ok(digest.analysis.mindWords > 0.8 * words && digest.analysis.mindWords < words);
  assert.ok(digest.analysis.psychometrics.length > 0 && digest.analysis.keyTopics.length > 0);
  if (onLinux) assert.ok(stats!.peakRssMb < 1024, `peak RSS ${stats!.peakRssMb} MB`);
});

test('a WebVTT file with one cue of 4 million words completes, cut into turns of at most ~400 words, with the parser under 1 GB', async () => {
  const path = tmp.file('talk.vtt', '');
  await hugeCueVtt(path, 4_000_000);
  let stats: ParseStats | undefined;
  const digest = await digestTranscriptFile(path, 'vtt', request, {}, { onStats: (s) => (stats = s) });
  const mind = digest.turns.filter((t) => t.isMind);
  assert.ok(mind.length > 9_000, `${mind.length} turns`);
  assert.ok(mind.every((t) => t.text.split(' ').length <= 450));
  assert.ok(digest.analysis.mindWords >= 4_000_000);
  // The parts of the one cue run in order through its time span.
  assert.equal(mind[0]!.startMs, 3_000);
  assert.ok(mind.every((t, i) => i === 0 || t.startMs! >= mind[i - 1]!.startMs!));
  if (onLinux) assert.ok(stats!.peakRssMb < 1024, `peak RSS ${stats!.peakRssMb} MB`);
});
