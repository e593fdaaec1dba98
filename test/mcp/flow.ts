/**
 * What an assistant does with Mindprint's MCP tools, shared by the stdio and HTTP suites: build a
 * mind from a real transcript file, wait for it, read it, ask it and continue the conversation.
 * Every call goes through the official SDK client, which checks each structuredContent against
 * the tool's outputSchema (listTools first: the client validates against the schemas it listed).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const ANSWERS = [
  'Honestly, the thing I care about most is the river. I grew up fishing on it with my father, and when the mill closed the water came back clean. I will fight any permit that puts that at risk.',
  'I think small businesses are the backbone of this town. When the hardware store on Main Street nearly closed, I organized the neighbours to buy gift cards in advance, and it is still open today.',
  'On housing, I believe we should allow duplexes on every residential lot. My daughter is a nurse and she cannot afford to live in the town where she works, and that is simply wrong.',
  'Taxes should be fair and simple. I would rather pay a little more in property tax and have a library that stays open on weekends than save forty dollars a year and lose it.',
];
const QUESTIONS = ['What matters most to you here?', 'What about local businesses?', 'And housing?', 'What is your view on taxes?'];

export const PERSON = 'Margaret Okafor';
/** A labelled interview: "Interviewer" asks, Margaret Okafor answers (only her words may be quoted). */
export const VTT = [
  'WEBVTT',
  '',
  ...ANSWERS.flatMap((a, i) => [
    `${2 * i + 1}`,
    `00:0${2 * i}:00.000 --> 00:0${2 * i}:10.000`,
    `<v Interviewer>${QUESTIONS[i]}`,
    '',
    `${2 * i + 2}`,
    `00:0${2 * i}:10.000 --> 00:0${2 * i + 1}:00.000`,
    `<v ${PERSON}>${a}`,
    '',
  ]),
].join('\n');
export const TRANSCRIPT_CONTENT_TYPE = 'text/vtt';

/** The transcript as a real file on disk (what upload_file_to_signed_url reads), in a fresh temp dir. */
export async function writeTranscript(): Promise<{ file: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mp-mcp-'));
  const file = path.join(dir, 'interview.vtt');
  await writeFile(file, VTT);
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Her answers, as the transcript has them. */
export const personLines = () => ANSWERS;

export const TOOLS = [
  'create_mind',
  'create_snapshot',
  'get_all_minds',
  'get_mind_profile',
  'get_signed_upload_url',
  'get_snapshot_status',
  'list_snapshots',
  'search_minds',
  'simulate',
  'upload_file_to_signed_url',
  'upload_text_to_signed_url',
];

export const textOf = (r: unknown) => ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** Calls a tool that must succeed; returns its structured result (and text). */
export async function call<T = any>(mcp: Client, name: string, args: Record<string, unknown>): Promise<{ data: T; text: string }> {
  const res = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  assert.ok(!res.isError, `${name} failed: ${textOf(res)}`);
  assert.ok(res.structuredContent, `${name} returns structuredContent`);
  return { data: res.structuredContent as T, text: textOf(res) };
}

/** Calls a tool that must fail as a tool error (never a protocol error); returns its message. */
export async function callFails(mcp: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const res = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  assert.equal(res.isError, true, `${name} should fail: ${textOf(res)}`);
  return textOf(res);
}

/** Every tool is listed with a description, an input schema and an output schema. */
export async function checkToolList(mcp: Client): Promise<void> {
  const { tools } = await mcp.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
  for (const t of tools) {
    assert.ok(t.description && t.description.length > 30, `${t.name} is described`);
    assert.equal(t.inputSchema.type, 'object', `${t.name} inputSchema`);
    assert.equal(t.outputSchema?.type, 'object', `${t.name} outputSchema`);
  }
  const required = (name: string) => [...(tools.find((t) => t.name === name)!.inputSchema.required ?? [])].sort();
  assert.deepEqual(required('get_all_minds'), []);
  assert.deepEqual(required('search_minds'), ['query']);
  assert.deepEqual(required('create_mind'), ['name']);
  assert.deepEqual(required('get_signed_upload_url'), ['contentType', 'fileName', 'mindId']);
  assert.deepEqual(required('upload_file_to_signed_url'), ['contentType', 'filePath', 'signedUrl']);
  assert.deepEqual(required('create_snapshot'), ['artifactId', 'mindId']);
  assert.deepEqual(required('get_snapshot_status'), ['mindId', 'snapshotId']);
  assert.deepEqual(required('simulate'), ['message', 'mindId']);
  const props = (name: string) => Object.keys(tools.find((t) => t.name === name)!.inputSchema.properties ?? {});
  for (const p of ['email', 'tags']) assert.ok(props('create_mind').includes(p));
  for (const p of ['mindsetDate', 'speaker']) assert.ok(props('create_snapshot').includes(p));
  for (const p of ['conversationId', 'snapshotId', 'model']) assert.ok(props('simulate').includes(p));
  assert.ok(props('get_all_minds').includes('tagNames'));
}

export interface BuiltMind {
  mindId: string;
  snapshotId: string;
}

/**
 * create_mind → get_signed_upload_url → `upload` (the transport's way) → create_snapshot →
 * get_snapshot_status until completed. Checks what each step answers.
 */
export async function buildMind(mcp: Client, upload: (signed: { signedUrl: string; artifactId: string }) => Promise<void>, name = PERSON): Promise<BuiltMind> {
  const created = await call(mcp, 'create_mind', { name, email: 'margaret@example.org', tags: ['town-council', 'interviews'] });
  const mindId: string = created.data.mind.id;
  assert.equal(created.data.mind.name, name);
  assert.deepEqual([...created.data.mind.tags].sort(), ['interviews', 'town-council']);
  assert.match(created.text, /get_signed_upload_url/);

  const signed = await call(mcp, 'get_signed_upload_url', { mindId, fileName: 'interview.vtt', contentType: TRANSCRIPT_CONTENT_TYPE });
  assert.match(signed.data.signedUrl, /^https?:\/\/.+\/uploads\//);
  assert.ok(Date.parse(signed.data.expiresAt) > Date.now());
  await upload(signed.data);

  const snap = await call(mcp, 'create_snapshot', { mindId, artifactId: signed.data.artifactId, mindsetDate: '2024-05-01' });
  const snapshotId: string = snap.data.mindAssessmentId;
  assert.match(snapshotId, /^[0-9a-f-]{36}$/);

  // Poll as an assistant would, letting the server wait a little each time instead of sleeping here.
  let status = await call(mcp, 'get_snapshot_status', { mindId, snapshotId });
  for (let i = 0; status.data.status !== 'completed' && status.data.status !== 'failed' && i < 20; i++) {
    status = await call(mcp, 'get_snapshot_status', { mindId, snapshotId, waitSeconds: 5 });
  }
  assert.equal(status.data.status, 'completed', status.text);
  assert.equal(status.data.fileName, 'interview.vtt');
  assert.equal(status.data.mindSpeaker, name);
  assert.equal(status.data.speakersLabelled, true);
  assert.deepEqual(status.data.otherSpeakers, ['Interviewer']);
  assert.ok(status.data.mindWords > 50);
  assert.match(status.text, new RegExp(`words of "${name}"`));
  return { mindId, snapshotId };
}

/** Reads the mind back and asks it twice in one conversation; returns the simulation id. */
export async function useMind(mcp: Client, { mindId, snapshotId }: BuiltMind): Promise<{ simulationId: string; conversationId: string }> {
  const lines = personLines();
  const found = await call(mcp, 'search_minds', { query: 'okaf' });
  assert.deepEqual(found.data.minds.map((m: { id: string }) => m.id), [mindId]);
  assert.equal(found.data.minds[0].snapshotCount, 1);

  const tagged = await call(mcp, 'get_all_minds', { tagNames: ['town-council'] });
  assert.deepEqual(tagged.data.minds.map((m: { id: string }) => m.id), [mindId]);
  const csv = await call(mcp, 'get_all_minds', { tagNames: 'nobody-has-this,interviews' });
  assert.deepEqual(csv.data.minds.map((m: { id: string }) => m.id), [mindId]);

  const snaps = await call(mcp, 'list_snapshots', { mindId });
  assert.equal(snaps.data.count, 1);
  assert.deepEqual(
    snaps.data.snapshots.map((s: any) => [s.id, s.status, s.fileName, s.mindSpeaker, s.speakersLabelled]),
    [[snapshotId, 'completed', 'interview.vtt', PERSON, true]],
  );
  assert.match(snaps.text, /interview\.vtt: completed — \d+ words of "Margaret Okafor"/);

  const profile = await call(mcp, 'get_mind_profile', { mindId });
  assert.ok(Buffer.byteLength(profile.text) < 4096, `profile text is ${Buffer.byteLength(profile.text)} bytes`);
  assert.ok(Buffer.byteLength(JSON.stringify(profile.data)) < 4096, 'the structured profile is compact too');
  assert.equal(profile.data.mindId, mindId);
  assert.equal(profile.data.snapshotCount, 1);
  assert.equal(profile.data.bigFive.length, 5);
  for (const t of profile.data.bigFive) assert.ok(t.confidence >= 0 && t.confidence <= 1);
  assert.ok(profile.data.topics.length > 0);
  for (const f of profile.data.findings) assert.ok(lines.some((l) => l.replace(/\s+/g, ' ').includes(f.quote.replace(/…$/, ''))), `finding quotes her: ${f.quote}`);
  assert.match(profile.text, /Big Five/);

  const first = await call(mcp, 'simulate', { mindId, message: 'What would you do about property taxes and the library?', snapshotId });
  assert.match(first.data.answer, /library|tax/i);
  assert.ok(first.data.evidence.length > 0, first.text);
  for (const e of first.data.evidence) {
    assert.equal(e.snapshotId, snapshotId);
    assert.ok(lines.some((l) => l.includes(e.quote)), `quote is hers: ${e.quote}`);
  }
  assert.match(first.text, new RegExp(`conversationId: ${first.data.conversationId}`));

  const next = await call(mcp, 'simulate', { mindId, message: 'And housing for nurses?', conversationId: first.data.conversationId });
  assert.equal(next.data.conversationId, first.data.conversationId);
  assert.equal(next.data.simulationId, first.data.simulationId);
  assert.match(next.data.answer, /hous|nurse|duplex/i);
  return { simulationId: first.data.simulationId, conversationId: first.data.conversationId };
}

/** Errors every transport reports as clear tool errors. */
export async function checkToolErrors(mcp: Client, mindId: string): Promise<void> {
  const missing = await callFails(mcp, 'get_mind_profile', { mindId: '00000000-0000-4000-8000-000000000000' });
  assert.match(missing, /404 NOT_FOUND/);
  assert.match(missing, /get_all_minds or search_minds/);

  assert.match(await callFails(mcp, 'simulate', { mindId: 'not-a-uuid', message: 'hi' }), /must be a UUID at mindId/);
  assert.match(await callFails(mcp, 'create_mind', {}), /name/);

  const empty = await call(mcp, 'create_mind', { name: 'Empty Mind' });
  assert.match(await callFails(mcp, 'simulate', { mindId: empty.data.mind.id, message: 'Hello?' }), /400 VALIDATION_FAILED/);
  assert.match(await callFails(mcp, 'get_signed_upload_url', { mindId, fileName: 'x.png', contentType: 'image/png' }), /400 VALIDATION_FAILED: contentType must be one of/);
  assert.match(await callFails(mcp, 'create_snapshot', { mindId, artifactId: '00000000-0000-4000-8000-000000000000' }), /Mindprint answered 4\d\d/);
  const profile = await call(mcp, 'get_mind_profile', { mindId: empty.data.mind.id });
  assert.match(profile.text, /no completed, linked snapshot yet/);

  // A URL that is not this service's: the upload tools refuse before reading anything.
  assert.match(await callFails(mcp, 'upload_text_to_signed_url', { signedUrl: 'https://attacker.example/collect', content: 'WEBVTT', contentType: 'text/vtt' }), /Refusing to upload to https:\/\/attacker\.example/);
}
