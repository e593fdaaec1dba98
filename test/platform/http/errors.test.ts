import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertInvalid, startTestServer, type TestServer } from '../../support/server.ts';

describe('errors', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('invalid JSON is 400 and changes nothing', async () => {
    const res = await s.api('POST', '/minds', '{"name": "x",');
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_FAILED');
    assert.deepEqual((await s.api('GET', '/minds')).body.minds, []);
  });

  test('a "__proto__" key is refused by name, not as invalid JSON, and changes nothing', async () => {
    await assertInvalid(s, 'POST', '/minds', '{"name": "Proto", "socialMedia": {"x": {"__proto__": {"admin": true}}}}', /^body\.socialMedia\.x\.__proto__ is refused.*not accepted/);
    await assertInvalid(s, 'POST', '/minds', '{"name": "Proto", "socialMedia": {"constructor": {"prototype": {}}}}', /^body\.socialMedia\.constructor\.prototype is refused/);
    assert.deepEqual((await s.api('GET', '/minds')).body.minds, []);
  });

  test('a wrong content type is 415', async () => {
    const res = await s.api('POST', '/minds', 'name=x', undefined, { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(res.status, 415);
    assert.equal(res.body.code, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('text/plain bodies are 415, not 400, on every JSON route', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Plain Text' })).body.mind;
    const tag = (await s.api('PUT', `/minds/${mind.id}/tags`, { tagNames: ['t'] })).body.mind.tags[0];
    for (const [method, path] of [['POST', '/minds'], ['PUT', `/minds/${mind.id}`], ['PUT', `/minds/${mind.id}/tags`], ['PUT', `/tags/${tag.id}`], ['POST', '/api-keys']]) {
      const res = await s.api(method!, path!, '{"name":"x"}', undefined, { 'content-type': 'text/plain' });
      assert.equal(res.status, 415, `${method} ${path}`);
      assert.equal(res.body.code, 'UNSUPPORTED_MEDIA_TYPE');
    }
    assert.equal((await s.api('GET', `/minds/${mind.id}`)).body.mind.name, 'Plain Text');
    // Signed uploads (outside the API scope) keep their raw parser: a text/plain transcript goes through.
    const signed = (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/plain&fileName=notes.txt`)).body;
    const upload = await fetch(signed.signedUrl, { method: 'PUT', body: 'Interviewer: Hello?\nPlain Text: Hello there, how are you today?\n', headers: { 'content-type': 'text/plain' } });
    assert.equal(upload.status, 200, await upload.clone().text());
    assert.equal((await upload.json()).artifactId, signed.artifactId);
    await s.api('DELETE', `/minds/${mind.id}`);
  });

  test('a NUL character in any string is 400 naming the field, and changes nothing', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Nul Target', tags: 'keep' })).body.mind;
    const tag = mind.tags[0];
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/minds', { name: 'a\u0000b' }, /^body\.name /],
      ['POST', '/minds', { name: 'x', socialMedia: { x: 'a\u0000' } }, /^body\.socialMedia\.x /],
      ['POST', '/minds', { name: 'x', socialMedia: { nested: [{ deep: '\u0000' }] } }, /^body\.socialMedia\.nested\.0\.deep /],
      ['POST', '/minds', { name: 'x', socialMedia: { 'k\u0000': 'v' } }, /^body\.socialMedia .*key/],
      ['POST', '/minds', { name: 'x', tags: ['ok', 'a\u0000'] }, /^body\.tags\.1 /],
      ['POST', '/minds', { name: 'x', tags: 'a\u0000,b' }, /^body\.tags /],
      ['PUT', `/minds/${mind.id}`, { name: '\u0000' }, /^body\.name /],
      ['PUT', `/minds/${mind.id}`, { email: 'a\u0000@example.com' }, /^body\.email /],
      ['PUT', `/minds/${mind.id}/tags`, { tagNames: ['\u0000'] }, /^body\.tagNames\.0 /],
      ['PUT', `/tags/${tag.id}`, { name: 'x\u0000' }, /^body\.name /],
      ['GET', '/minds/search?query=a%00', undefined, /^querystring\.query /],
      ['GET', '/minds?tagNames=keep,a%00', undefined, /^querystring\.tagNames /],
      ['POST', '/api-keys', { name: 'ci\u0000' }, /^body\.name /],
    ];
    for (const [method, path, body, field] of cases) await assertInvalid(s, method, path, body, new RegExp(`${field.source}.*NUL`));
    const after = (await s.api('GET', `/minds/${mind.id}`)).body.mind;
    assert.equal(after.name, 'Nul Target');
    assert.deepEqual(after.tags.map((t: any) => t.name), ['keep']);
    assert.equal((await s.api('GET', '/minds')).body.minds.length, 1);
    await s.api('DELETE', `/minds/${mind.id}`);
  });

  test('a body over the limit is 413', async () => {
    const res = await s.api('POST', '/minds', { name: 'x', socialMedia: { blob: 'a'.repeat(2 * 1024 * 1024) } });
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 'PAYLOAD_TOO_LARGE');
  });

  test('an unknown route is a JSON 404', async () => {
    const res = await fetch(`${s.url}/no/such/route`);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, 'NOT_FOUND');
  });

  test('no stack traces or SQL in error responses', async () => {
    const res = await s.api('GET', "/minds/search?query=' or 1=1 --");
    assert.equal(res.status, 200);
    const bad = await s.api('GET', '/minds/zzz');
    assert.doesNotMatch(JSON.stringify(bad.body), /at .*\.ts|select |stack/i);
  });

  test('health and readiness probes answer without a key', async () => {
    assert.deepEqual(await (await fetch(`${s.url}/healthz`)).json(), { status: 'ok' });
    const ready = await (await fetch(`${s.url}/readyz`)).json();
    assert.equal(ready.status, 'ready');
  });
});
