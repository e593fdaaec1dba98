import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../support/server.ts';

describe('usage', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({}, { usageFlushMs: 60_000 });
  });
  after(() => s.close());

  test('counts the calling key’s requests by outcome and operation, with latency percentiles', async () => {
    const other = await s.newKey('default', 'other@localhost');
    await s.api('GET', '/minds');
    await s.api('GET', '/minds');
    await s.api('GET', '/minds/00000000-0000-4000-8000-000000000000');
    await s.api('GET', '/minds', undefined, other.key);
    const res = await s.api('GET', '/usage');
    assert.equal(res.status, 200);
    const u = res.body;
    assert.equal(u.successCount, 2);
    assert.equal(u.errorCount, 1);
    assert.equal(u.totalCount, 3);
    assert.ok(u.minLatency > 0 && u.minLatency <= u.medianLatency && u.medianLatency <= u.p99Latency && u.p99Latency <= u.maxLatency);
    const ops = Object.fromEntries(u.operations.map((o: any) => [o.operation, o.totalCount]));
    assert.deepEqual(ops, { 'GET /minds': 2, 'GET /minds/{mindId}': 1 });
    // Per day (the dashboard's chart): only days with requests.
    assert.deepEqual(u.days, [{ day: new Date().toISOString().slice(0, 10), successCount: 2, errorCount: 1, totalCount: 3 }]);
  });

  test('survives a flush: stored and in-memory counts add up', async () => {
    await s.ctx.usage.flush();
    await s.api('GET', '/tags');
    const u = (await s.api('GET', '/usage')).body;
    // 3 earlier + 1 /usage call + 1 /tags
    assert.equal(u.totalCount, 5);
    const { sql } = await import('drizzle-orm');
    const stored = (await s.ctx.db.execute(sql`select sum(success_count + error_count)::int as n from usage_daily`)) as any;
    assert.ok(stored.rows[0].n >= 4);
    const lastUsed = (await s.ctx.db.execute(sql`select count(*)::int as n from api_keys where last_used_at is not null`)) as any;
    assert.ok(lastUsed.rows[0].n >= 2, 'last use is written by the flush');
  });

  test('date range: bad dates are 400, from after to is 400, an empty range is zero', async () => {
    assert.equal((await s.api('GET', '/usage?from=2026-13-01')).status, 400);
    assert.equal((await s.api('GET', '/usage?from=yesterday')).status, 400);
    assert.equal((await s.api('GET', '/usage?from=2026-02-01&to=2026-01-01')).status, 400);
    const empty = (await s.api('GET', '/usage?from=2000-01-01&to=2000-01-31')).body;
    assert.equal(empty.totalCount, 0);
    assert.equal(empty.p99Latency, 0);
    assert.deepEqual(empty.days, []);
  });
});

describe('OpenAPI', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('the document is served without a key and describes every route with its schemas', async () => {
    const res = await fetch(`${s.base}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = await res.json();
    assert.equal(doc.openapi, '3.1.0');
    for (const [path, method] of [
      ['/minds', 'get'], ['/minds', 'post'], ['/minds/search', 'get'], ['/minds/{mindId}', 'get'], ['/minds/{mindId}', 'put'],
      ['/minds/{mindId}', 'delete'], ['/tags', 'get'], ['/tags/{tagId}', 'put'], ['/tags/{tagId}', 'delete'],
      ['/minds/{mindId}/tags', 'put'], ['/api-keys', 'get'], ['/api-keys', 'post'], ['/api-keys/{keyId}', 'delete'], ['/usage', 'get'],
    ]) {
      assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path} documented`);
    }
    const mindRef = doc.paths['/minds/{mindId}'].get.responses['200'].content['application/json'].schema.properties.mind;
    assert.deepEqual(mindRef, { $ref: '#/components/schemas/Mind' });
    assert.ok(doc.components.schemas.Mind.properties.snapshotCount);
    assert.ok(doc.components.securitySchemes.bearerAuth);
  });

  test('the interactive reference is served at /docs', async () => {
    const res = await fetch(`${s.url}/docs/`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /swagger/i);
  });
});
