/**
 * Server logs: readable lines (pino-pretty) when stdout is a terminal, JSON lines otherwise, and
 * secrets redacted in both — through the real logger options (src/boot/logging.ts) in Fastify, and
 * `mindprint serve` spawned under a pseudo-terminal (`script`) and on a pipe.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import Fastify from 'fastify';
import { censorSecrets, logFormat, loggerOptions } from '../../../src/boot/logging.ts';
import { BIN, spawnServe } from '../../support/cli.ts';

const SECRET = `mp_${'S'.repeat(43)}`;

/** A stream that says it is (or is not) a terminal, collecting what is written. */
function sink(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  stream.on('data', (d) => (text += d));
  return { stream, text: () => text };
}

async function logThrough(isTTY: boolean): Promise<string> {
  const out = sink(isTTY);
  const app = Fastify({ logger: await loggerOptions({ logLevel: 'info' }, out.stream) });
  app.log.info({ req: { method: 'GET', headers: { authorization: `Bearer ${SECRET}`, cookie: `session=${SECRET}` } }, headers: { authorization: `Bearer ${SECRET}` } }, 'a request with secrets');
  await app.close();
  await new Promise((r) => setImmediate(r));
  return out.text();
}

test('the format follows whether stdout is a terminal', () => {
  assert.equal(logFormat({ isTTY: true }), 'pretty');
  assert.equal(logFormat({ isTTY: false }), 'json');
  assert.equal(logFormat({}), 'json');
});

test('on a terminal: a readable line, the secrets redacted', async () => {
  const text = await logThrough(true);
  assert.match(text, /^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*: .*a request with secrets/m, text);
  assert.throws(() => JSON.parse(text.split('\n')[0]!), 'not JSON');
  assert.ok(!text.includes(SECRET), text);
  assert.match(text, /"authorization": "\[redacted\]"/, text);
});

test('elsewhere: JSON lines, the secrets redacted', async () => {
  const text = await logThrough(false);
  const line = JSON.parse(text.trim().split('\n')[0]!);
  assert.equal(line.msg, 'a request with secrets');
  assert.equal(line.level, 30);
  // Fastify's request serializer keeps no headers; a header object logged as such is redacted.
  assert.equal(line.req.headers, undefined);
  assert.equal(line.headers.authorization, '[redacted]');
  assert.ok(!text.includes(SECRET));
});

test('any secret header, at any depth and in any case, is censored without touching the logged object', () => {
  const headers = { Authorization: `Bearer ${SECRET}`, 'X-Api-Key': SECRET, cookie: `s=${SECRET}`, 'proxy-authorization': `Basic ${SECRET}`, host: 'example.org' };
  const logged = { busboyOptions: { headers, limits: { files: 1 } }, list: [{ deep: { deeper: { 'set-cookie': [SECRET] } } }] };
  const censored = censorSecrets(logged);
  assert.ok(!JSON.stringify(censored).includes(SECRET), JSON.stringify(censored));
  assert.deepEqual(censored.busboyOptions.headers, { Authorization: '[redacted]', 'X-Api-Key': '[redacted]', cookie: '[redacted]', 'proxy-authorization': '[redacted]', host: 'example.org' });
  assert.equal(headers.Authorization, `Bearer ${SECRET}`, 'the live object is not changed');
  assert.equal(censored.busboyOptions.limits, logged.busboyOptions.limits, 'what holds no secret is not copied');
  const cyclic: Record<string, unknown> = { authorization: SECRET };
  cyclic.self = cyclic;
  assert.ok(!JSON.stringify(censorSecrets(cyclic), (k, v) => (k === 'self' ? undefined : v)).includes(SECRET));
});

test('LOG_LEVEL=trace: a real multipart upload logs every step (busboy options included) and no part of the key', async () => {
  // A random key, so that any 8 characters of it found in the output can only come from it.
  const key = `mp_${randomBytes(32).toString('base64url')}`;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mp-logs-'));
  const server = spawnServe({ LOG_LEVEL: 'trace', MINDPRINT_DATA_DIR: dir, MINDPRINT_BOOTSTRAP_KEY: key, MINDPRINT_IN_PROCESS_WORKER: 'false' });
  try {
    const [line] = await server.waitFor(/^.*"msg":"Mindprint is serving".*$/m);
    const base = JSON.parse(line).url as string;
    const headers = { authorization: `Bearer ${key}`, 'x-api-key': key, cookie: `session=${key}`, 'proxy-authorization': `Bearer ${key}` };
    const created = await fetch(`${base}/minds`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Logged Person' }) });
    assert.equal(created.status, 200, await created.clone().text());
    const { mind } = await created.json();
    const form = new FormData();
    form.append('file', new Blob(['Logged Person: I said something worth keeping.\n'], { type: 'text/plain' }), 'talk.txt');
    form.append('mindsetDate', '2024-01-01');
    const uploaded = await fetch(`${base}/minds/${mind.id}/snapshots`, { method: 'POST', headers, body: form });
    assert.ok(uploaded.status < 300, await uploaded.text());
    // The lines are written synchronously, but the pipe may lag behind the answer.
    await server.waitFor(/Providing options to busboy/, 10_000);
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const out = server.stdout() + server.stderr();
  const busboy = out.split('\n').find((l) => l.includes('Providing options to busboy'))!;
  assert.equal(JSON.parse(busboy).busboyOptions.headers.authorization, '[redacted]', busboy);
  for (let i = 0; i + 8 <= key.length; i++) {
    const piece = key.slice(i, i + 8);
    assert.ok(!out.includes(piece), `the log holds "${piece}" of the key:\n${out.split('\n').filter((l) => l.includes(piece)).join('\n')}`);
  }
});

test('LOG_LEVEL=silent logs nothing in either format', async () => {
  assert.equal(await loggerOptions({ logLevel: 'silent' }, sink(true).stream), false);
  assert.equal(await loggerOptions({ logLevel: 'silent' }, sink(false).stream), false);
});

test('mindprint serve: readable lines on a pseudo-terminal, JSON lines on a pipe', async () => {
  const env = { LOG_LEVEL: 'info', DATABASE_URL: '', HOST: '127.0.0.1', PORT: '0', NO_COLOR: '1' };

  const piped = await mkdtemp(path.join(os.tmpdir(), 'mp-logs-'));
  const server = spawnServe({ ...env, MINDPRINT_DATA_DIR: piped });
  try {
    await server.waitFor(/"msg":"Mindprint is serving"/);
    const line = server.stdout().split('\n').find((l) => l.includes('Mindprint is serving'))!;
    assert.equal(JSON.parse(line).database, 'pglite');
  } finally {
    await server.stop();
    await rm(piped, { recursive: true, force: true });
  }

  // `script` gives the command a pseudo-terminal as stdout and copies what it prints to ours.
  const tty = await mkdtemp(path.join(os.tmpdir(), 'mp-logs-'));
  const command = [process.execPath, BIN, 'serve'].map((a) => `'${a}'`).join(' ');
  const proc = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...env, MINDPRINT_DATA_DIR: tty }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (err += d));
  // Registered now: if `script` ends by itself (no pseudo-terminal, serve failed), 'exit' has been
  // emitted before the finally below, and waiting for it there would never end.
  const exited = new Promise((r) => proc.once('exit', r));
  const seen = () => `exit code ${proc.exitCode}, signal ${proc.signalCode}\nstdout:\n${out}\nstderr:\n${err}`;
  try {
    const deadline = Date.now() + 90_000;
    while (!(/Mindprint is serving/.test(out) && /^ {4}database: /m.test(out)) && proc.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(out, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Mindprint is serving\r?$/m, seen());
    assert.match(out, /^ {4}database: "pglite"\r?$/m, seen());
    assert.ok(!out.split(/\r?\n/).some((l) => l.startsWith('{')), `no JSON line on a terminal:\n${seen()}`);
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
    await rm(tty, { recursive: true, force: true });
  }
});
