import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { createThrowawayDatabase } from '../support/pg.ts';
import { onPostgres } from '../support/server.ts';

describe('database', () => {
  test('processes starting together on a fresh PostgreSQL database all migrate it', { skip: !onPostgres() && 'PostgreSQL only (TEST_DATABASE_URL)' }, async () => {
    const fresh = await createThrowawayDatabase(process.env.TEST_DATABASE_URL!);
    const databases = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: fresh.url, dataDir: '/nonexistent' })));
    try {
      const results = await Promise.allSettled(databases.map((d) => migrate(d)));
      assert.deepEqual(results.map((r) => (r.status === 'rejected' ? String(r.reason?.cause ?? r.reason) : 'ok')), ['ok', 'ok', 'ok']);
      const { rows } = await databases[0]!.execute('select count(*)::int as n from drizzle.__drizzle_migrations');
      const journal = (await import('../../drizzle/meta/_journal.json', { with: { type: 'json' } })).default;
      assert.equal(rows[0].n, journal.entries.length, 'each migration recorded once');
    } finally {
      await Promise.all(databases.map((d) => d.close()));
      await fresh.drop();
    }
  });
});
