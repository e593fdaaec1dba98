/**
 * What an assistant does with Mindprint's MCP tools, shared by the stdio and HTTP suites: build a
 * mind from a real transcript file, wait for it, read it, ask it and continue the conversation.
 * Every call goes through the official SDK client, which checks each structuredContent against
 * the tool's outputSchema (listTools first: the client validates against the schemas it listed).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fixturePath } from '../../support/shared-data.ts';

const DEBATE = fixturePath('transcripts/us-presidential-debates/2012-10-03.said.txt');

/**
 * The mind and the transcript an assistant builds it from: the first half of the first 2012
 * debate, one `Full Name: text` line per turn (public domain, test/fixtures/SOURCES.md). The
 * moderator and the other candidate speak too: only the mind's own words may be quoted.
 */
export const PERSON = 'Barack H Obama';
export const OTHERS = ['Jim Lehrer', 'W Mitt Romney'];
export const TRANSCRIPT = { file: DEBATE, fileName: '2012-10-03.said.txt', contentType: 'text/plain' };
/** The auto-captions of the same debate: no speaker names at all. */
export const CAPTIONS = { file: fixturePath('transcripts/us-presidential-debates/2012-10-03.vtt'), fileName: 'captions.vtt', contentType: 'text/vtt' };

/** The person's turns in the transcript (continuation lines joined), whitespace collapsed. */
export async function personTurns(): Promise<string[]> {
  const turns: { speaker: string; text: string }[] = [];
  for (const line of (await readFile(DEBATE, 'utf8')).split('\n')) {
    const m = /^([A-Z][\w .]+): (.*)$/.exec(line);
    if (m && [PERSON, ...OTHERS].includes(m[1]!)) turns.push({ speaker: m[1]!, text: m[2]! });
    else if (line.trim() && turns.length) turns.at(-1)!.text += ` ${line}`;
  }
  return turns.filter((t) => t.speaker === PERSON).map((t) => flat(t.text));
}

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
/** Whether a quote (possibly cut with "…") is the person's own words. */
const saidBy = (turns: string[], quote: string) => turns.some((t) => t.includes(flat(quote).replace(/…$/, '')));

export const TOOLS = [
  'create_mind',
  'create_snapshot',
  'get_all_minds',
  'get_mind_fidelity',
  'get_mind_profile',
  'get_signed_upload_url',
  'get_snapshot_status',
  'list_snapshots',
  'search_minds',
  'set_snapshot_speaker',
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

export type Upload = (signed: { signedUrl: string; artifactId: string }, file: typeof TRANSCRIPT) => Promise<void>;

/** get_snapshot_status until it is finished, letting the server wait a little each time instead of sleeping here. */
export async function waitForSnapshot(mcp: Client, mindId: string, snapshotId: string) {
  let status = await call(mcp, 'get_snapshot_status', { mindId, snapshotId });
  for (let i = 0; status.data.status !== 'completed' && status.data.status !== 'failed' && i < 24; i++) {
    status = await call(mcp, 'get_snapshot_status', { mindId, snapshotId, waitSeconds: 5 });
  }
  return status;
}

/** get_signed_upload_url → `upload` (the transport's way) → create_snapshot → get_snapshot_status until completed. */
export async function addTranscript(mcp: Client, mindId: string, file: typeof TRANSCRIPT, upload: Upload, extra: Record<string, unknown> = {}) {
  const signed = await call(mcp, 'get_signed_upload_url', { mindId, fileName: file.fileName, contentType: file.contentType });
  assert.match(signed.data.signedUrl, /^https?:\/\/.+\/uploads\//);
  assert.ok(Date.parse(signed.data.expiresAt) > Date.now());
  await upload(signed.data, file);
  const snap = await call(mcp, 'create_snapshot', { mindId, artifactId: signed.data.artifactId, ...extra });
  const snapshotId: string = snap.data.mindAssessmentId;
  assert.match(snapshotId, /^[0-9a-f-]{36}$/);
  assert.match(snap.text, /get_snapshot_status/);
  assert.equal(snap.data.fileName, file.fileName);
  const status = await waitForSnapshot(mcp, mindId, snapshotId);
  assert.equal(status.data.status, 'completed', status.text);
  assert.equal(status.data.fileName, file.fileName);
  return { snapshotId, status, created: snap };
}

/** create_mind, then the debate as its first snapshot. Checks what each step answers. */
export async function buildMind(mcp: Client, upload: Upload): Promise<BuiltMind> {
  const created = await call(mcp, 'create_mind', { name: PERSON, email: 'barack@example.org', tags: ['debates-2012', 'candidates'] });
  const mindId: string = created.data.mind.id;
  assert.equal(created.data.mind.name, PERSON);
  assert.deepEqual([...created.data.mind.tags].sort(), ['candidates', 'debates-2012']);
  assert.match(created.text, /get_signed_upload_url/);

  const { snapshotId, status } = await addTranscript(mcp, mindId, TRANSCRIPT, upload, { mindsetDate: '2012-10-03' });
  assert.equal(status.data.mindSpeaker, PERSON);
  assert.equal(status.data.speakersLabelled, true);
  assert.equal(status.data.speakerWarning, null);
  assert.equal(status.data.attribution, 'name');
  assert.deepEqual([...status.data.otherSpeakers].sort(), OTHERS);
  assert.ok(status.data.mindWords > 1000, `${status.data.mindWords} words`);
  assert.match(status.text, new RegExp(`words of "${PERSON}"`));
  assert.doesNotMatch(status.text, /names no speakers/);
  return { mindId, snapshotId };
}

/** Reads the mind back and asks it twice in one conversation; returns the simulation id. */
export async function useMind(mcp: Client, { mindId, snapshotId }: BuiltMind): Promise<{ simulationId: string; conversationId: string }> {
  const turns = await personTurns();
  const found = await call(mcp, 'search_minds', { query: 'obam' });
  assert.deepEqual(found.data.minds.map((m: { id: string }) => m.id), [mindId]);
  assert.equal(found.data.minds[0].snapshotCount, 1);

  const tagged = await call(mcp, 'get_all_minds', { tagNames: ['debates-2012'] });
  assert.deepEqual(tagged.data.minds.map((m: { id: string }) => m.id), [mindId]);
  const csv = await call(mcp, 'get_all_minds', { tagNames: 'nobody-has-this,candidates' });
  assert.deepEqual(csv.data.minds.map((m: { id: string }) => m.id), [mindId]);

  const snaps = await call(mcp, 'list_snapshots', { mindId });
  assert.equal(snaps.data.count, 1);
  assert.deepEqual(
    snaps.data.snapshots.map((s: any) => [s.id, s.status, s.fileName, s.mindSpeaker, s.speakersLabelled]),
    [[snapshotId, 'completed', TRANSCRIPT.fileName, PERSON, true]],
  );
  assert.match(snaps.text, new RegExp(`2012-10-03 2012-10-03\\.said\\.txt: completed — \\d+ words of "${PERSON}"`));
  assert.ok(snaps.data.snapshots[0].mindWords > 1000);
  assert.equal(snaps.data.snapshots[0].speakerWarning, null);

  const profile = await call(mcp, 'get_mind_profile', { mindId });
  assert.ok(Buffer.byteLength(profile.text) < 4096, `profile text is ${Buffer.byteLength(profile.text)} bytes`);
  assert.ok(Buffer.byteLength(JSON.stringify(profile.data)) < 4096, 'the structured profile is compact too');
  assert.equal(profile.data.mindId, mindId);
  assert.equal(profile.data.snapshotCount, 1);
  assert.equal(profile.data.bigFive.length, 5);
  for (const t of profile.data.bigFive) assert.ok(t.confidence > 0 && t.confidence <= 1, `${t.name} confidence ${t.confidence}`);
  assert.ok(profile.data.topics.length > 0);
  assert.ok(profile.data.findings.length > 0);
  for (const f of profile.data.findings) assert.ok(saidBy(turns, f.quote), `finding quotes him: ${f.quote}`);
  assert.match(profile.text, /Big Five \(percentile, confidence\)/);
  assert.deepEqual(profile.data.unlabelledFiles, []);
  assert.doesNotMatch(profile.text, /name no speakers/);

  // The fidelity check, computed in the background once the snapshot completed: waited for here.
  let fidelity = await call(mcp, 'get_mind_fidelity', { mindId });
  for (let i = 0; fidelity.data.status === 'pending' && i < 240; i++) {
    await new Promise((r) => setTimeout(r, 250));
    fidelity = await call(mcp, 'get_mind_fidelity', { mindId });
  }
  assert.ok(['ready', 'insufficient'].includes(fidelity.data.status), fidelity.text);
  assert.ok(fidelity.text.startsWith(`${PERSON}: ${fidelity.data.summary}`), fidelity.text);
  if (fidelity.data.status === 'ready') {
    // One long debate alone: its two halves are held out in turn.
    assert.ok(fidelity.data.questions > 0 && fidelity.data.specificity >= 0 && fidelity.data.specificity <= 1, fidelity.text);
    assert.match(fidelity.text, /specificity AUC 0\.\d{3} \(0\.5 is chance\)/);
    for (const e of fidelity.data.examples) assert.ok(saidBy(turns, e.real.replace(/…$/, '').slice(0, 80)), `the real answer is his: ${e.real}`);
  } else assert.ok(fidelity.data.reason, fidelity.text);

  const first = await call(mcp, 'simulate', { mindId, message: 'What would you do about taxes for the middle class?', snapshotId });
  assert.match(first.data.answer, /tax/i);
  assert.ok(first.data.evidence.length > 0, first.text);
  for (const e of first.data.evidence) {
    assert.equal(e.snapshotId, snapshotId);
    assert.deepEqual([e.fileName, e.speakersLabelled], [TRANSCRIPT.fileName, true]);
    assert.ok(saidBy(turns, e.quote), `quote is his, never Romney's or Lehrer's: ${e.quote}`);
  }
  assert.match(first.text, new RegExp(`conversationId: ${first.data.conversationId}`));
  assert.deepEqual(first.data.warnings, [], 'a transcript that names its speakers: nothing to warn of');
  assert.doesNotMatch(first.text, /Warning:/);

  const next = await call(mcp, 'simulate', { mindId, message: 'And how would you bring down the deficit?', conversationId: first.data.conversationId });
  assert.equal(next.data.conversationId, first.data.conversationId);
  assert.equal(next.data.simulationId, first.data.simulationId);
  for (const e of next.data.evidence) assert.ok(saidBy(turns, e.quote), `quote is his: ${e.quote}`);
  assert.match(next.data.answer, /deficit|debt|spending/i);
  return { simulationId: first.data.simulationId, conversationId: first.data.conversationId };
}

/** Errors every transport reports as clear tool errors, and paging. */
export async function checkEdgeCases(mcp: Client, mindId: string): Promise<void> {
  const missing = await callFails(mcp, 'get_mind_profile', { mindId: '00000000-0000-4000-8000-000000000000' });
  assert.match(missing, /404 NOT_FOUND/);
  assert.match(missing, /get_all_minds or search_minds/);

  assert.match(await callFails(mcp, 'simulate', { mindId: 'not-a-uuid', message: 'hi' }), /must be a UUID at mindId/);
  assert.match(await callFails(mcp, 'create_mind', {}), /name/);
  assert.match(await callFails(mcp, 'get_all_minds', { limit: 501 }), /limit/);

  const empty = await call(mcp, 'create_mind', { name: 'Empty Mind' });
  // Two minds match "m" (Obama, Empty Mind): one per page says there is more.
  const page = await call(mcp, 'search_minds', { query: 'm', limit: 1 });
  assert.deepEqual([page.data.count, page.data.hasMore], [1, true]);
  const firstOfAll = await call(mcp, 'get_all_minds', { limit: 1 });
  assert.deepEqual([firstOfAll.data.count, firstOfAll.data.hasMore], [1, true]);
  assert.match(firstOfAll.text, /more with offset 1/);
  const rest = await call(mcp, 'get_all_minds', { limit: 500, offset: 1 });
  assert.ok(rest.data.count >= 1 && !rest.data.hasMore);
  assert.match(await callFails(mcp, 'simulate', { mindId: empty.data.mind.id, message: 'Hello?' }), /400 VALIDATION_FAILED/);
  assert.match(await callFails(mcp, 'get_signed_upload_url', { mindId, fileName: 'x.png', contentType: 'image/png' }), /400 VALIDATION_FAILED: querystring.contentType must be equal to one of the allowed values: text\/vtt, /);
  assert.match(await callFails(mcp, 'create_snapshot', { mindId, artifactId: '00000000-0000-4000-8000-000000000000' }), /Mindprint answered 4\d\d/);
  const profile = await call(mcp, 'get_mind_profile', { mindId: empty.data.mind.id });
  assert.match(profile.text, /no completed, linked snapshot yet/);

  // A URL that is not this service's: the upload tools refuse before reading anything.
  assert.match(await callFails(mcp, 'upload_text_to_signed_url', { signedUrl: 'https://attacker.example/collect', content: 'WEBVTT', contentType: 'text/vtt' }), /Refusing to upload to https:\/\/attacker\.example/);
}
