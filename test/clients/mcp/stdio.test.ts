/**
 * `mindprint mcp` as a local assistant uses it: the real service runs in this process, the MCP
 * server is spawned as `node bin/mindprint.js mcp` pointing at it over HTTP, and the official SDK
 * client talks to it over stdio. The transcript is uploaded from a fixture file on disk.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { buildMind, call, callFails, checkEdgeCases, checkToolList, TRANSCRIPT, useMind, type BuiltMind } from './flow.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

let s: TestServer;
let mcp: Client;
let built: BuiltMind;

/** Spawns `mindprint mcp` with exactly these settings (none of the test's own MINDPRINT_* leak in). */
async function connect(env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['bin/mindprint.js', 'mcp'], cwd: root, env: { ...getDefaultEnvironment(), ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'mindprint-stdio-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

before(async () => {
  s = await startTestServer();
  mcp = await connect({ MINDPRINT_URL: s.url, MINDPRINT_API_KEY: s.key });
  await checkToolList(mcp);
});
after(async () => {
  await mcp?.close();
  await s?.close();
});

test('an assistant builds a mind from a file on disk, reads it and holds a conversation with it', async () => {
  built = await buildMind(mcp, async (signed, file) => {
    const uploaded = await call(mcp, 'upload_file_to_signed_url', { signedUrl: signed.signedUrl, filePath: file.file, contentType: file.contentType });
    assert.equal(uploaded.data.artifactId, signed.artifactId);
    assert.equal(uploaded.data.filePath, file.file);
    assert.equal(uploaded.data.size, (await stat(file.file)).size);
    assert.match(uploaded.text, /create_snapshot/);
  });
  const { simulationId } = await useMind(mcp, built);
  const stored = await s.api('GET', `/simulations/${simulationId}`);
  assert.equal(stored.body.messages.length, 4);
  assert.equal(stored.body.simulation.mindAssessmentId, built.snapshotId);
});

test('upload_file_to_signed_url: missing files, folders and foreign URLs are clear tool errors', async () => {
  const signed = await call(mcp, 'get_signed_upload_url', { mindId: built.mindId, fileName: 'x.vtt', contentType: 'text/vtt' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mp-mcp-dir-'));
  try {
    assert.match(await callFails(mcp, 'upload_file_to_signed_url', { signedUrl: signed.data.signedUrl, filePath: path.join(dir, 'nope.vtt'), contentType: 'text/vtt' }), /No file at .*nope\.vtt/);
    assert.match(await callFails(mcp, 'upload_file_to_signed_url', { signedUrl: signed.data.signedUrl, filePath: dir, contentType: 'text/vtt' }), /is not a file/);
    assert.match(
      await callFails(mcp, 'upload_file_to_signed_url', { signedUrl: 'https://attacker.example/u/1', filePath: TRANSCRIPT.file, contentType: 'text/vtt' }),
      /Refusing to upload to https:\/\/attacker\.example: not a signed URL of this Mindprint service/,
    );
    // The URL's content type binds the PUT: the service's 403 comes back as the tool's message.
    assert.match(await callFails(mcp, 'upload_file_to_signed_url', { signedUrl: signed.data.signedUrl, filePath: TRANSCRIPT.file, contentType: 'text/plain' }), /403 FORBIDDEN: This upload URL is for Content-Type text\/vtt/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('tool errors are clear tool results, not protocol errors; lists page', async () => {
  await checkEdgeCases(mcp, built.mindId);
});

test('no settings, a wrong key or a service that is down: the server still starts and each tool says what is wrong', async () => {
  const bare = await connect({});
  try {
    assert.equal((await bare.listTools()).tools.length > 0, true);
    // Whichever setting is missing first (the CLI may default the URL), the tool names it.
    assert.match(await callFails(bare, 'get_all_minds', {}), /Mindprint is not configured: MINDPRINT_(URL|API_KEY) is not set/);
  } finally {
    await bare.close();
  }

  const wrongKey = await connect({ MINDPRINT_URL: s.url, MINDPRINT_API_KEY: 'mp_not_a_real_key' });
  try {
    assert.match(await callFails(wrongKey, 'search_minds', { query: 'x' }), /401 AUTH_FAILED: Invalid API key\. Check the API key/);
  } finally {
    await wrongKey.close();
  }

  // A port nothing listens on (one just freed): the tool says the service is unreachable instead of crashing.
  const port = await freePort();
  const down = await connect({ MINDPRINT_URL: `http://127.0.0.1:${port}`, MINDPRINT_API_KEY: s.key });
  try {
    assert.match(await callFails(down, 'get_all_minds', {}), new RegExp(`Could not reach Mindprint at http://127\\.0\\.0\\.1:${port}/api/svc: ECONNREFUSED\\. Is the service running`));
  } finally {
    await down.close();
  }
});
