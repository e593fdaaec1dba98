/**
 * The semantic index end to end, on the database the suite runs on (by default exact search in
 * process: PGlite, and PostgreSQL 15 without the extension) and, on PGlite, with pgvector forced
 * (MINDPRINT_VECTOR_SEARCH=pgvector), so both search paths run in every CI job.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { loadMindScope, recall, retrieveMemory } from '../../../src/features/memory/index.ts';
import { fixtureFile, rows, upload, waitForSnapshot } from '../snapshots/support.ts';
import { onPostgres, startTestServer, type TestServer } from '../../support/server.ts';
import { understand } from '../../../src/lib/language/understand.ts';

const TRANSCRIPT = 'transcripts/us-presidential-debates/2012-10-03.said.txt';

/** Polls GET /minds/{id}/semantic-index until it is `ready` (bounded). */
async function waitForIndex(s: TestServer, mindId: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await s.api('GET', `/minds/${mindId}/semantic-index`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (res.body.status === 'ready' || res.body.status === 'failed') return res.body;
    if (Date.now() > deadline) throw new Error(`semantic index still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const mode of onPostgres() ? ['auto'] : ['auto', 'pgvector']) {
  describe(`semantic index (${onPostgres() ? 'PostgreSQL' : 'PGlite'}, vector search ${mode})`, () => {
    let s: TestServer;
    let mindId: string;
    let organizationId: string;
    const expected = mode === 'pgvector' ? 'pgvector' : 'process';

    before(async () => {
      s = await startTestServer(mode === 'pgvector' ? { MINDPRINT_VECTOR_SEARCH: 'pgvector' } : {});
      const mind = (await s.api('POST', '/minds', { name: 'Barack H Obama' })).body.mind;
      mindId = mind.id;
      organizationId = mind.organizationId;
      const res = await upload(s, mindId, { file: { bytes: await fixtureFile(TRANSCRIPT), name: 'debate.txt' }, mindsetDate: '2012-10-03T00:00:00Z' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const done = await waitForSnapshot(s, mindId, res.body.mindAssessmentId);
      assert.equal(done.status, 'completed');
    });
    after(() => s?.close());

    test('every turn of the mind and its question get a vector of the current embedder; the mind shows the state', async () => {
      const state = await waitForIndex(s, mindId);
      assert.equal(state.status, 'ready', JSON.stringify(state));
      assert.equal(state.embedder.id, 'glove-6b-100d-sif@1');
      assert.equal(state.embedder.offline, true);
      assert.equal(state.vectorSearch, expected);
      assert.equal(state.snapshots.total, 1);
      assert.equal(state.snapshots.embedded, 1);
      assert.ok(state.turns.total > 10);
      assert.equal(state.turns.embedded, state.turns.total);
      assert.ok(state.lastEmbeddedAt);
      // The snapshot's own status says the same of it.
      const [snapshot] = (await s.api('GET', `/minds/${mindId}/snapshots`)).body.snapshots;
      const status = (await s.api('GET', `/minds/${mindId}/snapshots/${snapshot.id}/status`)).body;
      assert.equal(status.semanticIndex.status, 'ready');
      assert.equal(status.semanticIndex.embedder, 'glove-6b-100d-sif@1');
      assert.equal(status.semanticIndex.embeddedAt, state.lastEmbeddedAt);
      assert.equal(status.semanticIndex.error, null);
      const [r] = await rows(s, sql`select count(*)::int as n, count(e.context_embedding)::int as q, min(e.dimensions) as d,
        count(*) filter (where t.is_mind is not true)::int as others
        from turn_embeddings e join turns t on t.id = e.turn_id where e.mind_id = ${mindId}`);
      assert.equal(r.n, state.turns.total);
      assert.equal(r.others, 0, 'only the mind’s own turns are embedded');
      assert.ok(r.q > 0 && r.q <= r.n, 'turns that answered a question have its vector');
      assert.equal(r.d, 100);
    });

    test('hybrid retrieval: a question in other words than the turns finds them by meaning, with every score', async () => {
      await waitForIndex(s, mindId);
      const memory = s.ctx.memory;
      const { scope } = (await loadMindScope(s.ctx.db, organizationId, mindId, null, memory.embedder.id))!;
      assert.ok(scope.semanticFingerprint, 'the scope knows its embedded snapshots');
      // No word of this message is in a turn about jobs and taxes as written, but the meaning is.
      const message = 'How would you get people back to work?';
      const got = await recall(memory, scope, message, [], understand(message, []));
      assert.equal(got.semanticSkipped, null);
      assert.ok(got.messageEmbedding && got.messageEmbedding.length === 100);
      const semantic = got.memory.filter((t) => t.retrieval?.semanticRank != null);
      const question = got.memory.filter((t) => t.retrieval?.questionRank != null);
      assert.ok(semantic.length > 0 && question.length > 0);
      for (const t of got.memory.filter((x) => x.retrieval)) {
        assert.equal(typeof t.retrieval!.semantic, 'number', 'every candidate carries its similarity to the message');
        assert.ok(t.retrieval!.semantic! >= -1.01 && t.retrieval!.semantic! <= 1.01);
        // Fused = sum of 1 / (60 + rank) over the rankings that found it.
        const f = [t.retrieval!.lexicalRank, t.retrieval!.semanticRank, t.retrieval!.questionRank].reduce<number>((a, r) => a + (r == null ? 0 : 1 / (60 + r)), 0);
        assert.ok(Math.abs(f - t.retrieval!.fused) < 1e-12);
      }
      // Ordered by fused score, and the semantic ranking is by similarity.
      for (let i = 1; i < got.memory.length; i++) assert.ok((got.memory[i - 1]!.retrieval?.fused ?? 0) >= (got.memory[i]!.retrieval?.fused ?? 0));
      const bySemantic = [...semantic].sort((a, b) => a.retrieval!.semanticRank! - b.retrieval!.semanticRank!);
      for (let i = 1; i < bySemantic.length; i++) assert.ok(bySemantic[i - 1]!.retrieval!.semantic! >= bySemantic[i]!.retrieval!.semantic! - 0.02);
      // The best semantic match talks about jobs.
      assert.match(bySemantic.slice(0, 5).map((t) => t.text).join(' '), /\bjobs?\b/i);
      // Full text alone finds fewer of the turns that meaning finds.
      const lexical = await retrieveMemory(s.ctx.db, scope, ['get', 'people', 'back', 'work']);
      assert.ok(lexical.every((t) => t.retrieval?.semanticRank == null && t.retrieval?.semantic == null));
    });

    test('a follow-up is widened by the previous exchange and brings the turns around the last answer', async () => {
      const memory = s.ctx.memory;
      const { scope } = (await loadMindScope(s.ctx.db, organizationId, mindId, null, memory.embedder.id))!;
      const first = await recall(memory, scope, 'What would you do about the deficit?', [], understand('What would you do about the deficit?', []));
      const cited = first.memory.find((t) => /deficit/i.test(t.text))!;
      assert.ok(cited);
      const history = [
        { role: 'user' as const, text: 'What would you do about the deficit?' },
        { role: 'assistant' as const, text: cited.text, evidence: [{ turnId: cited.turnId, snapshotId: cited.snapshotId, quote: cited.text, startMs: null }] },
      ];
      const alone = await recall(memory, scope, 'And how soon?', [], understand('And how soon?', []));
      const follow = await recall(memory, scope, 'And how soon?', history, understand('And how soon?', history), { citedTurnIds: [cited.turnId] });
      assert.equal(follow.followUp, true);
      assert.equal(alone.followUp, false);
      const topAbout = (r: typeof follow) => r.memory.filter((t) => t.retrieval?.semanticRank != null && t.retrieval.semanticRank <= 10).filter((t) => /deficit|debt|spend|budget|tax/i.test(t.text)).length;
      assert.ok(topAbout(follow) > topAbout(alone), `widened: ${topAbout(follow)} of the top 10 about the deficit, alone ${topAbout(alone)}`);
      // The person's turns just before and after the cited one, in its transcript, come along.
      const [next] = await rows(s, sql`select id from turns where snapshot_id = ${cited.snapshotId} and is_mind and seq > ${cited.seq} order by seq limit 1`);
      const [prev] = await rows(s, sql`select id from turns where snapshot_id = ${cited.snapshotId} and is_mind and seq < ${cited.seq} order by seq desc limit 1`);
      const ids = new Set(follow.memory.map((t) => t.turnId));
      for (const n of [next, prev].filter(Boolean)) assert.ok(ids.has(n.id), 'the neighbouring turn comes along');
      assert.ok(next || prev);
      assert.ok(follow.memory.some((t) => t.turnId === cited.turnId));
    });

    test('POST /simulate answers through hybrid retrieval', async () => {
      const res = await s.api('POST', '/simulate', { mindId, scenario: { message: 'How would you get people back to work?' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(res.body.message?.content?.text ?? res.body.text ?? JSON.stringify(res.body));
    });
  });
}
