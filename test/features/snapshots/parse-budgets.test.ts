/**
 * Parse budgets end to end, on the embedded database and (TEST_DATABASE_URL) PostgreSQL: a
 * decompression bomb fails its snapshot at once, after one attempt, with a reason that names the
 * limit, and the service keeps working; one organization's burst of uploads does not hold another
 * organization's upload behind it (fair share of the snapshot queue); budget overruns are never retried.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { ParseBudgetError, ParserCrashedError, ParseTimeoutError } from '../../../src/lib/ingest/index.ts';
import { decideFailure } from '../../../src/features/snapshots/pipeline.ts';
import { snapshotsModule } from '../../../src/features/snapshots/module.ts';
import { fairPriority } from '../../../src/platform/jobs/queue.ts';
import { pdfBomb } from '../../support/hostile-files.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { rows, upload, waitForSnapshot } from './support.ts';

const MB = 1024 * 1024;
const vtt = (who: string) => `WEBVTT\n\n00:01.000 --> 00:03.000\n<v Host>Welcome, ${who}. What do you think?\n\n00:03.000 --> 00:06.000\n<v ${who}>I think we should build more homes and better schools.\n`;

test('a budget overrun fails at once on any attempt; a parser killed from outside is retried; a wall-clock timeout once', () => {
  for (const limit of ['memory', 'cpu', 'decoded', 'pages', 'streams', 'crash'] as const) {
    const err = new ParseBudgetError(limit, `over the ${limit} budget`);
    assert.deepEqual(decideFailure(err, { retryCount: 0 }, 'analysing the transcript', 'ref'), { action: 'fail', reason: `over the ${limit} budget`, internal: false });
  }
  assert.equal(decideFailure(new ParserCrashedError('killed'), { retryCount: 0 }, 'x', 'ref').action, 'retry');
  assert.equal(decideFailure(new ParseTimeoutError('slow'), { retryCount: 0 }, 'x', 'ref').action, 'retry');
  assert.equal(decideFailure(new ParseTimeoutError('slow'), { retryCount: 1 }, 'x', 'ref').action, 'fail');
  assert.equal(fairPriority(0), 0);
  assert.equal(fairPriority(3), -3);
});

/** waitForSnapshot, as the caller with `key`. */
async function waitAs(s: TestServer, key: string, mindId: string, snapshotId: string): Promise<any> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const res = await s.api('GET', `/minds/${mindId}/snapshots/${snapshotId}/status`, undefined, key);
    if (res.body.status === 'completed' || res.body.status === 'failed') return res.body;
    if (Date.now() > deadline) throw new Error(`snapshot still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('parse budgets over HTTP', () => {
  let s: TestServer;
  before(async () => {
    // Jobs queue up until the test starts the worker itself, with one parser process.
    s = await startTestServer({ MINDPRINT_PARSE_MAX_DECODED_MB: '20', MINDPRINT_PARSER_PROCESSES: '1', MINDPRINT_IN_PROCESS_WORKER: 'false' });
  });
  after(() => s?.close());

  test("one organization's bombs fail at once, naming the limit, and do not hold another organization's upload behind them", async () => {
    const other = await s.newKey('other-org', 'bob@other.example');
    const mindA = (await s.api('POST', '/minds', { name: 'Jane Doe' })).body.mind;
    const mindB = (await s.api('POST', '/minds', { name: 'John Roe' }, other.key)).body.mind;
    const bomb = pdfBomb(64 * MB);
    const bombs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await upload(s, mindA.id, { file: { bytes: bomb, name: `bomb-${i}.pdf` } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      bombs.push(res.body.mindAssessmentId);
    }
    const small = await upload(s, mindB.id, { file: { bytes: vtt('John Roe'), name: 'small.vtt' } }, other.key);
    assert.equal(small.status, 200, JSON.stringify(small.body));
    const smallId: string = small.body.mindAssessmentId;

    await snapshotsModule.startWorkers!(s.ctx);
    const results = await Promise.all(bombs.map((id) => waitForSnapshot(s, mindA.id, id, 120_000)));
    for (const r of results) {
      assert.equal(r.status, 'failed');
      assert.match(r.error, /^The PDF's compressed streams expand to more than 20 MB \(decompression limit, MINDPRINT_PARSE_MAX_DECODED_MB\)$/);
    }
    const done = await waitAs(s, other.key, mindB.id, smallId);
    assert.equal(done.status, 'completed');

    const started = await rows(s, sql`select id::text, attempts, started_at from snapshots where id in (${sql.join([...bombs, smallId].map((id) => sql`${id}::uuid`), sql`, `)}) order by started_at`);
    assert.ok(started.every((r) => r.attempts === 1), 'every snapshot took one attempt: a bomb is not retried');
    // One parser process, jobs taken one at a time: the first bomb, then the other organization's
    // upload (its first job outranks the burst's second and third), then the rest of the burst.
    assert.deepEqual(started.map((r) => r.id), [bombs[0], smallId, bombs[1], bombs[2]]);

    // The service keeps working: an ordinary upload of the bombed organization completes.
    const ok = await upload(s, mindA.id, { file: { bytes: vtt('Jane Doe'), name: 'ok.vtt' } });
    assert.equal((await waitForSnapshot(s, mindA.id, ok.body.mindAssessmentId, 120_000)).status, 'completed');
  });
});
