/**
 * The digest's turns go from the parser process to the snapshot job through a file (turns-file.ts)
 * rather than one IPC message (issue 21, item 8): every turn arrives, identical, in order; the file
 * is gone after the snapshot completes and after it fails; one a killed service left is swept.
 * On PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { DigestedTurn } from '../../../src/features/snapshots/digest.ts';
import { processSnapshot } from '../../../src/features/snapshots/pipeline.ts';
import { closeParserPool, digestTranscriptFile } from '../../../src/features/snapshots/pool.ts';
import { TurnsFile, writeTurns } from '../../../src/features/snapshots/turns-file.ts';
import type { JobContext } from '../../../src/platform/jobs/queue.ts';
import { jobLogger } from '../../../src/platform/jobs/log.ts';
import { sweepTempFiles } from '../../../src/platform/storage/local-store.ts';
import { largeTranscriptText } from '../../support/hostile-files.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { rows, upload } from './support.ts';

const lastAttempt: JobContext = { id: 'job-turns-file', retryCount: 0, retryLimit: 0, isLastAttempt: true };
const quiet = jobLogger({ logLevel: 'silent' } as never);

/** Turns whose text has everything a line-per-turn file could trip on. */
function awkwardTurns(n: number): DigestedTurn[] {
  const texts = ['line one\nline two\r\nthree\rfour', 'quotes " and \\ backslash', 'separators \u2028 and \u2029', 'lone surrogate \ud800 here', 'emoji 🧠 and ümlaut', '', '{"json":"inside"}\n'];
  return Array.from({ length: n }, (_, seq) => ({
    id: randomUUID(),
    seq,
    speaker: seq % 2 ? 'Jane Doe' : 'Interviewer\nTwo',
    text: `${texts[seq % texts.length]} #${seq}`,
    startMs: seq % 3 ? seq * 1000 : null,
    endMs: seq % 3 ? seq * 1000 + 999.5 : null,
    isMind: seq % 2 === 1,
    context: seq % 2 ? texts[(seq + 1) % texts.length]! : null,
    replyWords: seq % 5 ? null : seq,
  }));
}

describe('the turns file', () => {
  test('gives back every turn, identical and in order, in batches of the size asked for; removed after', async () => {
    const dir = path.join(os.tmpdir(), `mp-turns-${randomUUID()}`);
    const turns = awkwardTurns(1_234);
    const file = new TurnsFile(dir);
    try {
      await writeTurns(await file.prepare(), turns);
      const sizes: number[] = [];
      const read: DigestedTurn[] = [];
      for await (const batch of file.batches(500)) {
        sizes.push(batch.length);
        read.push(...batch);
      }
      assert.deepEqual(sizes, [500, 500, 234]);
      assert.deepEqual(read, turns);
      await file.remove();
      assert.deepEqual(await readdir(dir), []);
      await file.remove(); // twice is harmless
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a file removed once its reader opened it is still read whole (a sweeper cannot take it from a job)', { skip: process.platform === 'win32' }, async () => {
    const dir = path.join(os.tmpdir(), `mp-turns-${randomUUID()}`);
    const turns = awkwardTurns(50);
    const file = new TurnsFile(dir);
    try {
      await writeTurns(await file.prepare(), turns);
      await file.open();
      await unlink(file.path);
      const read: DigestedTurn[] = [];
      for await (const batch of file.batches(20)) read.push(...batch);
      assert.deepEqual(read, turns);
      await file.remove();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('one a killed process left is swept with the spooled uploads', async () => {
    const dataDir = path.join(os.tmpdir(), `mp-turns-${randomUUID()}`);
    const left = path.join(dataDir, 'tmp', `digest-${randomUUID()}.ndjson`);
    const other = path.join(dataDir, 'tmp', 'digest-notes.txt');
    try {
      await mkdir(path.dirname(left), { recursive: true });
      await writeFile(left, '{}\n');
      await writeFile(other, 'not ours');
      const swept = await sweepTempFiles(dataDir, { olderThanMs: 0, walkStore: false });
      assert.equal(swept.digests, 1);
      assert.deepEqual(await readdir(path.dirname(left)), ['digest-notes.txt']);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a snapshot of many turns through the turns file', () => {
  let s: TestServer;
  let mind: any;
  let transcript: string;
  const workDir = path.join(os.tmpdir(), `mp-turns-${randomUUID()}`);

  before(async () => {
    // No worker in this process: the tests run the job handler themselves.
    s = await startTestServer({ MINDPRINT_IN_PROCESS_WORKER: 'false' });
    mind = (await s.api('POST', '/minds', { name: 'Jane Doe' })).body.mind;
    await mkdir(workDir, { recursive: true });
    transcript = path.join(workDir, 'interview.txt');
    await largeTranscriptText(transcript, 1_000_000); // several thousand turns: many insert batches
  });
  after(async () => {
    await closeParserPool();
    await s.close();
    await rm(workDir, { recursive: true, force: true });
  });

  const digestFiles = async () => (await readdir(path.join(s.config.dataDir, 'tmp')).catch(() => [] as string[])).filter((f) => f.startsWith('digest-'));

  async function pendingSnapshot(): Promise<string> {
    const res = await upload(s, mind.id, { file: { bytes: await readFile(transcript), name: 'interview.txt', type: 'text/plain' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.mindAssessmentId;
  }

  test('stores every turn exactly as the parser digested it, and leaves no turns file', async () => {
    const id = await pendingSnapshot();
    await processSnapshot(s.ctx, { snapshotId: id }, lastAttempt, quiet);
    const [snapshot] = await rows(s, sql`select status, error, finding_count from snapshots where id = ${id}`);
    assert.equal(snapshot.status, 'completed', snapshot.error);

    // The same file digested the old way, whole in one message: the same turns but for their ids.
    const expected = (await digestTranscriptFile(transcript, 'txt', { mindName: 'Jane Doe', requestedSpeaker: null })).turns;
    assert.ok(expected.length > 1_500, `${expected.length} turns`);
    const stored = await rows(
      s,
      sql`select id, seq, speaker, text, start_ms as "startMs", end_ms as "endMs", is_mind as "isMind", context, reply_words as "replyWords" from turns where snapshot_id = ${id} order by seq`,
    );
    assert.equal(stored.length, expected.length);
    assert.deepEqual(
      stored.map(({ id: _id, ...t }) => t),
      expected.map(({ id: _id, ...t }) => t),
    );
    assert.equal(new Set(stored.map((t) => t.id)).size, stored.length, 'every turn has its own id');
    // The analysis (a small message) points at turns that were stored from the file.
    const [{ dangling }] = await rows(s, sql`select count(*)::int as dangling from findings f where f.snapshot_id = ${id} and f.turn_id is not null and not exists (select 1 from turns t where t.id = f.turn_id)`);
    assert.equal(dangling, 0);
    assert.deepEqual(await digestFiles(), []);
  });

  test('a failure while storing stores no turn and leaves no turns file', async () => {
    const id = await pendingSnapshot();
    // The third batch of turns fails: the file was written and partly read when the store gives up.
    const exec = async (...statements: string[]) => {
      for (const statement of statements) await s.ctx.db.execute(sql.raw(statement));
    };
    await exec(
      'create sequence test_turn_batches',
      `create function test_fail_third_batch() returns trigger language plpgsql as $$
       begin
         if nextval('test_turn_batches') >= 3 then raise exception 'the disk is on fire'; end if;
         return null;
       end $$`,
      'create trigger test_fail_third_batch before insert on turns for each statement execute function test_fail_third_batch()',
    );
    try {
      await processSnapshot(s.ctx, { snapshotId: id }, lastAttempt, quiet).catch(() => undefined);
    } finally {
      await exec('drop trigger test_fail_third_batch on turns', 'drop function test_fail_third_batch()', 'drop sequence test_turn_batches');
    }
    const [snapshot] = await rows(s, sql`select status, error from snapshots where id = ${id}`);
    assert.equal(snapshot.status, 'failed');
    assert.match(snapshot.error, /saving the analysis/, 'it failed while storing, past the parse');
    const [{ n }] = await rows(s, sql`select count(*)::int as n from turns where snapshot_id = ${id}`);
    assert.equal(n, 0, 'the transaction stored nothing');
    assert.deepEqual(await digestFiles(), []);

    // A re-run (the job retried by hand) stores it whole.
    await s.ctx.db.execute(sql`update snapshots set status = 'pending', error = null where id = ${id}`);
    await processSnapshot(s.ctx, { snapshotId: id }, lastAttempt, quiet);
    const [again] = await rows(s, sql`select status, (select count(*)::int from turns where snapshot_id = ${id}) as turns from snapshots where id = ${id}`);
    assert.equal(again.status, 'completed');
    assert.ok(again.turns > 1_500);
    assert.deepEqual(await digestFiles(), []);
  });

  test('a digest that fails in the parser leaves no turns file', async () => {
    const id = await pendingSnapshot();
    // A speaker the file does not have: the parser process rejects the digest.
    await s.ctx.db.execute(sql`update snapshots set requested_speaker = 'Nobody Here' where id = ${id}`);
    await processSnapshot(s.ctx, { snapshotId: id }, lastAttempt, quiet).catch(() => undefined);
    const [snapshot] = await rows(s, sql`select status, error from snapshots where id = ${id}`);
    assert.equal(snapshot.status, 'failed');
    assert.match(snapshot.error, /Nobody Here/);
    assert.deepEqual(await digestFiles(), []);
  });
});
