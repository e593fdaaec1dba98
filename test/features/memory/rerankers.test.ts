/**
 * Per-mind rerankers in the service (src/features/memory/rerankers.ts, MINDPRINT_RERANKER_ADAPT): computed
 * in the background from the mind's turns in the database, never waited for by a request, used
 * by the extractive engine once ready, and computed anew when the mind's snapshots change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createExtractiveEngine } from '../../../src/engines/extractive/index.ts';
import { shippedModel } from '../../../src/engines/extractive/rerank/index.ts';
import { loadMindScope, scopeTurns } from '../../../src/features/memory/index.ts';
import { engineInput } from '../../../src/features/simulations/engine-input.ts';
import { readDebate, seedSnapshot } from '../simulations/seed.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { PersonaCache } from '../../../src/features/profile/index.ts';

describe('per-mind rerankers', () => {
  let s: TestServer;
  let mindId: string;
  let organizationId: string;
  const scopeOf = async () => (await loadMindScope(s.ctx.db, organizationId, mindId, null))!.scope;

  before(async () => {
    s = await startTestServer({ MINDPRINT_RERANKER_ADAPT: 'true' });
    const mind = (await s.api('POST', '/minds', { name: 'Barack H Obama' })).body.mind;
    mindId = mind.id;
    organizationId = mind.organizationId;
    for (const date of ['2012-10-03', '2012-10-16']) {
      await seedSnapshot(s.ctx.db, { organizationId, mindId, mind: 'Barack H Obama', turns: readDebate(date), mindsetDate: new Date(`${date}T00:00:00Z`), analyse: false });
    }
  });
  after(() => s?.close());

  test("the mind's turns in scope come back in transcript order, the mind's only", async () => {
    const turns = await scopeTurns(s.ctx.db, await scopeOf());
    const expected = ['2012-10-03', '2012-10-16'].flatMap((d) => readDebate(d).filter((t) => t.speaker === 'Barack H Obama'));
    assert.equal(turns.length, expected.length);
    assert.deepEqual(turns.map((t) => t.text), expected.map((t) => t.text));
    assert.ok(turns.every((t) => t.retrieval === undefined));
  });

  test('the first request starts the adaptation and is answered with the shipped model; later ones get the adapted model', async () => {
    const memory = s.ctx.memory;
    const scope = await scopeOf();
    const engine = createExtractiveEngine();
    const services = { db: s.ctx.db, personas: new PersonaCache(), memory, rerankers: s.ctx.rerankers, config: s.ctx.config };
    const first = await engineInput(services, scope, engine, null, 0, 'What would you do about Medicare?');
    assert.equal(first.reranker, undefined, 'nothing is waited for on the request path');
    const adapted = await s.ctx.rerankers.ready(s.ctx.db, scope);
    assert.ok(adapted, 'two debates give enough pairs');
    assert.notDeepEqual(adapted.weights, shippedModel().weights);
    const later = await engineInput(services, scope, engine, null, 0, 'What would you do about Medicare?');
    assert.equal(later.reranker, adapted);
    const result = await engine.generate(later);
    assert.ok(result.evidence.length >= 1);

    // Off (the default): no per-mind model.
    const off = await engineInput({ ...services, config: { rerankerAdapt: false } }, scope, engine, null, 0, 'What would you do about Medicare?');
    assert.equal(off.reranker, undefined);

    // A new snapshot is another scope: adapted anew.
    await seedSnapshot(s.ctx.db, { organizationId, mindId, mind: 'Barack H Obama', turns: readDebate('2012-10-22'), mindsetDate: new Date('2012-10-22T00:00:00Z'), analyse: false });
    const grown = await scopeOf();
    assert.notEqual(grown.fingerprint, scope.fingerprint);
    assert.equal(s.ctx.rerankers.peek(s.ctx.db, grown), undefined);
    const again = await s.ctx.rerankers.ready(s.ctx.db, grown);
    assert.ok(again);
    assert.notDeepEqual(again.weights, adapted.weights);
  });
});
