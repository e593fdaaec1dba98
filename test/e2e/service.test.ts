import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestServer } from '../support/server.ts';

describe('service', () => {
  test('MINDPRINT_BASE_PATH=/api/public/v1 serves the API there and not at /api/svc', async () => {
    const s = await startTestServer({ MINDPRINT_BASE_PATH: '/api/public/v1' });
    try {
      assert.equal(s.base, `${s.url}/api/public/v1`);
      const created = await s.api('POST', '/minds', { name: 'Base Path' });
      assert.equal(created.status, 200);
      assert.equal((await s.api('GET', `/minds/${created.body.mind.id}`)).status, 200);
      const old = await fetch(`${s.url}/api/svc/minds`, { headers: { authorization: `Bearer ${s.key}` } });
      assert.equal(old.status, 404);
      assert.equal((await old.json()).code, 'NOT_FOUND');
      const doc = await (await fetch(`${s.url}/api/public/v1/openapi.json`)).json();
      assert.deepEqual(doc.servers, [{ url: '/api/public/v1' }]);
      assert.ok(doc.paths['/minds/{mindId}']);
      assert.equal((await fetch(`${s.url}/api/svc/openapi.json`)).status, 404);
      // Probes stay at the root.
      assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
    } finally {
      await s.close();
    }
  });

  test('MINDPRINT_READ_CACHE=false serves every read from the database (no cache, no change feed)', async () => {
    const s = await startTestServer({ MINDPRINT_READ_CACHE: 'false' });
    try {
      assert.equal(s.ctx.mindCache, null);
      assert.equal(s.ctx.changeFeed, null);
      const mind = (await s.api('POST', '/minds', { name: 'Uncached' })).body.mind;
      assert.equal((await s.api('GET', `/minds/${mind.id}`)).body.mind.name, 'Uncached');
      const { sql } = await import('drizzle-orm');
      await s.ctx.db.execute(sql`update minds set name = 'Changed Behind Its Back' where id = ${mind.id}`);
      assert.equal((await s.api('GET', `/minds/${mind.id}`)).body.mind.name, 'Changed Behind Its Back');
      assert.deepEqual((await s.api('GET', '/minds')).body.minds.map((m: any) => m.name), ['Changed Behind Its Back']);
    } finally {
      await s.close();
    }
  });

  test('usage survives a restart: counts flushed at shutdown are there after the next start', async () => {
    let s = await startTestServer({}, { persistent: true, usageFlushMs: 60_000 });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await s.api('GET', '/minds')).status, 200);
      assert.equal((await s.api('GET', '/minds/00000000-0000-4000-8000-000000000000')).status, 404);
      const before = (await s.api('GET', '/usage')).body;
      assert.equal(before.totalCount, 4);
      s = await s.restart();
      const after = (await s.api('GET', '/usage')).body;
      // The 4 requests and the first GET /usage, all recorded by the stopped process.
      assert.equal(after.successCount, 4);
      assert.equal(after.errorCount, 1);
      const ops = Object.fromEntries(after.operations.map((o: any) => [o.operation, o.totalCount]));
      assert.deepEqual(ops, { 'GET /minds': 3, 'GET /minds/{mindId}': 1, 'GET /usage': 1 });
      assert.ok(after.maxLatency >= before.maxLatency);
      const keys = (await s.api('GET', '/api-keys')).body.apiKeys;
      assert.ok(keys[0].lastUsedAt, 'last use was written at shutdown');
    } finally {
      await s.close();
    }
  });
});
