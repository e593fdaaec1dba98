import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { migrate, MIGRATIONS_DIR, openDatabase, type Database } from '../../src/db/client.ts';
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

  test('upgrading a database with minds from the first migration recomputes their search text', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mp-upgrade-'));
    const pgDb = onPostgres() ? await createThrowawayDatabase(process.env.TEST_DATABASE_URL!) : null;
    const database = await openDatabase({ databaseUrl: pgDb?.url ?? null, dataDir: dir });
    try {
      await migrateOnlyFirst(database, dir);
      await database.execute(`insert into organizations (id, name) values ('00000000-0000-4000-8000-000000000001', 'old')`);
      await database.execute(`insert into minds (id, organization_id, name, slug, social_media, search_text) values
        ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', 'Ada Lovelace', 'ada-lovelace', '{"x":"@ada"}', 'ada lovelace ada-lovelace @ada')`);
      await database.execute(`insert into tags (id, organization_id, name) values ('00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000001', 'Math')`);
      await database.execute(`insert into mind_tags (mind_id, tag_id) values ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003')`);
      await migrate(database);
      const { rows } = await database.execute('select search_text from minds');
      assert.equal(rows[0].search_text, '\x1fada lovelace\x1fada-lovelace\x1fmath\x1f@ada\x1f');
    } finally {
      await database.close();
      await pgDb?.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** Applies only drizzle/0000_init.sql, as a database created before the later migrations would have. */
async function migrateOnlyFirst(database: Database, dir: string): Promise<void> {
  const folder = path.join(dir, 'migrations-0000');
  await mkdir(path.join(folder, 'meta'), { recursive: true });
  const journal = JSON.parse(await readFile(path.join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8'));
  journal.entries = journal.entries.slice(0, 1);
  await writeFile(path.join(folder, 'meta/_journal.json'), JSON.stringify(journal));
  await cp(path.join(MIGRATIONS_DIR, `${journal.entries[0].tag}.sql`), path.join(folder, `${journal.entries[0].tag}.sql`));
  const { migrate: run } = database.kind === 'pglite' ? await import('drizzle-orm/pglite/migrator') : await import('drizzle-orm/node-postgres/migrator');
  await run(database.db as any, { migrationsFolder: folder });
}
