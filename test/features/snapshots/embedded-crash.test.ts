/**
 * Crash recovery on the embedded default: `mindprint serve` on a PGlite data dir is killed with
 * SIGKILL while a large transcript is being processed (and while other requests are writing),
 * then started again on the same data dir. The snapshot must complete on its own, with its turns
 * stored once, and everything committed before the crash must still be there and readable.
 * (workers.test.ts covers killed workers on PostgreSQL.)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { openDatabase } from '../../../src/platform/db/client.ts';
import { spawnServe, type ServeProcess } from '../../support/cli.ts';
import { onPostgres } from '../../support/server.ts';
import { debateExcerpts, fixtureFile } from './support.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The URL the server logs once it listens (LOG_LEVEL=info, JSON on stdout). */
const SERVING = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"Mindprint is serving"/;

let dataDir: string | null = null;
const running: ServeProcess[] = [];
after(async () => {
  for (const p of running) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test('embedded database: serve killed with SIGKILL mid-snapshot restarts on the same data dir, completes the snapshot, and keeps every committed write', { timeout: 120_000, skip: onPostgres() && 'the embedded database only (PostgreSQL: workers.test.ts)' }, async (t) => {
  const started = Date.now();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'mp-crash-'));
  const key = `mp_${randomBytes(32).toString('base64url')}`;
  const env = {
    MINDPRINT_DATA_DIR: dataDir,
    MINDPRINT_BOOTSTRAP_KEY: key,
    LOG_LEVEL: 'info',
    // The killed attempt's job is found expired after 15 s (longer than a whole run takes on a
    // loaded machine, so the retry itself is never cut short), looked for every second.
    MINDPRINT_JOB_EXPIRE_SECONDS: '15',
    MINDPRINT_JOB_MAINTENANCE_SECONDS: '1',
  };
  async function start(): Promise<{ server: ServeProcess; base: string }> {
    const server = spawnServe(env);
    running.push(server);
    const [, base] = await server.waitFor(SERVING, 30_000);
    return { server, base: base! };
  }
  const call = async (base: string, method: string, p: string, body?: unknown, k = key) => {
    const headers: Record<string, string> = { authorization: `Bearer ${k}` };
    if (body !== undefined && !(body instanceof FormData)) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${p}`, { method, headers, body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const uploadText = (base: string, mindId: string, text: string, name: string) => {
    const fd = new FormData();
    fd.append('file', new Blob([text], { type: 'text/plain' }), name);
    return call(base, 'POST', `/minds/${mindId}/snapshots`, fd);
  };
  const status = async (base: string, mindId: string, id: string) => (await call(base, 'GET', `/minds/${mindId}/snapshots/${id}/status`)).body;

  // ── First life: data that must survive, then a long job ──────────────────────────────────
  let { server, base } = await start();
  const witness = (await call(base, 'POST', '/minds', { name: 'Barack H Obama', tags: 'politics' })).body.mind;
  const debate = await uploadText(base, witness.id, (await fixtureFile('transcripts/us-presidential-debates/2012-10-03.said.txt')).toString('utf8'), 'debate.txt');
  assert.equal(debate.status, 200, JSON.stringify(debate.body));
  for (let st = 'pending'; st !== 'completed'; await sleep(100)) {
    st = (await status(base, witness.id, debate.body.mindAssessmentId)).status;
    assert.notEqual(st, 'failed');
  }
  const witnessBefore = (await call(base, 'GET', `/minds/${witness.id}/snapshots/${debate.body.mindAssessmentId}?includeTranscript=true`)).body;
  const profileBefore = (await call(base, 'GET', `/minds/${witness.id}/profile`)).body.profile;
  const extraKey = (await call(base, 'POST', '/api-keys', { name: 'survives the crash' })).body;
  assert.ok(extraKey.key, JSON.stringify(extraKey));

  // ~1.6 MB of real conversation (the 2012 debate excerpts, nine times over): several seconds of parsing, analysis and writing.
  const big = Array(9).fill(await debateExcerpts()).join('\n');
  const romney = (await call(base, 'POST', '/minds', { name: 'W Mitt Romney' })).body.mind;
  const res = await uploadText(base, romney.id, big, 'debates.txt');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const snapshotId = res.body.mindAssessmentId as string;

  // Poll until the job runs, then kill the process in the middle of the one transaction that
  // stores its ~4,000 turns (several MB of WAL and pages): on Linux, once the process has written
  // over 1 MB (/proc/<pid>/io) while no other write got through; elsewhere 300 ms into the job.
  // Other requests keep writing up to then.
  for (let i = 0; ; i++) {
    const st = (await status(base, romney.id, snapshotId)).status;
    if (st === 'processing') break;
    assert.equal(st, 'pending', 'still waiting to be processed');
    assert.ok(i < 1500, 'processing started within 30 s');
    await sleep(20);
  }
  const written = async (): Promise<number | null> => {
    const io = await readFile(`/proc/${server.proc.pid}/io`, 'utf8').catch(() => null);
    return io === null ? null : Number(/^wchar: (\d+)$/m.exec(io)?.[1]);
  };
  const acknowledged: string[] = [];
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      try {
        const r = await call(base, 'POST', '/minds', { name: `Written before the crash ${i}` });
        if (r.status === 200) acknowledged.push(r.body.mind.id);
      } catch {
        return; // the connection died with the process
      }
    }
  })();
  let killedWhile = 'processing (300 ms in)';
  const baseline = await written();
  if (baseline === null) await sleep(300);
  else {
    // The writer stalls once the store transaction holds the embedded database's one connection;
    // then the process keeps writing (WAL and pages) while no request is answered.
    let last = acknowledged.length;
    let quietSince = Date.now();
    let quietBase = baseline;
    for (;;) {
      await sleep(10);
      const now = (await written())!;
      if (acknowledged.length !== last) [last, quietSince, quietBase] = [acknowledged.length, Date.now(), now];
      const grown = now - quietBase;
      if (Date.now() - quietSince > 100 && grown > 1024 * 1024) {
        killedWhile = `storing its turns (${(grown / 1024 / 1024).toFixed(1)} MB written since the other writes stalled)`;
        break;
      }
      assert.ok(Date.now() - started < 60_000, 'the store phase began');
    }
  }
  server.proc.kill('SIGKILL');
  await server.exited;
  writing = false;
  await writer;
  assert.equal(server.proc.signalCode, 'SIGKILL');
  assert.ok(acknowledged.length > 0, 'some writes were acknowledged before the crash');

  // ── Second life on the same data dir ─────────────────────────────────────────────────────
  ({ server, base } = await start());
  assert.doesNotMatch(server.stdout() + server.stderr(), /in use by a running Mindprint|PANIC|database system was not properly shut down.*FATAL/);
  assert.equal((await fetch(`${new URL(base).origin}/readyz`)).status, 200, 'the database answers');

  // Restarted before the lost attempt expired: the job has not run again yet, and what the killed
  // transaction had written is gone (rolled back by recovery), not half there.
  const early = (await call(base, 'GET', `/minds/${romney.id}/snapshots/${snapshotId}?includeTranscript=true`)).body;
  assert.equal(early.status, 'processing', `killed while ${killedWhile}`);
  assert.deepEqual([early.transcript, early.psychometricCount, early.completedAt], [[], 0, null], `killed while ${killedWhile}: no partial rows survive`);
  t.diagnostic(`killed while ${killedWhile}; ${acknowledged.length} writes acknowledged before`);
  let final: any;
  for (;;) {
    final = await status(base, romney.id, snapshotId);
    if (final.status === 'completed' || final.status === 'failed') break;
    assert.ok(Date.now() - started < 100_000, `snapshot still ${final.status}`);
    await sleep(200);
  }
  assert.equal(final.status, 'completed', `the interrupted snapshot was processed again: ${final.error}`);
  assert.equal(final.error, null);
  const details = (await call(base, 'GET', `/minds/${romney.id}/snapshots/${snapshotId}?includeTranscript=true`)).body;
  assert.ok(details.transcript.length > 1000, `its turns are there (${details.transcript.length})`);
  assert.deepEqual(details.transcript.map((t: any) => t.seq), details.transcript.map((_: unknown, i: number) => i), 'each turn once, in order: nothing duplicated by the interrupted attempt');
  assert.ok(details.transcript.some((t: any) => t.isMind));
  assert.ok(details.psychometricCount > 0 && details.keyTopicCount > 0);
  assert.ok((await call(base, 'GET', `/minds/${romney.id}/snapshots/${snapshotId}/findings`)).body.findings.length > 0);

  // Everything committed before the crash is readable, unchanged.
  const witnessAfter = (await call(base, 'GET', `/minds/${witness.id}/snapshots/${debate.body.mindAssessmentId}?includeTranscript=true`)).body;
  assert.deepEqual(witnessAfter, witnessBefore);
  assert.deepEqual((await call(base, 'GET', `/minds/${witness.id}/profile`)).body.profile, profileBefore);
  for (const id of acknowledged) assert.equal((await call(base, 'GET', `/minds/${id}`)).status, 200, `mind ${id} was acknowledged before the crash`);
  const search = (await call(base, 'GET', '/minds/search?query=obama')).body;
  assert.ok(JSON.stringify(search).includes(witness.id), `search finds the witness: ${JSON.stringify(search).slice(0, 300)}`);
  assert.equal((await call(base, 'GET', '/minds', undefined, extraKey.key)).status, 200, 'the key created before the crash works');

  // And the database takes new writes.
  const after = (await call(base, 'POST', '/minds', { name: 'After the crash' })).body.mind;
  assert.ok(after.id);
  const simulated = await call(base, 'POST', '/simulate', { mindId: witness.id, scenario: { message: 'What would you do about taxes for the middle class?' } });
  assert.equal(simulated.status, 200, JSON.stringify(simulated.body));
  assert.equal((await call(base, 'DELETE', `/minds/${acknowledged[0]}`)).status, 200);
  assert.equal(await server.stop(), 0, server.stderr());
  assert.deepEqual((await readdir(dataDir)).filter((f) => f.startsWith('mindprint.lock')), [], 'a clean stop releases the lock');

  // Straight from the data dir: the job ran twice (the killed attempt and the one that finished),
  // stored its turns once, and no job is left to run.
  const database = await openDatabase({ databaseUrl: null, dataDir });
  try {
    const q = async (text: string, values: unknown[] = []) => (await database.execute(text, values)).rows as any[];
    const [snap] = await q('select status, attempts, (select count(*)::int from turns where snapshot_id = $1) as turns, (select count(distinct seq)::int from turns where snapshot_id = $1) as seqs from snapshots where id = $1', [snapshotId]);
    assert.equal(snap.status, 'completed');
    assert.equal(snap.attempts, 2, `killed while ${killedWhile}, then processed once more`);
    assert.equal(snap.turns, details.transcript.length);
    assert.equal(snap.seqs, snap.turns);
    assert.deepEqual(await q(`select state from pgboss.job where data->>'snapshotId' = $1 and state in ('created', 'retry', 'active')`, [snapshotId]), []);
    const names = new Map((await q('select id, name from minds')).map((r) => [r.id, r.name]));
    for (const id of acknowledged.slice(1)) assert.ok(names.has(id), `acknowledged mind ${id}`);
    assert.ok(!names.has(acknowledged[0]), 'the mind deleted after the restart');
    assert.deepEqual([names.get(witness.id), names.get(romney.id), names.get(after.id)], ['Barack H Obama', 'W Mitt Romney', 'After the crash']);
  } finally {
    await database.close();
  }
  assert.ok(Date.now() - started < 90_000, `took ${Date.now() - started} ms`);
});
