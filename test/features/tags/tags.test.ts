import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertInvalid, startTestServer, type TestServer } from '../../support/server.ts';

describe('tags', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('list tags with the number of minds using each', async () => {
    await s.api('POST', '/minds', { name: 'A', tags: 'red,blue' });
    await s.api('POST', '/minds', { name: 'B', tags: 'Red' });
    const res = await s.api('GET', '/tags');
    assert.equal(res.status, 200);
    const byName = Object.fromEntries(res.body.tags.map((t: any) => [t.name, t.mindCount]));
    assert.deepEqual(byName, { blue: 1, red: 2 });
  });

  test('rename a tag; renaming onto an existing name (any case) is 409; empty is 400', async () => {
    const tags = (await s.api('GET', '/tags')).body.tags;
    const blue = tags.find((t: any) => t.name === 'blue');
    const renamed = await s.api('PUT', `/tags/${blue.id}`, { name: 'navy' });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.tag.name, 'navy');
    const clash = await s.api('PUT', `/tags/${blue.id}`, { name: 'RED' });
    assert.equal(clash.status, 409);
    assert.equal(clash.body.code, 'CONFLICT');
    assert.equal((await s.api('PUT', `/tags/${blue.id}`, { name: '   ' })).status, 400);
    assert.equal((await s.api('PUT', `/tags/${blue.id}`, { name: '' })).status, 400);
    assert.equal((await s.api('PUT', '/tags/00000000-0000-4000-8000-000000000000', { name: 'x' })).status, 404);
    // Search follows the rename.
    assert.deepEqual((await s.api('GET', '/minds/search?query=navy')).body.minds.map((m: any) => m.name), ['A']);
  });

  test('set a mind’s tags from an array or a comma-separated string', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'C' })).body.mind;
    const a = await s.api('PUT', `/minds/${mind.id}/tags`, { tagNames: ['one', 'two'] });
    assert.equal(a.status, 200);
    assert.deepEqual(a.body.mind.tags.map((t: any) => t.name), ['one', 'two']);
    const b = await s.api('PUT', `/minds/${mind.id}/tags`, { tagNames: 'two, three' });
    assert.deepEqual(b.body.mind.tags.map((t: any) => t.name), ['three', 'two']);
    const cleared = await s.api('PUT', `/minds/${mind.id}/tags`, { tagNames: [] });
    assert.deepEqual(cleared.body.mind.tags, []);
    assert.equal((await s.api('PUT', `/minds/${mind.id}/tags`, { tagNames: [' '] })).status, 400);
    assert.equal((await s.api('PUT', `/minds/${mind.id}/tags`, {})).status, 400);
    assert.equal((await s.api('PUT', '/minds/00000000-0000-4000-8000-000000000000/tags', { tagNames: [] })).status, 404);
  });

  test('a comma in a tag name is 400 naming the field (it could never be matched by ?tagNames=)', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Comma', tags: ['plain'] })).body.mind;
    const plain = mind.tags[0];
    for (const [method, path, body, field] of [
      ['POST', '/minds', { name: 'Comma 2', tags: ['ok', 'a,b'] }, /^body\.tags\.1 must not contain a comma/],
      ['PUT', `/minds/${mind.id}`, { tags: ['x,y'] }, /^body\.tags\.0 /],
      ['PUT', `/minds/${mind.id}/tags`, { tagNames: ['fine', 'not,fine'] }, /^body\.tagNames\.1 /],
      ['PUT', `/tags/${plain.id}`, { name: 'sales, emea' }, /^body\.name must not contain a comma/],
      ['PUT', `/minds/${mind.id}/tags`, { tagNames: [1] }, /^body\.tagNames\.0 must be string/],
    ] as const) {
      await assertInvalid(s, method, path, body, field);
    }
    const after = (await s.api('GET', `/minds/${mind.id}`)).body.mind;
    assert.deepEqual(after.tags.map((t: any) => t.name), ['plain']);
    assert.ok((await s.api('GET', '/tags')).body.tags.every((t: any) => !t.name.includes(',')));
    // The comma-separated string form still splits.
    assert.deepEqual((await s.api('PUT', `/minds/${mind.id}/tags`, { tagNames: 'a,b' })).body.mind.tags.map((t: any) => t.name), ['a', 'b']);
    await s.api('DELETE', `/minds/${mind.id}`);
  });

  test('deleting a tag takes it off every mind', async () => {
    const red = (await s.api('GET', '/tags')).body.tags.find((t: any) => t.name === 'red');
    assert.deepEqual((await s.api('DELETE', `/tags/${red.id}`)).body, { success: true });
    const minds = (await s.api('GET', '/minds')).body.minds;
    assert.ok(minds.every((m: any) => m.tags.every((t: any) => t.name !== 'red')));
    assert.equal((await s.api('DELETE', `/tags/${red.id}`)).status, 404);
  });
});
