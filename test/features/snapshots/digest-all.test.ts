/**
 * Every speaker of every shared transcript, taken as the mind, digests without an error: parsing,
 * attribution and the whole analysis, exactly as the job runs them (in one thread here, so it
 * stays fast). A crash here would fail a real user's snapshot.
 */
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { sniffFile } from '../../../src/lib/ingest/index.ts';
import { parseInThisThread } from '../../../src/lib/ingest/parse.ts';
import { digestTranscript } from '../../../src/features/snapshots/digest.ts';
import { sharedDataPath, skipUnlessSharedData } from '../../support/shared-data.ts';

const ROOT = sharedDataPath('transcripts/');

function transcriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return transcriptFiles(p);
    // The .json files are metadata of the debates and MANIFEST.md describes the set.
    return /\.(txt|vtt|srt)$/.test(name) ? [p] : [];
  });
}

test('every speaker of every shared transcript digests as the mind without an error', skipUnlessSharedData, async () => {
  const files = transcriptFiles(ROOT);
  assert.ok(files.length >= 15, `found ${files.length} transcripts`);
  let digests = 0;
  for (const file of files) {
    const kind = await sniffFile(file);
    assert.ok(kind, `${file} is recognised`);
    const transcript = await parseInThisThread(file, kind);
    const labels = [...new Set(transcript.turns.map((t) => t.speaker))];
    let n = 0;
    for (const label of labels) {
      const digest = digestTranscript(transcript, { mindName: label, requestedSpeaker: label }, () => `t${n++}`);
      assert.equal(digest.attribution.mindLabel, label);
      assert.ok(digest.analysis.mindWords >= 0);
      digests++;
    }
  }
  assert.ok(digests >= 40, `${digests} digests`);
});
