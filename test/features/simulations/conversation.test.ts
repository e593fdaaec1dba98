/**
 * Conversations over HTTP on a real memory bank (Barack Obama's three 2012 debates, seeded with
 * their real analysis and speakers): follow-ups bring new evidence, a topic change gets its own
 * answer, conversations are listed by last activity, and a client that leaves an extractive
 * stream leaves a finished message behind.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { readDebate, seedSnapshot, SHARED_TRANSCRIPTS, TRANSCRIPTS } from './seed.ts';
import { hasSharedData, skipUnlessSharedData } from '../../support/shared-data.ts';
import { openStream, waitForMessage } from './helpers.ts';

let s: TestServer;
let mindId: string;
/** The whole debates where ../shared/data is, else the excerpts of test/fixtures (the tests that need a whole debate skip). */
const DEBATES = hasSharedData ? SHARED_TRANSCRIPTS : TRANSCRIPTS;

before(async () => {
  s = await startTestServer();
  const mind = (await s.api('POST', '/minds', { name: 'Barack Obama' })).body.mind;
  mindId = mind.id;
  for (const date of ['2012-10-03', '2012-10-16', '2012-10-22']) {
    await seedSnapshot(s.ctx.db, { organizationId: mind.organizationId, mindId, mind: 'Barack H Obama', turns: readDebate(date, DEBATES), mindsetDate: new Date(`${date}T00:00:00Z`) });
  }
});
after(() => s?.close());

const ask = async (message: string, conversationId?: string) => {
  const res = await s.api('POST', '/simulate', { scenario: { message }, mindId, ...(conversationId ? { conversationId } : {}) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};
const quotes = (b: any): string[] => b.evidence.map((e: any) => `${e.turnId}:${e.quote}`);

test('follow-ups in a conversation bring new evidence each time', async () => {
  const first = await ask('What would you do about taxes for the middle class?');
  const seen = new Set<string>(quotes(first));
  const seenText = first.evidence.map((e: any) => e.quote).join(' ');
  for (const message of ['Why?', 'Can you say more about that?', 'Give me an example.']) {
    const next = await ask(message, first.conversationId);
    assert.ok(next.evidence.length > 0, `${message}: ${next.message}`);
    for (const e of next.evidence) {
      assert.ok(!seen.has(`${e.turnId}:${e.quote}`), `${message} repeats evidence: ${e.quote}`);
      assert.ok(!seenText.includes(e.quote), `${message} repeats a sentence already quoted: ${e.quote}`);
    }
    for (const q of quotes(next)) seen.add(q);
    // On taxes: the word itself, or the rates the debate argued over ("lowering rates for everybody across the board, 20 percent").
    assert.match(next.message, /\btax|\brates?\b/i, `${message} stays on taxes`);
  }
});

test('a topic change gets its own answer; a topic never discussed is said to be so', async () => {
  const first = await ask('What would you do about taxes for the middle class?');
  const deficit = await ask('What would you do to reduce the deficit?', first.conversationId);
  assert.match(deficit.evidence[0].quote, /deficit/i);
  const pizza = await ask('Tell me about pizza.', first.conversationId);
  assert.deepEqual(pizza.evidence, []);
  assert.match(pizza.message, /haven't really talked about pizza/);
});

test('sentences addressed to the moderators (names from the transcripts\' speakers) are left out', async () => {
  for (const message of ['What would you do about taxes for the middle class?', 'What about Libya?', 'What is your plan for Medicare?']) {
    const b = await ask(message);
    for (const e of b.evidence) assert.doesNotMatch(e.quote, /(^|[.?!] )(Jim|Candy|Bob),|, (Jim|Candy|Bob)[.?]/, `${message}: ${e.quote}`);
  }
});

test('"Who are you?" is answered from how he describes himself anywhere in the transcripts, in few words', skipUnlessSharedData, async () => {
  const b = await ask('Who are you?');
  assert.ok(b.evidence.length > 0, b.message);
  assert.match(b.message, /\bI'm\b|\bI am\b|\bmy (job|work)\b|I've been/, b.message);
  assert.ok(b.message.split(/\s+/).length <= 80, b.message);
  const hello = await ask('Hello!');
  assert.doesNotMatch(hello.message, /haven't really talked/);
});

test('the main ask decides what the answer is about; a preamble does not', async () => {
  const b = await ask('As a former community organizer in Chicago, what do you think about taxes?');
  assert.match(b.evidence[0].quote, /tax/i, b.message);
  assert.doesNotMatch(b.message, /Assad|AK-47/);
  const health = await ask('How would you fix healthcare?');
  assert.match(health.evidence[0].quote, /health care/i, health.message);
});

test('GET /simulations lists the most recently active conversation first', async () => {
  const older = await ask('What about energy?');
  const newer = await ask('What about China?');
  let list = await s.api('GET', `/simulations?mindId=${mindId}&limit=2`);
  assert.deepEqual(list.body.simulations.map((x: any) => x.id), [newer.simulationId, older.simulationId]);
  await ask('Why?', older.conversationId);
  list = await s.api('GET', `/simulations?mindId=${mindId}&limit=2`);
  assert.deepEqual(list.body.simulations.map((x: any) => x.id), [older.simulationId, newer.simulationId], 'continued, it moves to the top');
  assert.ok(Date.parse(list.body.simulations[0].updatedAt) > Date.parse(list.body.simulations[0].createdAt));
});

test('a client that leaves an extractive stream: the message ends completed or failed with the text so far, never streaming', async (t) => {
  const message = 'What would you do about taxes for the middle class?';
  const full = (await ask(message)).message as string;
  const stream = await openStream(s, { scenario: { message }, mindId });
  const { start } = stream;
  await stream.leave();

  const stored = await waitForMessage(s, start.data.simulationId, start.data.messageId);
  assert.ok(['completed', 'failed'].includes(stored.status), stored.status);
  t.diagnostic(`stored ${stored.status} with ${stored.content?.text.length ?? 0} of ${full.length} characters`);
  if (stored.status === 'failed') {
    assert.equal(stored.errors[0].code, 'aborted');
    assert.ok(stored.content.text.length > 0 && full.startsWith(stored.content.text), 'the text streamed before the client left');
  } else {
    assert.equal(stored.content.text, full);
  }
});
