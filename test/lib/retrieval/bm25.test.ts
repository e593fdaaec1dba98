/**
 * The one BM25: a rarer term weighs more and every term weighs something; repeating a word helps
 * less and less; a long field's words count for less than a short one's, and not at all with b = 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idf, K1, normalisedTf, saturate } from '../../../src/lib/retrieval/bm25.ts';

test('idf: rarer terms weigh more, a term in every document still weighs something', () => {
  assert.ok(idf(1, 100) > idf(10, 100));
  assert.ok(idf(10, 100) > idf(100, 100));
  assert.ok(idf(100, 100) > 0);
  assert.equal(idf(0, 0), Math.log(2));
});

test('saturation: none is nothing, more helps less and less, never reaching 1', () => {
  assert.equal(saturate(0), 0);
  assert.equal(saturate(K1), 0.5);
  const gains = [1, 2, 3, 4].map((tf) => saturate(tf) - saturate(tf - 1));
  for (let i = 1; i < gains.length; i++) assert.ok(gains[i]! < gains[i - 1]!, `the ${i + 1}th repeat adds less`);
  assert.ok(saturate(1e9) < 1);
});

test('length normalisation: a longer field counts a word for less; b = 0 ignores length; tiny averages count as one word', () => {
  assert.ok(normalisedTf(1, 40, 20) < normalisedTf(1, 10, 20));
  assert.equal(normalisedTf(1, 20, 20), 1);
  assert.equal(normalisedTf(2, 500, 20, 0), 2);
  assert.equal(normalisedTf(1, 1, 0), normalisedTf(1, 1, 1));
});
