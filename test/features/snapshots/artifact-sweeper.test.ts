/**
 * The artifact sweeper removes what abandoned uploads leave behind — (a) signed URLs that expired
 * unused, (b) uploads a crash left `uploading`, (c) stored files no row owns — on the local store
 * and on a real S3 server, and never touches a fresh artifact, a referenced one or a fresh file.
 * Ages are made by moving rows' timestamps and files' mtimes back, or the sweep's clock forward.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { utimes } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { jobLogger } from '../../../src/platform/jobs/log.ts';
import { sweepArtifacts } from '../../../src/features/snapshots/sweeper.ts';
import type { LocalArtifactStore } from '../../../src/platform/storage/index.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { startTestS3Server, type TestS3Server } from '../../platform/storage/s3-server.ts';
import { rows, upload } from './support.ts';

const VTT = 'WEBVTT\n\n00:01.000 --> 00:02.000\n<v Grace Hopper>A ship in port is safe, but that is not what ships are built for.\n';
const HOUR = 3600_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The sweeper's log lines, parsed. */
function capturingLog() {
  const lines: any[] = [];
  return { log: jobLogger({ logLevel: 'info' }, (l) => void lines.push(JSON.parse(l))), lines };
}

for (const kind of ['local', 's3'] as const) {
  describe(`artifact sweeper (${kind} store)`, () => {
    let s3: TestS3Server | null = null;
    let s: TestServer;
    let mind: any;
    let prefix: string;
    before(async () => {
      s3 = kind === 's3' ? await startTestS3Server() : null;
      // A store prefix on S3, so listing is shown to give keys back without it.
      const storage = s3 ? { ...s3.env, MINDPRINT_STORAGE_URL: `s3://${s3.bucket}/tenant/artifacts` } : {};
      // Maintenance far away and no worker: only the test's own sweeps run.
      s = await startTestServer({ ...storage, MINDPRINT_IN_PROCESS_WORKER: 'false', MINDPRINT_JOB_MAINTENANCE_SECONDS: '3600' });
      mind = (await s.api('POST', '/minds', { name: 'Grace Hopper' })).body.mind;
      prefix = `org/${mind.organizationId}/mind/${mind.id}/`;
    });
    after(async () => {
      await s?.close();
      await s3?.close();
    });

    const artifact = async (id: string) => (await rows(s, sql`select status, uploaded_at, storage_key from artifacts where id = ${id}`))[0];
    const stored = async (key: string) => (await s.ctx.store.stat(key)) !== null;
    const store = (key: string, bytes = VTT) => s.ctx.store.put(key, Readable.from([Buffer.from(bytes)]), { contentType: 'text/vtt', maxBytes: 1 << 20 });
    const signedUrl = async () => (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=t.vtt`)).body;
    /** Moves a row's creation (and upload start) back in time. */
    const age = (id: string, createdHoursAgo: number, uploadingSince?: { hoursAgo: number }) =>
      s.ctx.db.execute(sql`update artifacts set created_at = now() - make_interval(secs => ${createdHoursAgo * 3600}),
        status = ${uploadingSince ? 'uploading' : 'awaiting_upload'},
        uploaded_at = ${uploadingSince ? new Date(Date.now() - uploadingSince.hoursAgo * HOUR).toISOString() : null}::timestamptz
        where id = ${id}`);
    /** A local file's mtime moved back; on S3 the sweep's clock moves forward instead (see `later`). */
    const backdate = async (key: string) => {
      if (kind === 'local') await utimes((s.ctx.store as LocalArtifactStore).pathOf(key), new Date(Date.now() - 2 * HOUR), new Date(Date.now() - 2 * HOUR));
    };
    const later = () => (kind === 's3' ? new Date(Date.now() + 2 * HOUR) : new Date());

    test('(a) an awaiting_upload artifact whose URL expired goes with its bytes; a fresh one and a referenced one stay', async () => {
      const expired = await signedUrl();
      const fresh = await signedUrl();
      const expiredKey = (await artifact(expired.artifactId)).storage_key;
      // On S3 the client did PUT, but never used the artifact; locally, bytes a crash left.
      if (kind === 's3') assert.equal((await fetch(expired.signedUrl, { method: 'PUT', body: VTT, headers: { 'content-type': 'text/vtt' } })).status, 200);
      else await store(expiredKey);
      await age(expired.artifactId, 2);
      // A snapshot's artifact can never be awaiting its upload; if one were, the reference still wins.
      const used = (await upload(s, mind.id, { file: { bytes: VTT, name: 'used.vtt' } })).body.artifactId;
      await s.ctx.db.execute(sql`update artifacts set status = 'awaiting_upload', created_at = now() - interval '1 day' where id = ${used}`);

      const { log, lines } = capturingLog();
      const sweep = await sweepArtifacts(s.ctx, log, { listStore: false });
      assert.equal(sweep.expired, 1);
      assert.equal(await artifact(expired.artifactId), undefined);
      assert.equal(await stored(expiredKey), false, 'its bytes are gone');
      assert.equal((await artifact(fresh.artifactId)).status, 'awaiting_upload');
      assert.ok(await artifact(used), 'a referenced artifact is kept');
      const line = lines.find((l) => l.msg.startsWith('artifact sweeper'));
      assert.equal(line?.level, 30, 'counts logged at info');
      assert.equal(line.expired, 1);
      await s.ctx.db.execute(sql`update artifacts set status = 'uploaded' where id = ${used}`);
    });

    test('(b) a crashed upload is removed once its URL expired, reopened while it works; a recent one is left', async () => {
      const dead = await signedUrl();
      const deadRow = await artifact(dead.artifactId);
      const finalKey = `${prefix}${dead.artifactId}`;
      await store(deadRow.storage_key);
      await store(finalKey, `${VTT}partial copy`);
      await age(dead.artifactId, 3, { hoursAgo: 2 });
      const retry = await signedUrl();
      await age(retry.artifactId, 0.75, { hoursAgo: 0.7 });
      const live = await signedUrl();
      await age(live.artifactId, 0.2, { hoursAgo: 0.1 });

      const sweep = await sweepArtifacts(s.ctx, capturingLog().log, { listStore: false });
      assert.deepEqual([sweep.crashed, sweep.reopened], [1, 1]);
      assert.equal(await artifact(dead.artifactId), undefined);
      assert.equal(await stored(deadRow.storage_key), false);
      assert.equal(await stored(finalKey), false, 'the partial copy is gone too');
      const reopened = await artifact(retry.artifactId);
      assert.deepEqual([reopened.status, reopened.uploaded_at], ['awaiting_upload', null]);
      assert.equal((await artifact(live.artifactId)).status, 'uploading', 'an upload within the bound may still be running');

      // The reopened artifact's URL works again: the client's retry goes through.
      const res = await fetch(retry.signedUrl, { method: 'PUT', body: VTT, headers: { 'content-type': 'text/vtt' } });
      assert.equal(res.status, 200, await res.text());
      const snap = await upload(s, mind.id, { artifactId: retry.artifactId });
      assert.equal(snap.status, 200, JSON.stringify(snap.body));
    });

    test('(c) stored files no row owns go once old; fresh files, owned files and foreign keys stay', async () => {
      // What a crash between storing a direct upload and inserting its rows leaves.
      const orphan = `${prefix}${randomUUID()}`;
      await store(orphan);
      const direct = (await upload(s, mind.id, { file: { bytes: VTT, name: 'kept.vtt' } })).body;
      const ownedKey = (await artifact(direct.artifactId)).storage_key;
      const foreign = 'org/not-a-layout-this-service-writes';
      await store(foreign);
      const freshOrphan = `${prefix}${randomUUID()}`;

      assert.equal((await sweepArtifacts(s.ctx, capturingLog().log)).orphans, 0, 'nothing is an hour old yet');
      assert.equal(await stored(orphan), true);

      for (const key of [orphan, ownedKey, foreign]) await backdate(key);
      await store(freshOrphan);
      // On S3 a later clock ages every object, so the fresh orphan is only checked locally.
      const sweep = await sweepArtifacts(s.ctx, capturingLog().log, { now: later() });
      assert.equal(await stored(orphan), false, 'the orphan is gone');
      assert.equal(await stored(ownedKey), true, 'an uploaded artifact’s file stays');
      assert.equal(await stored(foreign), true, 'keys in another shape are not the sweeper’s');
      if (kind === 'local') {
        assert.equal(sweep.orphans, 1);
        assert.equal(await stored(freshOrphan), true, 'a file stored a moment ago may be about to get its rows');
      }
    });

    if (kind === 's3') {
      test('(c) a replayed presigned PUT after the artifact was used is swept; the artifact is not', async () => {
        const signed = await signedUrl();
        const put = () => fetch(signed.signedUrl, { method: 'PUT', body: VTT, headers: { 'content-type': 'text/vtt' } });
        assert.equal((await put()).status, 200);
        assert.equal((await upload(s, mind.id, { artifactId: signed.artifactId })).status, 200);
        assert.equal((await put()).status, 200, 'S3 cannot revoke the URL');
        const incoming = `${prefix}incoming/${signed.artifactId}`;
        assert.equal(await stored(incoming), true);
        await sweepArtifacts(s.ctx, capturingLog().log, { now: later() });
        assert.equal(await stored(incoming), false);
        assert.equal(await stored(`${prefix}${signed.artifactId}`), true);
      });
    }

    test('sweeps running at once split the work: every row is removed once, none fails', async () => {
      await s.ctx.db.execute(sql`insert into artifacts (organization_id, mind_id, storage_key, file_name, content_type, status, created_at)
        select ${mind.organizationId}, ${mind.id}, 'org/x/' || g, 'x.vtt', 'text/vtt', 'awaiting_upload', now() - interval '3 hours'
        from generate_series(1, 40) g`);
      const sweeps = await Promise.all([1, 2, 3].map(() => sweepArtifacts(s.ctx, capturingLog().log, { listStore: false })));
      assert.equal(sweeps.reduce((n, w) => n + w.expired, 0), 40);
      assert.equal((await rows(s, sql`select count(*)::int as n from artifacts where storage_key like 'org/x/%'`))[0].n, 0);
    });
  });
}

describe('artifact sweeper in the periodic maintenance', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ MINDPRINT_IN_PROCESS_WORKER: 'false', MINDPRINT_JOB_MAINTENANCE_SECONDS: '1' });
  });
  after(() => s.close());

  test('an expired signed-URL artifact disappears without anyone calling the sweeper', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Grace Hopper' })).body.mind;
    const { artifactId } = (await s.api('GET', `/minds/${mind.id}/signed-url?contentType=text/vtt&fileName=t.vtt`)).body;
    await s.ctx.db.execute(sql`update artifacts set created_at = now() - interval '2 hours' where id = ${artifactId}`);
    const gone = async () => (await rows(s, sql`select 1 from artifacts where id = ${artifactId}`)).length === 0;
    for (let i = 0; i < 100 && !(await gone()); i++) await sleep(100);
    assert.ok(await gone());
  });
});
