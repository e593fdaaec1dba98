/**
 * Two service instances (replicas) on one PostgreSQL database, each with its own read caches:
 * what one writes, or what anyone writes in SQL, the other serves at once — through the change
 * feed, not the caches' TTLs (set to a minute here, so only a notification can explain it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { onPostgres, startTestServer, type TestServer } from '../support/server.ts';

/** Polls `probe` until it returns true; false after `ms`. */
async function eventually(probe: () => Promise<boolean> | boolean, ms = 2_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('replicas on one PostgreSQL database', { skip: !onPostgres() && 'PostgreSQL only (TEST_DATABASE_URL)' }, () => {
  let a: TestServer;
  let b: TestServer;
  let sqlClient: pg.Client;
  before(async () => {
    a = await startTestServer();
    b = await startTestServer({}, { replicaOf: a, serveOptions: { mindCacheTtlMs: 60_000, authCacheMs: 60_000, changeFeed: { minBackoffMs: 1_000 } } });
    sqlClient = new pg.Client({ connectionString: a.config.databaseUrl! });
    await sqlClient.connect();
  });
  after(async () => {
    await sqlClient.end();
    await b.close();
    await a.close();
  });

  /** Reads the mind through B until `check` holds; asserts it does within the bound. */
  async function bSees(mindId: string, what: string, check: (res: { status: number; body: any }) => boolean) {
    let last: unknown;
    const ok = await eventually(async () => {
      const res = await b.api('GET', `/minds/${mindId}`);
      last = res.body;
      return check(res);
    });
    assert.ok(ok, `B did not see ${what}; last answer: ${JSON.stringify(last)}`);
  }

  async function cachedInB(mind: { id: string; organizationId: string }) {
    // The notification of the write that created or changed the mind can reach B after B's read
    // filled its cache, and rightly empties it: read again until the entry stays.
    const cached = async () => {
      assert.equal((await b.api('GET', `/minds/${mind.id}`)).status, 200);
      return Boolean(b.ctx.mindCache!.get(mind.organizationId, `mind:${mind.id}`));
    };
    assert.ok(await eventually(cached), 'B serves the mind from its cache');
  }

  test('writes through A (rename, tags, tag rename, delete) reach B promptly', async () => {
    const mind = (await a.api('POST', '/minds', { name: 'Replicated', tags: 'one' })).body.mind;
    await cachedInB(mind);
    await a.api('PUT', `/minds/${mind.id}`, { name: 'Renamed On A' });
    await bSees(mind.id, 'the rename', (r) => r.body.mind?.name === 'Renamed On A');
    await cachedInB(mind);
    await a.api('PUT', `/minds/${mind.id}/tags`, { tagNames: ['one', 'two'] });
    await bSees(mind.id, 'the new tag', (r) => r.body.mind?.tags.map((t: any) => t.name).join() === 'one,two');
    await cachedInB(mind);
    const two = (await a.api('GET', '/tags')).body.tags.find((t: any) => t.name === 'two');
    await a.api('PUT', `/tags/${two.id}`, { name: 'deux' });
    await bSees(mind.id, 'the tag rename', (r) => r.body.mind?.tags.some((t: any) => t.name === 'deux'));
    await cachedInB(mind);
    // Lists are cached too: a mind created through A appears in B's list.
    const listB = async () => (await b.api('GET', '/minds')).body.minds.map((m: any) => m.name);
    assert.ok((await listB()).includes('Renamed On A'));
    await a.api('POST', '/minds', { name: 'Second On A' });
    assert.ok(await eventually(async () => (await listB()).includes('Second On A')), 'B lists the new mind');
    await a.api('DELETE', `/minds/${mind.id}`);
    await bSees(mind.id, 'the delete', (r) => r.status === 404);
    assert.ok(await eventually(async () => !(await listB()).includes('Renamed On A')), 'B no longer lists the deleted mind');
  });

  test('a write made in SQL by another process (a worker, an admin) reaches B too, snapshot counts included', async () => {
    const mind = (await a.api('POST', '/minds', { name: 'Plain SQL' })).body.mind;
    await cachedInB(mind);
    await sqlClient.query('update minds set name = $1 where id = $2', ['Changed In SQL', mind.id]);
    await bSees(mind.id, 'the SQL update', (r) => r.body.mind?.name === 'Changed In SQL');
    await cachedInB(mind);
    const artifact = await sqlClient.query(
      `insert into artifacts (organization_id, mind_id, storage_key, file_name, content_type, status) values ($1, $2, 'k', 'f.vtt', 'text/vtt', 'uploaded') returning id`,
      [mind.organizationId, mind.id],
    );
    await sqlClient.query(`insert into snapshots (organization_id, mind_id, artifact_id, mindset_date, status) values ($1, $2, $3, now(), 'processing')`, [
      mind.organizationId,
      mind.id,
      artifact.rows[0].id,
    ]);
    await bSees(mind.id, 'the new snapshot', (r) => r.body.mind?.snapshotCount === 1);
    await cachedInB(mind);
    await sqlClient.query(`update snapshots set status = 'completed', psychometric_count = 7, finding_count = 3 where mind_id = $1`, [mind.id]);
    await bSees(mind.id, 'the analysis counts', (r) => r.body.mind?.psychometricCount === 7 && r.body.mind?.findingCount === 3);
  });

  test('a key revoked through A is refused by B at once; a key created elsewhere is accepted by B at once', async () => {
    const created = (await a.api('POST', '/api-keys', { name: 'replica' })).body;
    assert.equal((await b.api('GET', '/minds', undefined, created.key)).status, 200, 'B has it cached as valid');
    await a.api('DELETE', `/api-keys/${created.apiKey.id}`);
    assert.ok(await eventually(async () => (await b.api('GET', '/minds', undefined, created.key)).status === 401), 'B refuses the revoked key');
    // B looked this secret up before it existed (cached as unknown); then it is created elsewhere.
    const { generateKeySecret } = await import('../../src/platform/auth/keys.ts');
    const secret = generateKeySecret();
    assert.equal((await b.api('GET', '/minds', undefined, secret)).status, 401);
    const { issueKey } = await import('../../src/platform/auth/keys.ts');
    await issueKey(a.ctx.db, { organizationId: created.apiKey.organizationId, userId: created.apiKey.userId, secret });
    assert.ok(await eventually(async () => (await b.api('GET', '/minds', undefined, secret)).status === 200), 'B accepts the new key');
  });

  test('when B loses its listener it bypasses its cache (still fresh), then listens again and caches again', async () => {
    const mind = (await a.api('POST', '/minds', { name: 'Listener Test' })).body.mind;
    await cachedInB(mind);
    const feed = b.ctx.changeFeed!;
    const oldPid = feed.backendPid;
    assert.ok(oldPid);
    await sqlClient.query('select pg_terminate_backend($1)', [oldPid]);
    assert.ok(await eventually(() => !b.ctx.mindCache!.active), 'B noticed the lost listener and bypasses its cache');
    // Nobody listens for B now: this change is notified to no one, yet B must not serve the old name.
    await sqlClient.query('update minds set name = $1 where id = $2', ['Changed While Deaf', mind.id]);
    const res = await b.api('GET', `/minds/${mind.id}`);
    assert.equal(res.body.mind.name, 'Changed While Deaf');
    assert.equal(b.ctx.mindCache!.get(mind.organizationId, `mind:${mind.id}`), null, 'nothing is cached while bypassed');
    assert.ok(await eventually(() => feed.isListening && b.ctx.mindCache!.active, 10_000), 'B listens again');
    assert.notEqual(feed.backendPid, oldPid);
    await cachedInB(mind);
    await sqlClient.query('update minds set name = $1 where id = $2', ['Heard Again', mind.id]);
    await bSees(mind.id, 'a change after re-listening', (r) => r.body.mind?.name === 'Heard Again');
  });
});
