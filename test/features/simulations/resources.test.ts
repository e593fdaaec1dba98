import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { interview, seedSnapshot } from './seed.ts';

let s: TestServer;
let mindId: string;
let otherMindId: string;
let bob: Awaited<ReturnType<TestServer['newKey']>>;
let carol: Awaited<ReturnType<TestServer['newKey']>>;
let eve: Awaited<ReturnType<TestServer['newKey']>>;
let adminId: string;

before(async () => {
  s = await startTestServer();
  bob = await s.newKey('default', 'bob@example.com');
  carol = await s.newKey('default', 'carol@example.com');
  eve = await s.newKey('other-org', 'eve@example.org');
  const mind = (await s.api('POST', '/minds', { name: 'Ada Lovelace' })).body.mind;
  mindId = mind.id;
  otherMindId = (await s.api('POST', '/minds', { name: 'Mary Somerville' })).body.mind.id;
  const turns = interview([
    ['What could the engine do?', 'The engine might compose elaborate pieces of music, if the relations of pitched sounds were expressed in its notation.'],
    ['And weaving?', 'The analytical engine weaves algebraical patterns just as the Jacquard loom weaves flowers and leaves.'],
  ]);
  await seedSnapshot(s.ctx.db, { organizationId: mind.organizationId, mindId, mind: 'Ada', turns, mindsetDate: new Date('1843-01-01Z') });
  await seedSnapshot(s.ctx.db, { organizationId: mind.organizationId, mindId: otherMindId, mind: 'Ada', turns, mindsetDate: new Date('1843-01-01Z') });
  const users = await s.api('GET', '/users');
  adminId = users.body.users.find((u: any) => u.email === 'admin@localhost').id;
});
after(() => s?.close());

const simulate = (message: string, key = s.key, extra: object = {}) => s.api('POST', '/simulate', { scenario: { message }, mindId, ...extra }, key);

test('GET /users lists the users of the caller\'s organization only', async () => {
  const res = await s.api('GET', '/users');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.users.map((u: any) => u.email).sort(), ['admin@localhost', 'bob@example.com', 'carol@example.com']);
  for (const u of res.body.users) assert.deepEqual(Object.keys(u).sort(), ['createdAt', 'email', 'id', 'imageUrl', 'name']);
  // User.imageUrl is a string (spec 2): users without a picture get their initials as an SVG.
  const carol = res.body.users.find((u: any) => u.email === 'carol@example.com');
  assert.match(carol.imageUrl, /^data:image\/svg\+xml;base64,/);
  const svg = Buffer.from(carol.imageUrl.split(',')[1], 'base64').toString();
  assert.match(svg, /^<svg [^>]*>.*<text [^>]*>C\p{Lu}?<\/text><\/svg>$/u, `${carol.name}: ${svg}`);
  const other = await s.api('GET', '/users', undefined, eve.key);
  assert.deepEqual(other.body.users.map((u: any) => u.email), ['eve@example.org']);
  assert.equal((await s.api('GET', '/users', undefined, null)).status, 401);
});

test('owner, shared user, same-organization stranger and another organization: 200, 200, 403, 404', async () => {
  const sim = await simulate('Could the engine compose music?');
  assert.equal(sim.status, 200);
  const id = sim.body.simulationId;

  assert.equal((await s.api('GET', `/simulations/${id}`, undefined, bob.key)).status, 403);
  assert.equal((await s.api('GET', `/simulations/${id}`, undefined, eve.key)).status, 404);
  assert.equal((await s.api('DELETE', `/simulations/${id}`, undefined, eve.key)).status, 404);
  assert.equal((await s.api('POST', `/simulations/${id}/share`, { userIds: [eve.userId] }, eve.key)).status, 404);
  const strangerContinues = await simulate('And weaving?', bob.key, { conversationId: id });
  assert.equal(strangerContinues.status, 403);
  assert.equal(strangerContinues.body.code, 'FORBIDDEN');
  assert.equal((await simulate('And weaving?', eve.key, { conversationId: id })).status, 404, 'another organization: the mind does not exist either');

  // Share with Bob by id and Carol by email (any case).
  const shared = await s.api('POST', `/simulations/${id}/share`, { userIds: [bob.userId], emails: ['Carol@Example.com'] });
  assert.equal(shared.status, 200, JSON.stringify(shared.body));
  assert.deepEqual(shared.body.simulation.sharedWithUsers.map((u: any) => u.email).sort(), ['bob@example.com', 'carol@example.com']);
  for (const u of shared.body.simulation.sharedWithUsers) assert.deepEqual(Object.keys(u).sort(), ['createdAt', 'email', 'id', 'imageUrl', 'name']);
  assert.equal(shared.body.simulation.user.email, 'admin@localhost');
  // Sharing again is harmless; sharing with the owner means nothing.
  const again = await s.api('POST', `/simulations/${id}/share`, { userIds: [bob.userId, adminId] });
  assert.equal(again.body.simulation.sharedWithUsers.length, 2);

  const bobView = await s.api('GET', `/simulations/${id}`, undefined, bob.key);
  assert.equal(bobView.status, 200);
  assert.equal(bobView.body.simulation.id, id);
  // A shared user may continue the conversation; the message is theirs.
  const bobTurn = await simulate('And what does it weave?', bob.key, { conversationId: id });
  assert.equal(bobTurn.status, 200, JSON.stringify(bobTurn.body));
  const afterBob = await s.api('GET', `/simulations/${id}`);
  assert.equal(afterBob.body.messages.length, 4);
  assert.equal(afterBob.body.messages[2].userId, bob.userId);
  // …but neither share it further nor delete it.
  assert.equal((await s.api('POST', `/simulations/${id}/share`, { userIds: [carol.userId] }, bob.key)).status, 403);
  assert.equal((await s.api('DELETE', `/simulations/${id}/share/${carol.userId}`, undefined, bob.key)).status, 403);
  assert.equal((await s.api('DELETE', `/simulations/${id}`, undefined, bob.key)).status, 403);

  // Bob lists it among his simulations.
  const bobList = await s.api('GET', '/simulations', undefined, bob.key);
  assert.ok(bobList.body.simulations.some((x: any) => x.id === id));

  // Unshare Bob: he is a stranger again.
  const unshared = await s.api('DELETE', `/simulations/${id}/share/${bob.userId}`);
  assert.equal(unshared.status, 200);
  assert.deepEqual(unshared.body.simulation.sharedWithUsers.map((u: any) => u.email), ['carol@example.com']);
  assert.equal((await s.api('DELETE', `/simulations/${id}/share/${bob.userId}`)).status, 200, 'idempotent');
  assert.equal((await s.api('GET', `/simulations/${id}`, undefined, bob.key)).status, 403);
  assert.ok(!(await s.api('GET', '/simulations', undefined, bob.key)).body.simulations.some((x: any) => x.id === id));
  assert.equal((await s.api('DELETE', `/simulations/${id}/share/${eve.userId}`)).status, 404, 'not a user of this organization');

  // The owner deletes it.
  const deleted = await s.api('DELETE', `/simulations/${id}`);
  assert.equal(deleted.status, 200);
  assert.deepEqual(deleted.body, { message: 'Simulation deleted', simulationId: id });
  assert.equal((await s.api('GET', `/simulations/${id}`)).status, 404);
  assert.equal((await s.api('GET', `/simulations/${id}`, undefined, carol.key)).status, 404);
  const { rows } = await s.ctx.database.execute('select count(*)::int as n from messages where conversation_id = $1', [id]);
  assert.equal(rows[0].n, 0);
});

test('sharing only with users of the same organization: unknown ids and emails are named in the 400', async () => {
  const id = (await simulate('Could the engine compose music?')).body.simulationId;
  const res = await s.api('POST', `/simulations/${id}/share`, { userIds: [eve.userId, bob.userId], emails: ['nobody@example.com'] });
  assert.equal(res.status, 400);
  assert.match(res.body.message, new RegExp(eve.userId));
  assert.match(res.body.message, /nobody@example\.com/);
  assert.doesNotMatch(res.body.message, new RegExp(bob.userId));
  assert.deepEqual(res.body.unknown, [eve.userId, 'nobody@example.com']);
  const unchanged = await s.api('GET', `/simulations/${id}`);
  assert.deepEqual(unchanged.body.simulation.sharedWithUsers, [], 'nothing was shared');
  assert.equal((await s.api('POST', `/simulations/${id}/share`, {})).status, 400);
  assert.equal((await s.api('POST', `/simulations/${id}/share`, { userIds: [] })).status, 400);
  assert.equal((await s.api('POST', `/simulations/${id}/share`, { userIds: ['nope'] })).status, 400);
});

test('GET /simulations: mine and shared with me, newest first, filtered by mind, paginated with a total count', async () => {
  const fresh = await s.newKey('default', 'dave@example.com');
  const ids: string[] = [];
  for (const q of ['Music?', 'Weaving?', 'The loom?']) ids.push((await simulate(q, fresh.key)).body.simulationId);
  const onOther = (await s.api('POST', '/simulate', { scenario: { message: 'Music?' }, mindId: otherMindId }, fresh.key)).body.simulationId;
  const sharedWithDave = (await simulate('Weaving patterns?')).body.simulationId;
  await s.api('POST', `/simulations/${sharedWithDave}/share`, { userIds: [fresh.userId] });

  const all = await s.api('GET', '/simulations', undefined, fresh.key);
  assert.equal(all.status, 200);
  assert.equal(all.body.count, 5);
  assert.deepEqual(all.body.simulations.map((x: any) => x.id), [sharedWithDave, onOther, ...ids.reverse()]);

  const page = await s.api('GET', '/simulations?limit=2&offset=1', undefined, fresh.key);
  assert.equal(page.body.count, 5);
  assert.deepEqual(page.body.simulations.map((x: any) => x.id), all.body.simulations.slice(1, 3).map((x: any) => x.id));
  // Pages of one, own and shared interleaved, add up to the whole list.
  const onePerPage: string[] = [];
  for (let offset = 0; offset < 5; offset++) onePerPage.push(...(await s.api('GET', `/simulations?limit=1&offset=${offset}`, undefined, fresh.key)).body.simulations.map((x: any) => x.id));
  assert.deepEqual(onePerPage, all.body.simulations.map((x: any) => x.id));
  const past = await s.api('GET', '/simulations?offset=50', undefined, fresh.key);
  assert.deepEqual(past.body, { simulations: [], count: 5 });

  const byMind = await s.api('GET', `/simulations?mindId=${otherMindId}`, undefined, fresh.key);
  assert.deepEqual(byMind.body.simulations.map((x: any) => x.id), [onOther]);
  assert.equal(byMind.body.count, 1);

  for (const q of ['limit=0', 'limit=101', 'offset=-1', 'mindId=nope', 'limit=abc']) {
    assert.equal((await s.api('GET', `/simulations?${q}`, undefined, fresh.key)).status, 400, q);
  }
  const eveList = await s.api('GET', '/simulations', undefined, eve.key);
  assert.deepEqual(eveList.body, { simulations: [], count: 0 });
});

test('unknown simulation ids are 404 and malformed ones 400', async () => {
  assert.equal((await s.api('GET', '/simulations/00000000-0000-4000-8000-000000000000')).status, 404);
  assert.equal((await s.api('DELETE', '/simulations/00000000-0000-4000-8000-000000000000')).status, 404);
  assert.equal((await s.api('GET', '/simulations/not-a-uuid')).status, 400);
  assert.equal((await s.api('GET', '/simulations', undefined, null)).status, 401);
});
