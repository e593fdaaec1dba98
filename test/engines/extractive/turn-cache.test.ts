/**
 * The per-turn cache of the extractive engine (src/engines/extractive/turn-index.ts): what is
 * derived from a turn alone (index, sentences, filler share, sentence vectors) is kept across
 * requests, re-derived when the turn's text or context differs, and the cache stays bounded.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import type { MemoryTurn } from '../../../src/engines/types.ts';
import { Addressees } from '../../../src/engines/extractive/compose.ts';
import { fillerShareOf } from '../../../src/engines/extractive/passage.ts';
import { CACHE_LIMIT, cachedTurns, indexTurn, sentencesOf, turnEntry } from '../../../src/engines/extractive/turn-index.ts';
import { turnVectors } from '../../../src/engines/extractive/rerank/index.ts';

const turn = (turnId: string, text: string, context: string | null = null): MemoryTurn => ({
  turnId,
  snapshotId: 's1',
  text,
  context,
  startMs: null,
  mindsetDate: new Date(Date.UTC(2024, 0, 1)),
  seq: 1,
});

test('a turn is re-read when its text or its context differs under the same id', () => {
  const a = turn('cache-a', 'Taxes are too high. We should cut them for the middle class.');
  assert.deepEqual(sentencesOf(a).map((s) => s.text), ['Taxes are too high.', 'We should cut them for the middle class.']);
  const entry = turnEntry(a);
  // Another object with the same id and text (the next request's row): the same entry.
  assert.equal(turnEntry({ ...a }), entry);

  const changed = { ...a, text: 'Feel free to follow me on Twitter. Subscribe to the newsletter.' };
  assert.notEqual(turnEntry(changed), entry);
  assert.deepEqual(sentencesOf(changed).map((s) => s.text), ['Feel free to follow me on Twitter.', 'Subscribe to the newsletter.']);
  assert.equal(fillerShareOf(changed), 1);
  assert.equal(fillerShareOf(a), 0, 'the old text read again is not filler');
  assert.equal(indexTurn(a).context.length, 0);

  const asked = { ...a, context: 'What would you do about taxes?' };
  assert.notEqual(turnEntry(asked), turnEntry(a));
  assert.equal(indexTurn(asked).context.asks, true);
  assert.equal(indexTurn(a).context.asks, false);
});

test('the same turn object edited in place is re-read too', () => {
  const t = turn('cache-b', 'Energy independence matters.');
  const before = indexTurn(t).text.words;
  t.text = 'Energy independence matters to every family in this country.';
  assert.equal(before, 3);
  assert.equal(indexTurn(t).text.words, 9);
  assert.equal(sentencesOf(t)[0]!.text, t.text);
});

test('sentence vectors follow the text and the embedding function', () => {
  let calls = 0;
  const embed = (text: string) => {
    calls++;
    return Float32Array.from([text.length, 1]);
  };
  const t = turn('cache-c', 'Twelve words.', 'A question?');
  const v = turnVectors(t, embed);
  assert.deepEqual([...v.text], [13, 1]);
  assert.deepEqual([...v.context!], [11, 1]);
  assert.equal(calls, 2);
  turnVectors({ ...t }, embed);
  assert.equal(calls, 2, 'cached for the same turn, text and function');
  assert.deepEqual([...turnVectors({ ...t, text: 'Other words here.' }, embed).text], [17, 1]);
  const other = (text: string) => Float32Array.from([0, text.length]);
  assert.deepEqual([...turnVectors(t, other).text], [0, 13], 'another embedding function is not served the first one’s vectors');
});

test('the cache is bounded: the least recently used turns are evicted first', () => {
  const kept = turn('cache-kept', 'Kept because it is used all the time.');
  const keptEntry = turnEntry(kept);
  const first = turn('cache-first', 'The first filler turn.');
  const firstEntry = turnEntry(first);
  for (let i = 0; i < CACHE_LIMIT + 50; i++) {
    turnEntry(turn(`cache-fill-${i}`, `Turn number ${i} says something.`));
    if (i % 1000 === 0) turnEntry({ ...kept }); // used again and again, as a mind's turns are
    assert.ok(cachedTurns() <= CACHE_LIMIT);
  }
  assert.ok(cachedTurns() >= CACHE_LIMIT * 0.85, 'eviction frees a tenth at a time, not the whole cache');
  assert.equal(turnEntry({ ...kept }), keptEntry, 'a turn in use stays');
  assert.notEqual(turnEntry({ ...first }), firstEntry, 'the least recently used one was evicted (and is read anew)');
});

test('compiled addressee patterns are shared only by the same speakers and name', () => {
  const jim = new Addressees(['Jim Lehrer', 'W Mitt Romney'], 'Barack H Obama');
  const candy = new Addressees(['Candy Crowley', 'W Mitt Romney'], 'Barack H Obama');
  assert.equal(jim.addressed('Jim, if I can just respond to that.'), true);
  assert.equal(candy.addressed('Jim, if I can just respond to that.'), false);
  assert.equal(candy.addressed('Candy, if I can just respond to that.'), true);
  // The same speakers again (the next request): the same answers, and the same key for the passage caches.
  const again = new Addressees(['Jim Lehrer', 'W Mitt Romney'], 'Barack H Obama');
  assert.equal(again.key, jim.key);
  assert.equal(again.addressed('Candy, if I can just respond to that.'), false);
  // Their own name is never taken for someone they address.
  assert.equal(new Addressees(['Jim Lehrer'], 'Jim Lehrer').addressed('Jim, if I can just respond to that.'), false);
});
