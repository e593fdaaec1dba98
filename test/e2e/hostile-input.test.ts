/**
 * Hostile request bodies and URLs (issue 10): each is a JSON error with one of our codes, changes
 * nothing, and leaves the service (and its database) working for the next caller. On PGlite by
 * default, on PostgreSQL with TEST_DATABASE_URL.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { assertInvalid, startTestServer, type TestServer } from '../support/server.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/platform/http/json-body.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/**
 * Sends bytes as they are on a raw socket (a keep-alive connection: the answer must come without
 * the client closing anything) and reads one HTTP response, by its Content-Length.
 */
function rawRequest(url: string, head: string, body: Buffer | string): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname);
    let received = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const length = Number(headers['content-length'] ?? NaN);
      if (!(received.length - end - 4 >= length)) return;
      const text = received.subarray(end + 4, end + 4 + length).toString('utf8');
      socket.destroy();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* leave the text for the assertion */
      }
      resolve({ status: Number(lines[0]!.split(' ')[1]), headers, body: parsed });
    });
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
    socket.write(`POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\n${head}Content-Length: ${bytes.length}\r\n\r\n`);
    socket.write(bytes);
  });
}

/** `{"a":{"a":…1…}}` with `levels` objects. */
const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('hostile input', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const mindNames = async () => ((await s.api('GET', '/minds')).body.minds as { name: string }[]).map((m) => m.name).sort();

  test('the depth scan counts objects and arrays, not brackets inside strings', () => {
    assert.equal(nestsDeeperThan(nested(3), 3), false);
    assert.equal(nestsDeeperThan(nested(4), 3), true);
    assert.equal(nestsDeeperThan('[[[1]]]', 2), true);
    assert.equal(nestsDeeperThan('{"a":"[[[[[[{{{{{{","b":["\\"[[[[["]}', 2), false);
    assert.equal(nestsDeeperThan(`{"k":"${'\\\\'.repeat(5)}","d":${nested(3)}}`, 3), true);
  });

  test('deeply nested JSON is refused before it reaches the database, and the database keeps working', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Deep Target', socialMedia: { x: 'y' } })).body.mind;
    // The reported bodies: 3000 levels on POST (broke PGlite), 2000 on PUT, 10,000 (PostgreSQL's JSON.stringify overflowed).
    await assertInvalid(s, 'POST', '/minds', `{"name":"n","socialMedia":${nested(3000)}}`, /nests objects and arrays deeper than 32 levels/);
    await assertInvalid(s, 'PUT', `/minds/${mind.id}`, `{"socialMedia":${nested(2000)}}`, /deeper than 32 levels/);
    await assertInvalid(s, 'POST', '/minds', `{"name":"n","socialMedia":${nested(10_000)}}`, /deeper than 32 levels/);
    await assertInvalid(s, 'POST', '/minds', `[${'['.repeat(100_000)}`, /deeper than 32 levels/);
    // The boundary: the body itself is level 1, so socialMedia may hold 31 levels, not 32.
    const ok = await s.api('POST', '/minds', `{"name":"Just Deep Enough","socialMedia":${nested(MAX_JSON_DEPTH - 1)}}`);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    await assertInvalid(s, 'POST', '/minds', `{"name":"One Too Deep","socialMedia":${nested(MAX_JSON_DEPTH)}}`, /deeper than 32 levels/);
    // Nothing changed, and the database answers everyone.
    assert.deepEqual(await mindNames(), ['Deep Target', 'Just Deep Enough']);
    assert.deepEqual((await s.api('GET', `/minds/${mind.id}`)).body.mind.socialMedia, { x: 'y' });
    assert.equal((await s.api('POST', '/minds', { name: 'After The Storm' })).status, 200);
    const health = await fetch(`${s.url}/healthz`);
    assert.equal(health.status, 200);
    for (const name of ['Deep Target', 'Just Deep Enough', 'After The Storm']) {
      const m = (await s.api('GET', '/minds')).body.minds.find((x: { name: string }) => x.name === name);
      await s.api('DELETE', `/minds/${m.id}`);
    }
  });

  test('an unpaired UTF-16 surrogate is refused by name, in values and keys, anywhere in the body', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Surrogate Target' })).body.mind;
    const cases: [string, string, string, RegExp][] = [
      ['POST', '/simulate', `{"mindId":"${mind.id}","scenario":{"message":"hi \\ud800 there"}}`, /^body\.scenario\.message contains an unpaired UTF-16 surrogate/],
      ['POST', '/simulate', `{"mindId":"${mind.id}","scenario":{"message":"\\udc00"}}`, /^body\.scenario\.message contains an unpaired UTF-16 surrogate/],
      ['POST', '/minds', '{"name":"n","socialMedia":{"x":"\\ud83d"}}', /^body\.socialMedia\.x contains an unpaired/],
      ['POST', '/minds', '{"name":"n","socialMedia":{"\\ud800":"v"}}', /^body\.socialMedia has a key that contains an unpaired/],
      ['POST', '/minds', '{"name":"n","tags":["ok","\\ude00x"]}', /^body\.tags\.1 contains an unpaired/],
      ['PUT', `/minds/${mind.id}`, '{"name":"\\ud800"}', /^body\.name contains an unpaired/],
      // Even where the route would refuse the field anyway: the whole body is checked first.
      ['POST', '/minds', '{"name":"n","\\udbff":1}', /^body has a key that contains an unpaired/],
    ];
    for (const [method, path, body, message] of cases) await assertInvalid(s, method, path, body, message);
    // A paired surrogate (an emoji written as escapes) is fine.
    const emoji = await s.api('PUT', `/minds/${mind.id}`, '{"name":"Surrogate \\ud83d\\ude00 Target"}');
    assert.equal(emoji.status, 200, JSON.stringify(emoji.body));
    assert.equal(emoji.body.mind.name, 'Surrogate 😀 Target');
    assert.deepEqual(await mindNames(), ['Surrogate 😀 Target']);
    await s.api('DELETE', `/minds/${mind.id}`);
  });

  test('a JSON body that is not UTF-8 is refused, not stored as U+FFFD; valid UTF-8 (and a BOM-less é) is kept', async () => {
    const send = (bytes: Buffer, path = '/minds', method = 'POST') =>
      fetch(`${s.base}${path}`, { method, headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' }, body: new Uint8Array(bytes) }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const json = (prefix: string, bytes: number[], suffix: string) => Buffer.concat([Buffer.from(prefix), Buffer.from(bytes), Buffer.from(suffix)]);
    // Latin-1 é, a truncated sequence, an overlong "/", a surrogate encoded in UTF-8 (CESU-8), a byte that never occurs.
    for (const bytes of [[0xe9], [0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff]]) {
      const res = await send(json('{"name":"Caf', bytes, ' Latin"}'));
      assert.equal(res.status, 400, JSON.stringify(bytes));
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      assert.equal(res.body.field, 'body');
      assert.match(res.body.message, /not valid UTF-8/);
    }
    assert.deepEqual(await mindNames(), [], 'nothing was stored');
    const ok = await send(json('{"name":"Caf', [0xc3, 0xa9], ' UTF-8"}'));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.mind.name, 'Café UTF-8');
    const bad = await send(json('{"name":"Caf', [0xe9], '"}'), `/minds/${ok.body.mind.id}`, 'PUT');
    assert.equal(bad.status, 400);
    assert.equal((await s.api('GET', `/minds/${ok.body.mind.id}`)).body.mind.name, 'Café UTF-8');
    await s.api('DELETE', `/minds/${ok.body.mind.id}`);
  });

  test('a query string that does not decode as UTF-8 is a 400 naming it; a path that does not decode too', async () => {
    for (const q of ['%FF', 'caf%E9', '%C3%28', '%ED%A0%80', '%E0%A4%A', '100%', '%zz']) {
      const res = await s.api('GET', `/minds/search?query=${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.code, 'VALIDATION_FAILED', q);
      assert.equal(res.body.field, 'querystring', q);
      assert.match(res.body.message, /^The query string does not decode/, q);
    }
    // In a key too, and on routes outside the API.
    assert.equal((await s.api('GET', '/minds/search?query=a&%FF=1')).status, 400);
    assert.equal((await fetch(`${s.url}/healthz?x=%FF`)).status, 400);
    // Well-formed escapes pass: é, an emoji, %25 for "%", + for a space.
    for (const q of ['caf%C3%A9', '%F0%9F%98%80', '100%25', 'a+b']) assert.equal((await s.api('GET', `/minds/search?query=${q}`)).status, 200, q);
    // Raw bytes over 0x7F in the request line: Node's HTTP parser refuses them, with our JSON error.
    const u = new URL(s.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(u.port), u.hostname, () =>
        socket.end(Buffer.concat([Buffer.from('GET /api/svc/minds/search?query=caf'), Buffer.from([0xc3, 0xa9]), Buffer.from(` HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${s.key}\r\nConnection: close\r\n\r\n`)])),
      );
      const chunks: Buffer[] = [];
      socket.on('data', (c) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    assert.match(answer, /^HTTP\/1\.1 400 /);
    const raw = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.equal(raw.code, 'VALIDATION_FAILED');
    assert.match(raw.message, /percent-encode/);
    // Path parameters: the router refuses an escape that does not decode.
    for (const p of ['%FF', '%C3%28', '%ED%A0%80']) {
      const res = await s.api('GET', `/minds/${p}`);
      assert.equal(res.status, 400, p);
      assert.equal(res.body.code, 'VALIDATION_FAILED', p);
    }
  });

  test('a path parameter over the router limit is 414 URI_TOO_LONG; up to it the route answers', async () => {
    const long = await s.api('GET', `/minds/${'a'.repeat(5000)}`);
    assert.equal(long.status, 414, JSON.stringify(long.body));
    assert.equal(long.body.code, 'URI_TOO_LONG');
    assert.equal(long.body.error, 'URI Too Long');
    assert.match(long.body.message, /longer than 4096 characters/);
    // 4096 characters is a parameter like any other: a mind id that is not a UUID is a 400.
    const atLimit = await s.api('GET', `/minds/${'a'.repeat(4096)}`);
    assert.equal(atLimit.status, 400);
    assert.equal(atLimit.body.code, 'VALIDATION_FAILED');
    // The signed-upload token is documented up to 4096 characters: a forged one is a 403, a longer one a 414.
    const token = await fetch(`${s.url}/uploads/${'t'.repeat(4096)}`, { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain' } });
    assert.equal(token.status, 403);
    assert.equal((await token.json()).code, 'FORBIDDEN');
    const tooLong = await fetch(`${s.url}/uploads/${'t'.repeat(4097)}`, { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain' } });
    assert.equal(tooLong.status, 414);
    assert.equal((await tooLong.json()).code, 'URI_TOO_LONG');
    // A path that does not decode is ours too.
    const bad = await s.api('GET', '/minds/%E0%A4%A');
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.equal(bad.body.code, 'VALIDATION_FAILED');
  });

  test('malformed multipart is a 400 that says what is wrong, changes nothing, and never hangs', { timeout: 60_000 }, async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Multipart Target' })).body.mind;
    const url = `${s.base}/minds/${mind.id}/snapshots`;
    const auth = `Authorization: Bearer ${s.key}\r\n`;
    const ct = (b: string) => `${auth}Content-Type: multipart/form-data; boundary=${b}\r\n`;
    const transcript = 'Interviewer: How did it start?\nMultipart Target: It started with a question nobody asked.\n';
    const good = `--XB\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${transcript}\r\n--XB--\r\n`;
    const random = Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7919 + 13) % 256));
    const cases: [string, string, Buffer | string, RegExp][] = [
      ['no boundary', `${auth}Content-Type: multipart/form-data\r\n`, good, /has no boundary= parameter/],
      ['boundary mismatch', ct('OTHER'), good, /ended before its closing boundary.*"--OTHER"/],
      ['truncated', ct('XB'), good.slice(0, 90), /ended before its closing boundary: it is truncated/],
      ['random bytes', ct('XB'), random, /ended before its closing boundary/],
      // The reported hang: a part without Content-Disposition and 16 KB or more of body.
      ['no Content-Disposition, 20 KB', ct('XB'), `--XB\r\nContent-Type: text/plain\r\n\r\n${'x'.repeat(20_000)}\r\n--XB--\r\n`, /A file \(multipart part "file"\) or an artifactId is required/],
      ['no Content-Disposition, 600 KB', ct('XB'), `--XB\r\n\r\n${'x'.repeat(600_000)}\r\n--XB--\r\n`, /A file \(multipart part "file"\) or an artifactId is required/],
      ['a part without a name', ct('XB'), `--XB\r\nContent-Disposition: form-data\r\n\r\n${'x'.repeat(20_000)}\r\n--XB--\r\n`, /part has no name/],
      ['an empty file', ct('XB'), `--XB\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n\r\n--XB--\r\n`, /The file is empty \(0 bytes\)/],
      ['a whitespace-only file', ct('XB'), `--XB\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n\ufeff \n\t\r\n \r\n--XB--\r\n`, /only whitespace/],
    ];
    for (const [what, head, body, message] of cases) {
      const res = await rawRequest(url, head, body);
      assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'VALIDATION_FAILED', what);
      assert.match(res.body.message, message, what);
      assert.match(res.headers['content-type'] ?? '', /application\/json/, what);
    }
    assert.deepEqual((await s.api('GET', `/minds/${mind.id}/snapshots`)).body.snapshots, []);
    // The service still takes a well-formed upload on the same route.
    const ok = await rawRequest(url, ct('XB'), good);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal((await s.api('GET', `/minds/${mind.id}/snapshots`)).body.count, 1);
    await s.api('DELETE', `/minds/${mind.id}`);
  });

  test('an empty or whitespace-only file on a signed upload URL is a 400, and the URL stays usable', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Signed Blank' })).body.mind;
    const signed = (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/plain&fileName=notes.txt`)).body;
    for (const [body, message] of [['', /empty \(0 bytes\)/], ['  \n\n\t ', /only whitespace/]] as const) {
      const res = await fetch(signed.signedUrl, { method: 'PUT', body, headers: { 'content-type': 'text/plain' } });
      assert.equal(res.status, 400);
      const json = await res.json();
      assert.equal(json.code, 'VALIDATION_FAILED');
      assert.match(json.message, message);
    }
    const upload = await fetch(signed.signedUrl, { method: 'PUT', body: 'Interviewer: Hi?\nSigned Blank: Hello there.\n', headers: { 'content-type': 'text/plain' } });
    assert.equal(upload.status, 200, await upload.clone().text());
    await s.api('DELETE', `/minds/${mind.id}`);
  });
});
