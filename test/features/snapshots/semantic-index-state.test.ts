/** A snapshot's semanticIndex, as its row records it (src/features/snapshots/views.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { semanticIndexOf } from '../../../src/features/snapshots/views.ts';

const at = new Date('2026-11-25T10:00:00Z');
const row = { status: 'completed', embedder: 'glove-6b-100d-sif@1', embeddedAt: at, embeddingError: null, embeddingQueued: 'glove-6b-100d-sif@1' };

test('waiting before completed, none for a failed snapshot, ready once embedded', () => {
  assert.equal(semanticIndexOf({ ...row, status: 'pending', embedder: null, embeddedAt: null }).status, 'waiting');
  assert.equal(semanticIndexOf({ ...row, status: 'processing', embedder: null, embeddedAt: null }).status, 'waiting');
  assert.deepEqual(semanticIndexOf({ ...row, status: 'failed', embedder: null, embeddedAt: null }), { status: 'none', embedder: null, embeddedAt: null, error: null });
  assert.deepEqual(semanticIndexOf(row), { status: 'ready', embedder: 'glove-6b-100d-sif@1', embeddedAt: at.toISOString(), error: null });
  assert.equal(semanticIndexOf({ ...row, embeddingQueued: null }).status, 'ready', 'rows embedded before the queue column was set');
});

test('indexing while queued (for the first time, or again for another embedder); failed with the reason', () => {
  assert.equal(semanticIndexOf({ ...row, embedder: null, embeddedAt: null }).status, 'indexing');
  const again = semanticIndexOf({ ...row, embeddingQueued: 'openai-compatible:nomic-embed-text' });
  assert.equal(again.status, 'indexing');
  assert.equal(again.embedder, 'glove-6b-100d-sif@1', 'the vectors it still has');
  assert.deepEqual(semanticIndexOf({ ...row, embedder: null, embeddedAt: null, embeddingError: 'the provider answered 401' }), {
    status: 'failed',
    embedder: null,
    embeddedAt: null,
    error: 'the provider answered 401',
  });
});
