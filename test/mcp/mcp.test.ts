/**
 * `mindprint mcp` as an assistant uses it: the real service runs in this process, the MCP server
 * is spawned as `node bin/mindprint.js mcp` pointing at it over HTTP, and the MCP SDK's client
 * talks to it over stdio.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MindprintClient } from '@mindprint/client';
import { startTestServer, type TestServer } from '../support/server.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

const ANSWERS = [
  'Honestly, the thing I care about most is the river. I grew up fishing on it with my father, and when the mill closed the water came back clean. I will fight any permit that puts that at risk.',
  'I think small businesses are the backbone of this town. When the hardware store on Main Street nearly closed, I organized the neighbours to buy gift cards in advance, and it is still open today.',
  'On housing, I believe we should allow duplexes on every residential lot. My daughter is a nurse and she cannot afford to live in the town where she works, and that is simply wrong.',
  'Taxes should be fair and simple. I would rather pay a little more in property tax and have a library that stays open on weekends than save forty dollars a year and lose it.',
];
const VTT = [
  'WEBVTT',
  '',
  ...ANSWERS.flatMap((a, i) => [
    `${2 * i + 1}`,
    `00:0${2 * i}:00.000 --> 00:0${2 * i}:10.000`,
    `<v Interviewer>${['What matters most to you here?', 'What about local businesses?', 'And housing?', 'What is your view on taxes?'][i]}`,
    '',
    `${2 * i + 2}`,
    `00:0${2 * i}:10.000 --> 00:0${2 * i + 1}:00.000`,
    `<v Margaret Okafor>${a}`,
    '',
  ]),
].join('\n');

let s: TestServer;
let mindId: string;
let snapshotId: string;
let mcp: Client;

const textOf = (r: unknown) => ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

async function connect(env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/mindprint.js', 'mcp'],
    cwd: root,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mindprint-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

before(async () => {
  s = await startTestServer();
  const sdk = new MindprintClient({ baseUrl: s.url, apiKey: s.key });
  const { mind } = await sdk.createMind({ name: 'Margaret Okafor', tags: 'town-council' });
  await sdk.createMind({ name: 'Someone Else' });
  mindId = mind.id;
  snapshotId = (await sdk.uploadSnapshot(mindId, { file: new TextEncoder().encode(VTT), fileName: 'interview.vtt', mindsetDate: '2024-05-01' })).mindAssessmentId;
  await sdk.waitForSnapshot(mindId, snapshotId, { timeoutMs: 30_000, intervalMs: 50 });
  mcp = await connect({ MINDPRINT_URL: s.url, MINDPRINT_API_KEY: s.key });
});
after(async () => {
  await mcp?.close();
  await s?.close();
});

test('lists the five tools, each with an input schema', async () => {
  const { tools } = await mcp.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['get_mind_profile', 'list_minds', 'list_snapshots', 'search_minds', 'simulate']);
  const simulate = tools.find((t) => t.name === 'simulate')!;
  assert.equal(simulate.inputSchema.type, 'object');
  assert.deepEqual([...(simulate.inputSchema.required ?? [])].sort(), ['message', 'mindId']);
  assert.ok(simulate.inputSchema.properties && 'conversationId' in simulate.inputSchema.properties && 'snapshotId' in simulate.inputSchema.properties);
  for (const t of tools) assert.ok(t.description && t.description.length > 20, `${t.name} is described`);
});

test('search_minds, list_minds and list_snapshots read the service', async () => {
  const found = await mcp.callTool({ name: 'search_minds', arguments: { query: 'okaf' } });
  assert.ok(!found.isError, textOf(found));
  const minds = JSON.parse(textOf(found)) as { id: string; name: string; tags: string[] }[];
  assert.deepEqual(minds.map((m) => [m.id, m.name, m.tags]), [[mindId, 'Margaret Okafor', ['town-council']]]);

  const none = await mcp.callTool({ name: 'search_minds', arguments: { query: 'zzz-nobody' } });
  assert.match(textOf(none), /No mind matches/);

  const all = JSON.parse(textOf(await mcp.callTool({ name: 'list_minds', arguments: {} }))) as { name: string }[];
  assert.deepEqual(all.map((m) => m.name).sort(), ['Margaret Okafor', 'Someone Else']);
  const tagged = JSON.parse(textOf(await mcp.callTool({ name: 'list_minds', arguments: { tagNames: 'town-council' } }))) as { name: string }[];
  assert.deepEqual(tagged.map((m) => m.name), ['Margaret Okafor']);

  const snaps = JSON.parse(textOf(await mcp.callTool({ name: 'list_snapshots', arguments: { mindId } }))) as { id: string; status: string }[];
  assert.deepEqual(snaps.map((x) => [x.id, x.status]), [[snapshotId, 'completed']]);

  const profile = await mcp.callTool({ name: 'get_mind_profile', arguments: { mindId } });
  assert.ok(!profile.isError, textOf(profile));
  assert.equal(JSON.parse(textOf(profile)).mindId, mindId);
});

test('simulate answers with the person’s own quotes and continues the conversation', async () => {
  const res = await mcp.callTool({ name: 'simulate', arguments: { mindId, message: 'What would you do about property taxes and the library?', snapshotId } });
  const out = textOf(res);
  assert.ok(!res.isError, out);
  assert.match(out, /library/i);
  const quotes = [...out.matchAll(/^\d+\. "(.+)" \(snapshot ([0-9a-f-]{36})\)$/gm)];
  assert.ok(quotes.length > 0, out);
  for (const [, quote, snap] of quotes) {
    assert.equal(snap, snapshotId);
    assert.ok(ANSWERS.some((a) => a.includes(quote)), `quote is Margaret's: ${quote}`);
    assert.ok(!quote.includes('What is your view'), 'the interviewer is never quoted');
  }
  const conversationId = /conversationId: ([0-9a-f-]{36})/.exec(out)![1];
  const simulationId = /simulationId: ([0-9a-f-]{36})/.exec(out)![1];

  const next = await mcp.callTool({ name: 'simulate', arguments: { mindId, message: 'And housing for nurses?', conversationId } });
  assert.ok(!next.isError, textOf(next));
  assert.equal(/simulationId: ([0-9a-f-]{36})/.exec(textOf(next))![1], simulationId);
  const stored = await s.api('GET', `/simulations/${simulationId}`);
  assert.equal(stored.body.messages.length, 4);
  assert.equal(stored.body.simulation.mindAssessmentId, snapshotId);
});

test('tool errors are clear: unknown ids, bad input, an unreachable service', async () => {
  const missing = await mcp.callTool({ name: 'get_mind_profile', arguments: { mindId: '00000000-0000-4000-8000-000000000000' } });
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /404 NOT_FOUND/);

  const bad = await mcp.callTool({ name: 'simulate', arguments: { mindId: 'not-a-uuid', message: 'hi' } }).catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /mindId|UUID/i);

  const { mind } = await s.api('POST', '/minds', { name: 'Empty Mind' }).then((r) => r.body);
  const empty = await mcp.callTool({ name: 'simulate', arguments: { mindId: mind.id, message: 'Hello?' } });
  assert.equal(empty.isError, true);
  assert.match(textOf(empty), /400 VALIDATION_FAILED/);

  // A port nothing listens on: the tool says the service is unreachable instead of crashing.
  const down = await connect({ MINDPRINT_URL: 'http://127.0.0.1:9', MINDPRINT_API_KEY: s.key });
  try {
    const res = await down.callTool({ name: 'list_minds', arguments: {} });
    assert.equal(res.isError, true);
    assert.match(textOf(res), /Could not reach Mindprint at http:\/\/127\.0\.0\.1:9\/api\/svc/);
  } finally {
    await down.close();
  }
});
