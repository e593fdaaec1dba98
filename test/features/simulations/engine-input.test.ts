/**
 * The message is read once: engineInput's reading is the one recall searched with and the one
 * the extractive engine answers from (EngineInput.understanding), the same as the engine's own
 * reading of the message with the mind's name.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createExtractiveEngine } from '../../../src/engines/extractive/index.ts';
import { loadMindScope, type MindScope } from '../../../src/features/memory/index.ts';
import { PersonaCache } from '../../../src/features/profile/index.ts';
import { engineInput } from '../../../src/features/simulations/engine-input.ts';
import { understand } from '../../../src/lib/language/understand.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { readDebate, seedSnapshot } from './seed.ts';

const NAME = 'Barack H Obama';
let s: TestServer;
let scope: MindScope;

before(async () => {
  s = await startTestServer();
  const mind = (await s.api('POST', '/minds', { name: NAME })).body.mind;
  await seedSnapshot(s.ctx.db, { organizationId: mind.organizationId, mindId: mind.id, mind: NAME, turns: readDebate('2012-10-03'), mindsetDate: new Date('2012-10-03T00:00:00Z'), analyse: false });
  scope = (await loadMindScope(s.ctx.db, mind.organizationId, mind.id, null, s.ctx.memory.embedder.id))!.scope;
});
after(() => s?.close());

test("the engine is given the run's one reading of the message, and answers from it", async () => {
  const engine = createExtractiveEngine();
  const services = { db: s.ctx.db, personas: new PersonaCache(), memory: s.ctx.memory };
  for (const message of ['What would you do about Medicare?', 'Hello Barack!']) {
    const input = await engineInput(services, scope, engine, null, 0, message);
    assert.deepEqual(input.understanding, understand(message, [], NAME.split(' ')), message);
    // Read by the engine itself (an input built by hand), the answer is the same.
    const { understanding: _, ...byHand } = input;
    assert.deepEqual(await engine.generate(input), await engine.generate(byHand), message);
  }
  const greeting = await engineInput(services, scope, engine, null, 0, 'Hello Barack!');
  assert.equal(greeting.understanding?.social, 'greeting', 'his own name is not a topic');
  // The engine answers from the reading it is given, not from a second one of its own.
  const medicare = await engineInput(services, scope, engine, null, 0, 'What would you do about Medicare?');
  const asIfGreeted = await engine.generate({ ...medicare, understanding: { ...medicare.understanding!, social: 'greeting' } });
  assert.notDeepEqual(asIfGreeted.text, (await engine.generate(medicare)).text);
});
