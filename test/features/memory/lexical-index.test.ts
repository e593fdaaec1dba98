/**
 * Full-text search in process (the default on the embedded database): BM25 over the scope's
 * turns finds the turns the database's full-text query finds, ranks rare words above common
 * ones, and follows the scope (a new snapshot, "as of").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LexicalIndex, loadMindScope, Memory, recall, retrieveMemory } from '../../../src/features/memory/index.ts';
import { fixtureFile, upload, waitForSnapshot } from '../snapshots/support.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { understand } from '../../../src/lib/language/understand.ts';

const turn = (id: string, text: string, context: string | null = null, day = 0, seq = 0) => ({ turnId: id, text, context, mindsetDate: new Date(day * 86_400_000), seq });

test('BM25: a rare word outranks a common one said more often, repeats saturate, the question counts less than the answer', () => {
  const index = new LexicalIndex([
    turn('a', 'People people people, people want work and people want jobs.'),
    turn('b', 'The deficit is the problem, and people know it.'),
    turn('c', 'People like the weather here.'),
    turn('d', 'People talk about many things.'),
    turn('e', 'We have to cut spending.', 'What about the deficit?'),
  ]);
  const hits = index.search(['deficit', 'people'], 10);
  assert.equal(hits[0]!.turnId, 'b', JSON.stringify(hits));
  // Six times "people" is worth little more than once: repeats saturate.
  const score = (id: string) => hits.find((h) => h.turnId === id)!.score;
  assert.ok(score('a') < 1.5 * score('c'), JSON.stringify(hits));
  assert.deepEqual(new Set(hits.map((h) => h.turnId)), new Set(['a', 'b', 'c', 'd', 'e']));
  hits.forEach((h, i) => assert.equal(h.rank, i + 1));
  // The answer's own word counts more than the same word in the question it answered.
  const own = new LexicalIndex([turn('x', 'The deficit matters.'), turn('y', 'It matters.', 'The deficit?'), turn('z', 'Nothing here.')]);
  assert.deepEqual(own.search(['deficit'], 5).map((h) => h.turnId), ['x', 'y']);
  // Nothing matched, a stopword, a word not in memory, k = 0: nothing.
  assert.deepEqual(index.search(['zebra', 'the'], 10), []);
  assert.deepEqual(index.search(['people'], 0), []);
});

test('a two-word term matches only where the words are adjacent; stems meet ("taxes" finds "taxed")', () => {
  const index = new LexicalIndex([turn('a', 'Health care costs too much.'), turn('b', 'Take care of your health.'), turn('c', 'They taxed the rich.')]);
  assert.deepEqual(index.search(['health care'], 10).map((h) => h.turnId), ['a']);
  assert.deepEqual(index.search(['taxes'], 10).map((h) => h.turnId), ['c']);
});

test('equal scores: newest conversation first, then transcript order, whatever order the rows came in', () => {
  const rows = [turn('a', 'jobs', null, 1, 5), turn('b', 'jobs', null, 2, 9), turn('c', 'jobs', null, 2, 3), turn('d', 'jobs', null, 1, 1)];
  const expected = ['c', 'b', 'd', 'a'];
  assert.deepEqual(new LexicalIndex(rows).search(['jobs'], 10).map((h) => h.turnId), expected);
  assert.deepEqual(new LexicalIndex([...rows].reverse()).search(['jobs'], 10).map((h) => h.turnId), expected);
  assert.deepEqual(new LexicalIndex(rows).search(['jobs'], 2).map((h) => h.turnId), expected.slice(0, 2));
});

describe('full-text search in process against the database, on the suite database', () => {
  let s: TestServer;
  let mindId: string;
  let organizationId: string;
  let firstSnapshot: string;
  before(async () => {
    s = await startTestServer();
    const mind = (await s.api('POST', '/minds', { name: 'Barack H Obama' })).body.mind;
    mindId = mind.id;
    organizationId = mind.organizationId;
    const res = await upload(s, mindId, { file: { bytes: await fixtureFile('transcripts/us-presidential-debates/2012-10-03.said.txt'), name: 'debate.txt' }, mindsetDate: '2012-10-03T00:00:00Z' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    firstSnapshot = res.body.mindAssessmentId;
    assert.equal((await waitForSnapshot(s, mindId, firstSnapshot)).status, 'completed');
  });
  after(() => s?.close());

  test('the same turns as the database finds, for real questions; in process by default', async () => {
    const memory = s.ctx.memory;
    assert.equal(memory.lexicalSearch(), 'process');
    const { scope } = (await loadMindScope(s.ctx.db, organizationId, mindId, null))!;
    const index = (await memory.lexicalIndex(scope))!;
    assert.ok(index.size > 20);
    const queries = [['deficit', 'taxes'], ['health care', 'medicare'], ['jobs', 'economy', 'middle', 'class'], ['education', 'teachers'], ['energy', 'oil']];
    let both = 0;
    let either = 0;
    for (const terms of queries) {
      const found = (lexical: boolean) => retrieveMemory(s.ctx.db, scope, terms, { lexical: lexical ? index : null }).then((m) => new Set(m.filter((t) => t.retrieval?.lexicalRank != null).map((t) => t.turnId)));
      const [inProcess, inDatabase] = await Promise.all([found(true), found(false)]);
      assert.ok(inProcess.size > 0, terms.join(' '));
      both += [...inProcess].filter((id) => inDatabase.has(id)).length;
      either += new Set([...inProcess, ...inDatabase]).size;
    }
    // Porter (here) and Snowball (the database) stem a few words differently; nearly all agree.
    assert.ok(both / either >= 0.95, `${both} of ${either} turns found by both`);
    // The lists that do not depend on the words come from the index too, the same as the
    // database's: opening turns and self-descriptions for a greeting, the latest turns when
    // nothing matches.
    const unranked = async (terms: string[], lexical: boolean) =>
      (await retrieveMemory(s.ctx.db, scope, terms, { openings: true, lexical: lexical ? index : null })).filter((t) => !t.retrieval).map((t) => t.turnId).sort();
    const greeting = await unranked(['hello'], true);
    assert.ok(greeting.length > 5);
    assert.deepEqual(greeting, await unranked(['hello'], false));
    const nothing = await retrieveMemory(s.ctx.db, scope, ['zzyzx'], { lexical: index });
    assert.equal(nothing.length, Math.min(40, index.size));
    assert.deepEqual(nothing.map((t) => t.turnId), (await retrieveMemory(s.ctx.db, scope, ['zzyzx'])).map((t) => t.turnId));
  });

  test('the index follows the scope: a new snapshot is searched at once, "as of" the first one it is not', async () => {
    const memory = s.ctx.memory;
    const res = await upload(s, mindId, { file: { bytes: 'Interviewer: What about zeppelins?\nBarack H Obama: Zeppelins are the future of quiet travel.\n', name: 'later.txt' }, mindsetDate: '2013-01-01T00:00:00Z' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await waitForSnapshot(s, mindId, res.body.mindAssessmentId)).status, 'completed');
    const now = (await loadMindScope(s.ctx.db, organizationId, mindId, null))!.scope;
    const asOf = (await loadMindScope(s.ctx.db, organizationId, mindId, firstSnapshot))!.scope;
    // An index from before the snapshot: a turn it does not hold (here a quoted one) is read from the database.
    const stale = (await memory.lexicalIndex(asOf))!;
    const zeppelin = (await retrieveMemory(s.ctx.db, now, ['zeppelins'])).find((t) => /Zeppelins/.test(t.text))!;
    assert.ok(zeppelin.retrieval?.lexicalRank, 'the database finds it');
    const quoted = await retrieveMemory(s.ctx.db, now, ['deficit'], { lexical: stale, citedTurnIds: [zeppelin.turnId] });
    const read = quoted.find((t) => t.turnId === zeppelin.turnId);
    assert.equal(read?.text, zeppelin.text);
    assert.equal(read?.snapshotId, zeppelin.snapshotId);
    assert.ok(quoted.some((t) => t.retrieval?.lexicalRank === 1 && /deficit/i.test(t.text)));
    assert.deepEqual((await memory.lexicalIndex(now))!.search(['zeppelins'], 5).length, 1);
    assert.deepEqual((await memory.lexicalIndex(asOf))!.search(['zeppelins'], 5), []);
    // Through recall, as POST /simulate retrieves.
    const found = await recall(memory, now, 'What do you think of zeppelins?', [], understand('What do you think of zeppelins?', []));
    assert.match(found.memory[0]!.text, /Zeppelins are the future/);
  });

  test('over the size limit of auto, or configured so, the database searches; "process" ignores the limit', async () => {
    const memory = s.ctx.memory;
    const scope = (await loadMindScope(s.ctx.db, organizationId, mindId, null))!.scope;
    const small = new Memory(s.ctx.database, memory.embedder, 'auto', 'auto', 10);
    assert.equal(await small.lexicalIndex(scope), null);
    assert.equal(await new Memory(s.ctx.database, memory.embedder, 'auto', 'database').lexicalIndex(scope), null);
    assert.ok((await new Memory(s.ctx.database, memory.embedder, 'auto', 'process', 10).lexicalIndex(scope))!.size > 10);
    // Answers still come, from the database's search.
    const found = await recall(small, scope, 'What do you think of zeppelins?', [], understand('What do you think of zeppelins?', []));
    assert.match(found.memory[0]!.text, /Zeppelins are the future/);
    assert.equal(found.memory[0]!.retrieval?.lexicalRank, 1);
  });
});
