import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { VERSION } from '../../../src/platform/version.ts';
import { interview, seedSnapshot } from './seed.ts';
import { simulateStream, waitForMessage } from './helpers.ts';

const EXTRACTIVE = 'mindprint-extractive-1';

const EARLY = interview([
  ['What could the analytical engine do besides arithmetic?', 'I believe the engine might act upon other things besides number, such as music. The engine could compose elaborate pieces of music of any degree of complexity, if the relations of pitched sounds were expressed in its notation.'],
  ['Do you consider yourself a mathematician or a poet?', 'I call my way of thinking poetical science. Imagination is the discovering faculty, and without it mathematics is only a dry exercise in calculation.'],
  ['What does the engine weave?', 'The analytical engine weaves algebraical patterns just as the Jacquard loom weaves flowers and leaves. That comparison is the best I know.'],
  ['Can the engine think for itself?', 'The engine has no pretensions whatever to originate anything. It can do whatever we know how to order it to perform, and nothing more.'],
]);
const LATE = interview([
  ['How have you been spending your time lately?', 'I have been studying the horse races closely, and I am convinced that a mathematical system for betting on horses can be found. The odds at the racecourse are a puzzle I mean to solve.'],
  ['Was the betting system a success?', 'The betting system failed me badly, and I lost a great deal of money on the horses. I regret the debts more than anything else.'],
]);
const HORSES_QUOTE = /horse|betting/i;

let s: TestServer;
let mindId: string;
let orgId: string;
let early: { snapshotId: string; turnIds: string[] };
let late: { snapshotId: string; turnIds: string[] };

before(async () => {
  s = await startTestServer();
  const created = await s.api('POST', '/minds', { name: 'Ada Lovelace' });
  assert.equal(created.status, 200);
  mindId = created.body.mind.id;
  orgId = created.body.mind.organizationId;
  early = await seedSnapshot(s.ctx.db, { organizationId: orgId, mindId, mind: 'Ada', turns: EARLY, mindsetDate: new Date('1843-09-01T00:00:00Z') });
  late = await seedSnapshot(s.ctx.db, { organizationId: orgId, mindId, mind: 'Ada', turns: LATE, mindsetDate: new Date('1851-05-01T00:00:00Z') });
});
after(() => s?.close());

const adaTexts = () => [...EARLY, ...LATE].filter((t) => t.speaker === 'Ada').map((t) => t.text);

test('POST /simulate answers in the person\'s own words, stores the conversation, and lists the extractive model', async () => {
  const models = await s.api('GET', '/models');
  assert.equal(models.status, 200);
  assert.deepEqual(models.body, { models: [{ id: EXTRACTIVE, engine: 'extractive', streams: true, default: true }] });

  const res = await s.api('POST', '/simulate', { scenario: { message: 'Could the analytical engine compose music?' }, mindId });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const b = res.body;
  assert.deepEqual(Object.keys(b).sort(), ['analysis', 'conversationId', 'evidence', 'message', 'messageId', 'model', 'simulationId', 'warnings']);
  assert.deepEqual(b.warnings, [], 'a transcript that labels its speakers: nothing to warn of');
  assert.equal(b.simulationId, b.conversationId);
  assert.equal(b.model, EXTRACTIVE);
  assert.match(b.message, /music/i);
  assert.ok(b.evidence.length >= 1);
  for (const e of b.evidence) {
    assert.ok(adaTexts().some((t) => t.includes(e.quote)), `evidence quotes Ada verbatim: ${e.quote}`);
    assert.ok([early.snapshotId, late.snapshotId].includes(e.snapshotId));
    assert.ok(early.turnIds.includes(e.turnId) || late.turnIds.includes(e.turnId));
  }
  for (const k of ['thinking', 'feeling', 'saying', 'acting']) assert.equal(typeof b.analysis[k], 'string');

  const got = await s.api('GET', `/simulations/${b.simulationId}`);
  assert.equal(got.status, 200);
  const sim = got.body.simulation;
  assert.deepEqual(Object.keys(sim).sort(), ['asOfSnapshotId', 'createdAt', 'digitalTwinId', 'id', 'mindAssessmentId', 'mindId', 'organizationId', 'sharedWithUsers', 'title', 'updatedAt', 'user', 'userId']);
  assert.equal(sim.asOfSnapshotId, null, 'all linked snapshots');
  assert.equal(sim.title, 'Could the analytical engine compose music?');
  assert.equal(sim.mindId, mindId);
  assert.equal(sim.mindAssessmentId, late.snapshotId, 'the newest linked snapshot');
  assert.ok(sim.digitalTwinId);
  assert.deepEqual(Object.keys(sim.user).sort(), ['createdAt', 'email', 'id', 'imageUrl', 'name']);
  assert.equal(sim.user.id, sim.userId);
  assert.deepEqual(sim.sharedWithUsers, []);
  const [user, assistant] = got.body.messages;
  assert.equal(got.body.messages.length, 2);
  assert.equal(user.role, 'user');
  assert.equal(user.status, 'completed');
  assert.deepEqual(user.content, { text: 'Could the analytical engine compose music?' });
  assert.equal(assistant.role, 'assistant');
  assert.equal(assistant.id, b.messageId);
  assert.equal(assistant.status, 'completed');
  assert.equal(assistant.framework, 'mindprint');
  assert.equal(assistant.version, VERSION);
  assert.equal(assistant.errors, null);
  assert.deepEqual(assistant.content, { text: b.message, evidence: b.evidence, analysis: b.analysis, model: EXTRACTIVE });
  assert.ok(assistant.startedAt && assistant.completedAt);
});

test('a conversation continues with conversationId: messages append in order and follow-ups use the history', async () => {
  const first = await s.api('POST', '/simulate', { scenario: { message: 'What does the analytical engine weave?' }, mindId });
  assert.equal(first.status, 200);
  const second = await s.api('POST', '/simulate', { scenario: { message: 'Why is that?' }, mindId, conversationId: first.body.conversationId });
  assert.equal(second.status, 200, JSON.stringify(second.body));
  assert.equal(second.body.simulationId, first.body.simulationId);
  assert.notEqual(second.body.messageId, first.body.messageId);
  assert.ok(second.body.evidence.length > 0, 'the follow-up finds the weaving turn through the history');

  const got = await s.api('GET', `/simulations/${first.body.simulationId}`);
  assert.deepEqual(got.body.messages.map((m: any) => [m.role, m.status]), [['user', 'completed'], ['assistant', 'completed'], ['user', 'completed'], ['assistant', 'completed']]);
  assert.equal(got.body.messages[2].content.text, 'Why is that?');
  assert.equal(got.body.messages[3].id, second.body.messageId);
  assert.equal(got.body.simulation.title, 'What does the analytical engine weave?', 'the title stays the first message');
});

test('"as of" a snapshot: only that snapshot and earlier ones are remembered', async () => {
  const question = { message: 'Tell me about betting on the horse races.' };
  const now = await s.api('POST', '/simulate', { scenario: question, mindId });
  assert.equal(now.status, 200);
  assert.ok(now.body.evidence.some((e: any) => e.snapshotId === late.snapshotId), 'today she remembers the races');
  assert.match(now.body.message, HORSES_QUOTE);

  const then = await s.api('POST', '/simulate', { scenario: question, mindId, snapshotId: early.snapshotId });
  assert.equal(then.status, 200, JSON.stringify(then.body));
  assert.ok(then.body.evidence.every((e: any) => e.snapshotId === early.snapshotId), 'nothing from the later snapshot');
  assert.doesNotMatch(then.body.evidence.map((e: any) => e.quote).join(' '), HORSES_QUOTE);
  const sim = await s.api('GET', `/simulations/${then.body.simulationId}`);
  assert.equal(sim.body.simulation.mindAssessmentId, early.snapshotId);
  // Every Simulation says which scope its conversation has: the list, the resource, a share's answer.
  assert.equal(sim.body.simulation.asOfSnapshotId, early.snapshotId);
  const listed = (await s.api('GET', `/simulations?mindId=${mindId}&limit=100`)).body.simulations;
  assert.equal(listed.find((x: any) => x.id === then.body.simulationId).asOfSnapshotId, early.snapshotId);
  assert.equal(listed.find((x: any) => x.id === now.body.simulationId).asOfSnapshotId, null);
  const colleague = await s.newKey('default', 'charles@example.com');
  const shared = await s.api('POST', `/simulations/${then.body.simulationId}/share`, { userIds: [colleague.userId] });
  assert.equal(shared.body.simulation.asOfSnapshotId, early.snapshotId);
  assert.equal((await s.api('GET', `/simulations/${then.body.simulationId}`, undefined, colleague.key)).body.simulation.asOfSnapshotId, early.snapshotId);

  // The conversation stays as of that snapshot; asking for another date in it is refused.
  const more = await s.api('POST', '/simulate', { scenario: { message: 'And the horses?' }, mindId, conversationId: then.body.conversationId });
  assert.equal(more.status, 200);
  assert.ok(more.body.evidence.every((e: any) => e.snapshotId === early.snapshotId));
  const switched = await s.api('POST', '/simulate', { scenario: question, mindId, conversationId: then.body.conversationId, snapshotId: late.snapshotId });
  assert.equal(switched.status, 400);
  assert.match(switched.body.message, /snapshot/);
});

test('unlinked and unfinished snapshots are not memory; a mind without a completed, linked snapshot is a 400', async () => {
  const created = await s.api('POST', '/minds', { name: 'Charles Babbage' });
  const babbage = created.body.mind.id;
  const ask = () => s.api('POST', '/simulate', { scenario: { message: 'What about the difference engine?' }, mindId: babbage });

  let res = await ask();
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'VALIDATION_FAILED');
  assert.match(res.body.message, /no completed, linked snapshot/);

  const turns = [{ speaker: 'Q', text: 'The difference engine?' }, { speaker: 'Charles', text: 'The difference engine tabulates polynomials by the method of differences.' }];
  await seedSnapshot(s.ctx.db, { organizationId: orgId, mindId: babbage, mind: 'Charles', turns, mindsetDate: new Date('1830-01-01Z'), status: 'processing' });
  await seedSnapshot(s.ctx.db, { organizationId: orgId, mindId: babbage, mind: 'Charles', turns, mindsetDate: new Date('1831-01-01Z'), linked: false });
  res = await ask();
  assert.equal(res.status, 400, 'processing and unlinked snapshots do not count');

  const linked = await seedSnapshot(s.ctx.db, { organizationId: orgId, mindId: babbage, mind: 'Charles', turns: [{ speaker: 'Q', text: 'Your hobby?' }, { speaker: 'Charles', text: 'I campaign against street musicians and their organs.' }], mindsetDate: new Date('1832-01-01Z') });
  res = await ask();
  assert.equal(res.status, 200);
  assert.ok(res.body.evidence.every((e: any) => e.snapshotId === linked.snapshotId), 'only the linked, completed snapshot is quoted');
  assert.doesNotMatch(res.body.message, /polynomials/);
});

test('bad requests are 400 and change nothing; unknown things are 404', async () => {
  const before = await s.api('GET', '/simulations?limit=100');
  const bad: [object, RegExp][] = [
    [{ scenario: { message: '' }, mindId }, /body\.scenario\.message/],
    [{ scenario: { message: '   ' }, mindId }, /body\.scenario\.message/],
    [{ scenario: {}, mindId }, /body\.scenario/],
    [{ mindId }, /body\.scenario/],
    [{ scenario: { message: 'hi' } }, /body\.mindId/],
    [{ scenario: { message: 'hi' }, mindId: 'not-a-uuid' }, /body\.mindId/],
    [{ scenario: { message: 'hi' }, mindId, colour: 'blue' }, /body\.colour/],
    [{ scenario: { message: 'hi', mood: 'x' }, mindId }, /body\.scenario/],
    [{ scenario: { message: 'hi' }, mindId, stream: 'yes' }, /body\.stream/],
    [{ scenario: { message: 'hi' }, mindId, stream: true, runInBackground: true }, /runInBackground/],
  ];
  for (const [body, field] of bad) {
    const res = await s.api('POST', '/simulate', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.code, 'VALIDATION_FAILED');
    assert.match(res.body.message, field);
  }

  const model = await s.api('POST', '/simulate', { scenario: { message: 'hi' }, mindId, selectedSimulationModel: 'gpt-17' });
  assert.equal(model.status, 400);
  assert.match(model.body.message, /gpt-17/);
  assert.match(model.body.message, new RegExp(EXTRACTIVE));
  assert.deepEqual(model.body.models, [EXTRACTIVE]);

  const unknownMind = await s.api('POST', '/simulate', { scenario: { message: 'hi' }, mindId: '00000000-0000-4000-8000-000000000000' });
  assert.equal(unknownMind.status, 404);
  const unknownConversation = await s.api('POST', '/simulate', { scenario: { message: 'hi' }, mindId, conversationId: '00000000-0000-4000-8000-000000000000' });
  assert.equal(unknownConversation.status, 404);
  const unknownSnapshot = await s.api('POST', '/simulate', { scenario: { message: 'hi' }, mindId, snapshotId: '00000000-0000-4000-8000-000000000000' });
  assert.equal(unknownSnapshot.status, 404);

  // Another mind's conversation or snapshot.
  const other = (await s.api('POST', '/minds', { name: 'Mary Somerville' })).body.mind.id;
  const mary = await seedSnapshot(s.ctx.db, { organizationId: orgId, mindId: other, mind: 'Mary', turns: [{ speaker: 'Q', text: 'Physics?' }, { speaker: 'Mary', text: 'I wrote on the connexion of the physical sciences.' }], mindsetDate: new Date('1834-01-01Z') });
  const maryConversation = await s.api('POST', '/simulate', { scenario: { message: 'What did you write about physical sciences?' }, mindId: other });
  assert.equal(maryConversation.status, 200);
  const wrongMind = await s.api('POST', '/simulate', { scenario: { message: 'hi' }, mindId, conversationId: maryConversation.body.conversationId });
  assert.equal(wrongMind.status, 400);
  assert.match(wrongMind.body.message, /another mind/);
  const wrongSnapshot = await s.api('POST', '/simulate', { scenario: { message: 'hi' }, mindId, snapshotId: mary.snapshotId });
  assert.equal(wrongSnapshot.status, 400);

  const afterList = await s.api('GET', '/simulations?limit=100');
  assert.equal(afterList.body.count, before.body.count + 1, 'only the valid Mary simulation was created');
});

test('a question the memory does not cover gets an honest "not talked about it", with no evidence', async () => {
  const res = await s.api('POST', '/simulate', { scenario: { message: 'What is your favourite smartphone app for cryptocurrency trading?' }, mindId });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.evidence, []);
  assert.ok(res.body.message.length > 0);
});

test('stream: true sends start, deltas that concatenate to done.message, and done; the stored message is completed', async () => {
  const { status, contentType, events } = await simulateStream(s, { scenario: { message: 'Can the engine originate anything by itself?' }, mindId });
  assert.equal(status, 200);
  assert.match(contentType ?? '', /^text\/event-stream/);
  assert.equal(events[0]?.event, 'start');
  const { simulationId, conversationId, messageId } = events[0]!.data;
  assert.ok(simulationId && conversationId && messageId);
  const last = events.at(-1)!;
  assert.equal(last.event, 'done', JSON.stringify(last));
  const deltas = events.filter((e) => e.event === 'delta');
  assert.ok(deltas.length > 3);
  assert.equal(deltas.map((d) => d.data.text).join(''), last.data.message);
  assert.match(last.data.message, /originate/);
  assert.ok(last.data.evidence.length > 0);
  assert.ok(last.data.analysis.thinking);

  const stored = await waitForMessage(s, simulationId, messageId);
  assert.equal(stored.status, 'completed');
  assert.equal(stored.content.text, last.data.message);
});

test('runInBackground: 200 at once with status pending; the worker completes the message', async () => {
  const res = await s.api('POST', '/simulate', { scenario: { message: 'Is imagination important in mathematics?' }, mindId, runInBackground: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body).sort(), ['conversationId', 'message', 'messageId', 'simulationId', 'status']);
  assert.equal(res.body.message, 'Simulation queued');
  assert.equal(res.body.status, 'pending');
  const message = await waitForMessage(s, res.body.simulationId, res.body.messageId);
  assert.equal(message.status, 'completed', JSON.stringify(message));
  assert.match(message.content.text, /imagination/i);
  assert.ok(message.content.evidence.length > 0);
  assert.equal(message.content.model, EXTRACTIVE);
});

test('deleting the mind deletes its simulations and their messages', async () => {
  const m = (await s.api('POST', '/minds', { name: 'Temporary Person' })).body.mind.id;
  await seedSnapshot(s.ctx.db, { organizationId: orgId, mindId: m, mind: 'T', turns: [{ speaker: 'Q', text: 'Gardens?' }, { speaker: 'T', text: 'I love my garden of roses.' }], mindsetDate: new Date('2020-01-01Z') });
  const sim = await s.api('POST', '/simulate', { scenario: { message: 'Do you like roses in your garden?' }, mindId: m });
  assert.equal(sim.status, 200);
  assert.equal((await s.api('DELETE', `/minds/${m}`)).status, 200);
  assert.equal((await s.api('GET', `/simulations/${sim.body.simulationId}`)).status, 404);
  const { rows } = await s.ctx.database.execute('select count(*)::int as n from messages where conversation_id = $1', [sim.body.simulationId]);
  assert.equal(rows[0].n, 0);
});
