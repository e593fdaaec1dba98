/**
 * The MCP tools over Streamable HTTP at /mcp, as a remote assistant uses them: the official SDK
 * client with StreamableHTTPClientTransport and a Bearer API key, against the real service (on
 * PGlite, or on PostgreSQL with TEST_DATABASE_URL, where a second replica also serves the calls).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { onPostgres, startTestServer, type TestServer } from '../../support/server.ts';
import { addTranscript, buildMind, call, callFails, CAPTIONS, checkEdgeCases, checkToolList, PERSON, useMind, waitForSnapshot, type BuiltMind } from './flow.ts';

let s: TestServer;
let mcp: Client;
let built: BuiltMind;

async function connect(base: string, key: string): Promise<Client> {
  const client = new Client({ name: 'mindprint-http-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

/** A JSON-RPC POST to /mcp with fetch, for what the SDK client would never send. */
const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '0' } } });

before(async () => {
  s = await startTestServer();
  mcp = await connect(s.url, s.key);
  await checkToolList(mcp);
});
after(async () => {
  await mcp?.close();
  await s?.close();
});

test('an assistant builds a mind from a transcript, reads it and holds a conversation with it', async () => {
  built = await buildMind(mcp, async (signed, file) => {
    // The server cannot read the assistant's files: it says so and names the ways that work.
    const refused = await callFails(mcp, 'upload_file_to_signed_url', { signedUrl: signed.signedUrl, filePath: file.file, contentType: file.contentType });
    assert.match(refused, /remote \(HTTP\) Mindprint server: it cannot see your files/);
    assert.match(refused, /upload_text_to_signed_url/);
    const content = await readFile(file.file, 'utf8');
    const uploaded = await call(mcp, 'upload_text_to_signed_url', { signedUrl: signed.signedUrl, content, contentType: file.contentType });
    assert.equal(uploaded.data.artifactId, signed.artifactId);
    assert.equal(uploaded.data.size, Buffer.byteLength(content));
    // A signed URL works once.
    assert.match(await callFails(mcp, 'upload_text_to_signed_url', { signedUrl: signed.signedUrl, content, contentType: file.contentType }), /403 FORBIDDEN: This upload URL has already been used/);
  });
  const { simulationId } = await useMind(mcp, built);

  // The conversation is stored like any other, in the caller's organization.
  const stored = await s.api('GET', `/simulations/${simulationId}`);
  assert.equal(stored.status, 200);
  assert.equal(stored.body.messages.length, 4);
  assert.equal(stored.body.simulation.mindAssessmentId, built.snapshotId);
});

test('auto-captions PUT by the assistant itself: flagged at once and by every tool, every voice counts as the mind', async () => {
  const { snapshotId, status, created } = await addTranscript(mcp, built.mindId, CAPTIONS, async (signed, file) => {
    const put = await fetch(signed.signedUrl, { method: 'PUT', headers: { 'content-type': file.contentType }, body: await readFile(file.file) });
    assert.equal(put.status, 200, await put.clone().text());
  });
  // An auto-caption track is known for what it is as soon as the snapshot is created.
  assert.equal(created.data.speakersLabelled, false);
  assert.match(created.text, /Warning: .*every voice in this file counts as Barack H Obama/);
  assert.equal(status.data.speakersLabelled, false);
  assert.match(status.data.speakerWarning, /every voice in this file counts as Barack H Obama/);
  assert.match(status.text, /Warning: The file names no speakers/);

  const snaps = await call(mcp, 'list_snapshots', { mindId: built.mindId });
  const row = snaps.data.snapshots.find((r: { id: string }) => r.id === snapshotId);
  assert.equal(row.speakersLabelled, false);
  assert.match(row.speakerWarning, /every voice in this file counts as Barack H Obama/);
  assert.match(snaps.text, /captions\.vtt: completed — names no speakers: every voice in it counts as the mind/);

  const profile = await call(mcp, 'get_mind_profile', { mindId: built.mindId });
  assert.deepEqual(profile.data.unlabelledFiles, ['captions.vtt']);
  assert.match(profile.text, /Warning: 1 file behind this profile name no speakers \(captions\.vtt\): every voice in them counts as Barack H Obama/);
  assert.ok(Buffer.byteLength(profile.text) < 4096);

  // Quotes say which file they come from, and whether that file named its speakers.
  const answer = await call(mcp, 'simulate', { mindId: built.mindId, message: 'What about jobs and the economy?' });
  assert.ok(answer.data.evidence.length > 0);
  for (const e of answer.data.evidence) {
    const fromCaptions = e.snapshotId === snapshotId;
    assert.deepEqual([e.fileName, e.speakersLabelled], fromCaptions ? ['captions.vtt', false] : ['2012-10-03.said.txt', true]);
  }
  const fromCaptions = answer.data.evidence.some((e: { snapshotId: string }) => e.snapshotId === snapshotId);
  if (fromCaptions) assert.match(answer.text, /this file names no speakers, so the quote may be someone else’s/);
  assert.deepEqual(answer.data.warnings.map((w: any) => [w.code, w.snapshotIds]), fromCaptions ? [['unlabelled_speakers', [snapshotId]]] : []);
});

test('an answer quoting only captions carries the warning, in its structured result and its text', async () => {
  const created = await call(mcp, 'create_mind', { name: 'W Mitt Romney' });
  const mindId: string = created.data.mind.id;
  const { snapshotId } = await addTranscript(mcp, mindId, CAPTIONS, async (signed, file) => {
    const put = await fetch(signed.signedUrl, { method: 'PUT', headers: { 'content-type': file.contentType }, body: await readFile(file.file) });
    assert.equal(put.status, 200, await put.clone().text());
  });
  const answer = await call(mcp, 'simulate', { mindId, message: 'What would you do about trade with China?' });
  assert.ok(answer.data.evidence.length > 0, answer.text);
  assert.equal(answer.data.warnings.length, 1);
  assert.equal(answer.data.warnings[0].code, 'unlabelled_speakers');
  assert.deepEqual(answer.data.warnings[0].snapshotIds, [snapshotId]);
  assert.match(answer.data.warnings[0].message, /every voice in it counts as W Mitt Romney/);
  for (const e of answer.data.evidence) assert.equal(e.speakersLabelled, false);
  // Before the quotes, and the quotes are not called the person's own words.
  assert.match(answer.text, /\n\nWarning: .*names no speakers.*someone else’s words/);
  assert.ok(answer.text.indexOf('Warning:') < answer.text.indexOf('Evidence'));
  assert.doesNotMatch(answer.text, /own words/);
});

test('set_snapshot_speaker re-attributes a file to another of its speakers, matched by prefix', async () => {
  const { mindId, snapshotId } = built;
  const unknown = await callFails(mcp, 'set_snapshot_speaker', { mindId, snapshotId, speaker: 'Candy Crowley' });
  assert.match(unknown, /400 VALIDATION_FAILED: No speaker "Candy Crowley" in this transcript; the speakers are: .*Jim Lehrer/);

  const moved = await call(mcp, 'set_snapshot_speaker', { mindId, snapshotId, speaker: 'jim' });
  assert.deepEqual([moved.data.speaker, moved.data.reprocessing], ['Jim Lehrer', true]);
  assert.match(moved.text, /get_snapshot_status/);
  let status = await waitForSnapshot(mcp, mindId, snapshotId);
  assert.deepEqual([status.data.status, status.data.mindSpeaker, status.data.attribution], ['completed', 'Jim Lehrer', 'requested']);

  // Back to the candidate, by his name's first word.
  assert.equal((await call(mcp, 'set_snapshot_speaker', { mindId, snapshotId, speaker: 'barack' })).data.speaker, PERSON);
  status = await waitForSnapshot(mcp, mindId, snapshotId);
  assert.equal(status.data.mindSpeaker, PERSON);
  const again = await call(mcp, 'set_snapshot_speaker', { mindId, snapshotId, speaker: PERSON });
  assert.equal(again.data.reprocessing, false);
  assert.match(again.text, /nothing changed/);
});

test('tool errors are clear tool results, not protocol errors; lists page', async () => {
  await checkEdgeCases(mcp, built.mindId);
});

test('every tool acts as the caller: another organization sees none of these minds', async () => {
  const other = await s.newKey('Other Org', 'other@example.org');
  const stranger = await connect(s.url, other.key);
  try {
    const all = await call(stranger, 'get_all_minds', {});
    assert.deepEqual(all.data.minds, []);
    assert.match(all.text, /No minds yet/);
    assert.match(await callFails(stranger, 'get_mind_profile', { mindId: built.mindId }), /404 NOT_FOUND/);
    assert.match(await callFails(stranger, 'get_mind_fidelity', { mindId: built.mindId }), /404 NOT_FOUND/);
    assert.match(await callFails(stranger, 'simulate', { mindId: built.mindId, message: 'Taxes?' }), /404 NOT_FOUND/);
    const mine = await call(stranger, 'create_mind', { name: 'Their Own' });
    const listed = await s.api('GET', `/minds/${mine.data.mind.id}`, undefined, other.key);
    assert.equal(listed.body.mind.organizationId, other.organizationId);
    assert.equal((await s.api('GET', `/minds/${mine.data.mind.id}`)).status, 404, 'not in the first organization');
  } finally {
    await stranger.close();
  }
});

test('a missing, malformed or revoked key is the API’s 401 JSON', async () => {
  const none = await post(INITIALIZE);
  assert.equal(none.status, 401);
  assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
  const body = await none.json();
  assert.equal(body.code, 'AUTH_FAILED');
  assert.equal(typeof body.message, 'string');

  assert.equal((await post(INITIALIZE, { authorization: 'Bearer mp_not_a_real_key' })).status, 401);

  const issued = await s.api('POST', '/api-keys', { name: 'mcp-revoked' });
  const client = await connect(s.url, issued.body.key);
  try {
    await call(client, 'get_all_minds', {});
    assert.equal((await s.api('DELETE', `/api-keys/${issued.body.apiKey.id}`)).status, 200);
    await assert.rejects(client.callTool({ name: 'get_all_minds', arguments: {} }), /401|revoked/i);
    const revoked = await post(INITIALIZE, { authorization: `Bearer ${issued.body.key}` });
    assert.equal(revoked.status, 401);
    assert.match((await revoked.json()).message, /revoked/);
  } finally {
    await client.close().catch(() => {});
  }
});

test('Origin is validated before the key: a foreign page (DNS rebinding included) is a 403 FORBIDDEN JSON, the own origin and clients without Origin go on', async () => {
  for (const [origin, key] of [
    ['https://evil.example', s.key],
    ['https://evil.example', null],
    ['null', s.key],
    [s.url.replace('127.0.0.1', 'localhost'), s.key],
  ] as const) {
    const res = await post(INITIALIZE, { origin, ...(key ? { authorization: `Bearer ${key}` } : {}) });
    assert.equal(res.status, 403, origin);
    const body = await res.json();
    assert.deepEqual([body.error, body.code], ['Forbidden', 'FORBIDDEN'], origin);
    assert.match(body.message, /may not call \/mcp.*MINDPRINT_CORS_ORIGINS/, origin);
  }
  // GET and DELETE are refused the same way, before their 405.
  assert.equal((await fetch(`${s.url}/mcp`, { method: 'GET', headers: { origin: 'https://evil.example', authorization: `Bearer ${s.key}` } })).status, 403);

  // A DNS name rebound to this server: the page's origin matches the Host it sends, yet a name
  // (unlike an address) proves nothing, so only MINDPRINT_PUBLIC_URL or MINDPRINT_CORS_ORIGINS admit it.
  const { port } = new URL(s.url);
  const rebound = await new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = httpRequest(`${s.url}/mcp`, {
      method: 'POST',
      headers: { host: `rebind.example:${port}`, origin: `http://rebind.example:${port}`, authorization: `Bearer ${s.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(INITIALIZE);
  });
  assert.equal(rebound.status, 403);
  assert.equal(rebound.body.code, 'FORBIDDEN');

  // The server's own origin (at its address) is accepted, as is no Origin at all.
  const own = await post(INITIALIZE, { origin: new URL(s.url).origin, authorization: `Bearer ${s.key}` });
  assert.equal(own.status, 200, await own.clone().text());
  assert.equal((await post(INITIALIZE, { authorization: `Bearer ${s.key}` })).status, 200);
});

test('stateless transport: no session id, GET and DELETE are 405, bad JSON-RPC is the protocol’s own error', async () => {
  const init = await post(INITIALIZE, { authorization: `Bearer ${s.key}` });
  assert.equal(init.status, 200);
  assert.equal(init.headers.get('mcp-session-id'), null);
  const answer = await init.json();
  assert.equal(answer.result.serverInfo.name, 'mindprint');
  assert.match(answer.result.instructions, /create_mind/);

  // Any request stands alone: a tools/call without an earlier initialize on this connection works.
  const listed = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_minds', arguments: { query: 'obama' } } }), {
    authorization: `Bearer ${s.key}`,
    'mcp-protocol-version': '2025-06-18',
  });
  assert.equal(listed.status, 200);
  assert.equal((await listed.json()).result.structuredContent.minds[0].name, PERSON);

  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(`${s.url}/mcp`, { method, headers: { authorization: `Bearer ${s.key}`, accept: 'text/event-stream' } });
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get('allow'), 'POST');
  }
  const garbled = await post('{"jsonrpc": "2.0", "id": 3, "method": ', { authorization: `Bearer ${s.key}` });
  assert.equal(garbled.status, 400);
  assert.equal((await garbled.json()).error.code, -32700);
});

/** A POST to /mcp with a Host of the test's choosing (fetch always sends the URL's own host). */
function postWithHost(host: string, body: string): Promise<{ status: number; body: any }> {
  const url = new URL(`${s.url}/mcp`);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${s.key}`, 'mcp-protocol-version': '2025-06-18' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('get_signed_upload_url follows only a Host the server listens on: a poisoned Host gets no URL on another host', async () => {
  const ask = (host: string) =>
    postWithHost(host, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_signed_upload_url', arguments: { mindId: built.mindId, fileName: 'a.vtt', contentType: 'text/vtt' } } }));
  const port = new URL(s.url).port;
  const poisoned = await ask('attacker.example');
  assert.equal(poisoned.status, 200);
  assert.equal(poisoned.body.result.isError, true);
  const text = poisoned.body.result.content.map((c: { text: string }) => c.text).join('\n');
  assert.match(text, /MINDPRINT_PUBLIC_URL/);
  assert.doesNotMatch(JSON.stringify(poisoned.body), /https?:\/\/attacker\.example/);
  const known = await ask(`localhost:${port}`);
  assert.equal(known.body.result.isError, undefined, JSON.stringify(known.body));
  assert.ok(known.body.result.structuredContent.signedUrl.startsWith(`http://localhost:${port}/uploads/`), known.body.result.structuredContent.signedUrl);
});

test('replicas share nothing but the database: a conversation started on one continues on another', { skip: !onPostgres() && 'needs PostgreSQL (TEST_DATABASE_URL): only one process may open an embedded database' }, async () => {
  const replica = await startTestServer({}, { replicaOf: s });
  const there = await connect(replica.url, s.key);
  try {
    const first = await call(mcp, 'simulate', { mindId: built.mindId, message: 'What do you think about the river?' });
    const next = await call(there, 'simulate', { mindId: built.mindId, message: 'And the mill?', conversationId: first.data.conversationId });
    assert.equal(next.data.simulationId, first.data.simulationId);
    const stored = await s.api('GET', `/simulations/${first.data.simulationId}`);
    assert.equal(stored.body.messages.length, 4);
  } finally {
    await there.close();
    await replica.close();
  }
});
