/**
 * How long the person answers is a matter of replies, not of the parts ingest cuts a long turn
 * into (a 600-word reply is two ~300-word parts, for retrieval): each part carries the whole
 * reply's length, and a reply counts once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usualLength } from '../../../src/engines/extractive/compose.ts';
import type { MemoryTurn, PersonaCard } from '../../../src/engines/types.ts';
import { replyWordCounts } from '../../../src/features/snapshots/digest.ts';
import { sharedDataPath, skipUnlessSharedData } from '../../support/shared-data.ts';

const sentence = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

test('replyWordCounts: the parts of a cut turn carry the whole reply; other turns null', () => {
  const turns = [
    { text: 'What do you think?' },
    { text: sentence(300) },
    { text: sentence(250), continues: true as const },
    { text: 'And then?' },
    { text: sentence(40) },
  ];
  assert.deepEqual(replyWordCounts(turns), [null, 550, 550, null, null]);
});

test('usualLength: a reply cut in parts is one answer at its whole length', () => {
  const persona = { style: { wordsPerTurn: 50 } } as unknown as PersonaCard;
  const mindsetDate = new Date('2020-01-01Z');
  const turn = (i: number, words: number, context: string, replyWords?: number): MemoryTurn => ({
    turnId: `t${i}`,
    snapshotId: 's1',
    text: sentence(words),
    context,
    startMs: null,
    mindsetDate,
    seq: i,
    ...(replyWords ? { replyWords } : {}),
  });
  const memory = [
    turn(1, 300, 'Tell me about the rainforest?', 600),
    turn(2, 300, 'Tell me about the rainforest?', 600),
    ...[3, 4, 5, 6, 7].map((i) => turn(i, 100, `Question number ${i}?`)),
  ];
  // Six answers: one of 600 words (two parts, counted once) and five of 100.
  assert.equal(usualLength(persona, memory, true), (600 + 5 * 100) / 6);
});

test('a real interview digests with its long replies cut in parts that each know the whole reply', skipUnlessSharedData, async () => {
  const { parseInThisThread } = await import('../../../src/lib/ingest/parse.ts');
  const { digestTranscript } = await import('../../../src/features/snapshots/digest.ts');
  const transcript = await parseInThisThread(sharedDataPath('transcripts/lex-fridman-podcast/400-elon-musk.txt'), 'txt');
  const { turns } = digestTranscript(transcript, { mindName: 'Elon Musk', requestedSpeaker: null });
  const parted = turns.filter((t) => t.replyWords !== null);
  assert.ok(parted.length >= 2, 'the interview has a reply over 400 words');
  for (const t of parted) {
    // The parts of one reply are consecutive turns of one speaker whose words add up to replyWords.
    let start = t.seq;
    while (transcript.turns[start]!.continues) start--;
    let end = start + 1;
    while (end < turns.length && transcript.turns[end]!.continues) end++;
    const sum = turns.slice(start, end).reduce((n, p) => n + p.text.split(/\s+/).filter(Boolean).length, 0);
    assert.equal(t.replyWords, sum);
    assert.ok(end - start >= 2 && turns.slice(start, end).every((p) => p.speaker === t.speaker));
  }
});
