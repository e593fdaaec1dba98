/** Which failures of a snapshot job are retried, and what the snapshot then says. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DrizzleQueryError } from 'drizzle-orm';
import { ParserCrashedError, ParserPoolClosedError, ParseTimeoutError, UnknownSpeakerError, UnreadableTranscriptError } from '../../../src/lib/ingest/index.ts';
import { jobLogger } from '../../../src/platform/jobs/log.ts';
import { transientKind } from '../../../src/platform/jobs/transient.ts';
import { decideFailure } from '../../../src/features/snapshots/pipeline.ts';
import { ArtifactNotFoundError } from '../../../src/platform/storage/index.ts';

const first = { retryCount: 0 };
const second = { retryCount: 1 };
const decide = (err: unknown, job = first) => decideFailure(err, job, 'analysing the transcript', 'abcd1234');
const errno = (code: string, message = code) => Object.assign(new Error(message), { code });

test('a bug (TypeError, constraint violation) fails at once with a human message and a reference', () => {
  const bug = decide(new TypeError("Cannot read properties of undefined (reading 'length')"));
  assert.deepEqual(bug, { action: 'fail', internal: true, reason: 'Processing failed: an internal error occurred while analysing the transcript (reference abcd1234)' });
  // A TypeError thrown in a parser thread arrives as a plain Error named TypeError.
  assert.equal(decide(Object.assign(new Error('x is not a function'), { name: 'TypeError' })).action, 'fail');
  const unique = new DrizzleQueryError('insert into turns …', [], Object.assign(new Error('duplicate key value'), { code: '23505' }));
  assert.equal(decide(unique).action, 'fail');
  assert.equal(decide(errno('ENOENT')).action, 'fail', 'a missing file does not come back');
});

test('unreadable input, an unknown speaker and a missing stored file fail at once with their reason', () => {
  assert.deepEqual(decide(new UnreadableTranscriptError('The PDF is damaged or truncated')), { action: 'fail', internal: false, reason: 'The PDF is damaged or truncated' });
  assert.equal(decide(new UnknownSpeakerError('Zed', ['Ann', 'Ben'])).reason, 'No speaker "Zed" in this transcript; the speakers are: Ann, Ben');
  assert.match(decide(new ArtifactNotFoundError('org/o/mind/m/a')).reason, /missing from storage; upload it again/);
});

test('storage, database and I/O trouble, a crashed parser and a shutdown are retried', () => {
  const transient = [
    errno('EIO', 'EIO: i/o error, read'),
    errno('ECONNRESET', 'read ECONNRESET'),
    Object.assign(new Error('We encountered an internal error'), { name: 'InternalError', $metadata: { httpStatusCode: 500 }, $fault: 'server' }),
    Object.assign(new Error('Please reduce your request rate'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } }),
    new DrizzleQueryError('select …', [], Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
    new DrizzleQueryError('select …', [], new Error('Connection terminated unexpectedly')),
    Object.assign(new Error('could not serialize access'), { code: '40001' }),
    new ParserCrashedError('The parser stopped unexpectedly (exit code 1)'),
    new ParserPoolClosedError('The parser pool was closed before the file was parsed'),
  ];
  for (const err of transient) assert.equal(decide(err).action, 'retry', String(err));
  assert.match(decide(errno('EIO')).reason, /^Processing failed after 1 attempts: reading or writing data failed \(I\/O or network error\) \(reference abcd1234\)$/);
  // An S3 client error (403 AccessDenied, 404) is not going to pass by itself.
  assert.equal(transientKind(Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 }, $fault: 'client' })), null);
});

test('a parse that ran out of time is retried once, then fails', () => {
  const timeout = new ParseTimeoutError('Parsing the file took longer than 60 s and was stopped');
  assert.equal(decide(timeout, first).action, 'retry');
  const again = decide(timeout, second);
  assert.equal(again.action, 'fail');
  assert.equal(again.reason, 'Parsing the file took longer than 60 s and was stopped (2 attempts); the file may be damaged or too complex to read');
});

test('the job log writes pino-shaped JSON lines at or above LOG_LEVEL', () => {
  const lines: string[] = [];
  const log = jobLogger({ logLevel: 'warn' }, (l) => lines.push(l));
  log.info({ snapshotId: 's' }, 'quiet');
  log.error({ reference: 'r1', err: new TypeError('boom') }, 'loud');
  assert.equal(lines.length, 1);
  const line = JSON.parse(lines[0]!);
  assert.equal(line.level, 50);
  assert.equal(line.msg, 'loud');
  assert.equal(line.reference, 'r1');
  assert.equal(line.err.type, 'TypeError');
  assert.match(line.err.stack, /boom/);
});
