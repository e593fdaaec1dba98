import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { migrate, MIGRATIONS_DIR, openDatabase, type Database } from '../../../src/platform/db/client.ts';
import { createThrowawayDatabase } from '../../support/pg.ts';
import { onPostgres } from '../../support/server.ts';

describe('database', () => {
  test('processes starting together on a fresh PostgreSQL database all migrate it', { skip: !onPostgres() && 'PostgreSQL only (TEST_DATABASE_URL)' }, async () => {
    const fresh = await createThrowawayDatabase(process.env.TEST_DATABASE_URL!);
    const databases = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: fresh.url, dataDir: '/nonexistent' })));
    try {
      const results = await Promise.allSettled(databases.map((d) => migrate(d)));
      assert.deepEqual(results.map((r) => (r.status === 'rejected' ? String(r.reason?.cause ?? r.reason) : 'ok')), ['ok', 'ok', 'ok']);
      const { rows } = await databases[0]!.execute('select count(*)::int as n from drizzle.__drizzle_migrations');
      const journal = (await import('../../../drizzle/meta/_journal.json', { with: { type: 'json' } })).default;
      assert.equal(rows[0].n, journal.entries.length, 'each migration recorded once');
    } finally {
      await Promise.all(databases.map((d) => d.close()));
      await fresh.drop();
    }
  });

  test('upgrading a database with minds from the first migration recomputes their search text', async () => {
    await onOldDatabase(1, async (database) => {
      await database.execute(`insert into organizations (id, name) values ('00000000-0000-4000-8000-000000000001', 'old')`);
      await database.execute(`insert into minds (id, organization_id, name, slug, social_media, search_text) values
        ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', 'Ada Lovelace', 'ada-lovelace', '{"x":"@ada"}', 'ada lovelace ada-lovelace @ada')`);
      await database.execute(`insert into tags (id, organization_id, name) values ('00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000001', 'Math')`);
      await database.execute(`insert into mind_tags (mind_id, tag_id) values ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003')`);
      await migrate(database);
      const { rows } = await database.execute('select search_text from minds');
      assert.equal(rows[0].search_text, '\x1fada lovelace\x1fada-lovelace\x1fmath\x1f@ada\x1f');
    });
  });

  test('upgrading a database with long turns keeps their full-text vectors in the row, unchanged', async () => {
    await onOldDatabase(3, async (database) => {
      const { org, mind } = await oldMind(database);
      await database.execute(`insert into snapshots (id, organization_id, mind_id, artifact_id, mindset_date, status)
        values ('00000000-0000-4000-8000-000000000004', '${org}', '${mind}', '00000000-0000-4000-8000-000000000003', now(), 'completed')`);
      // A long turn (its vector went out of line) and a short one (it never did).
      const long = Array.from({ length: 400 }, (_, i) => `analytical engine number ${i} weaves algebraic patterns`).join(' ');
      await database.execute(`insert into turns (organization_id, mind_id, snapshot_id, seq, speaker, text, is_mind, context) values
        ('${org}', '${mind}', '00000000-0000-4000-8000-000000000004', 0, 'Ada', $1, true, 'What does the engine do?'),
        ('${org}', '${mind}', '00000000-0000-4000-8000-000000000004', 1, 'Ada', 'Short answer.', true, null)`, [long]);
      const vectors = async () => (await database.execute('select seq, tsv::text as tsv from turns order by seq')).rows;
      const versions = async () => (await database.execute('select xmin::text as v from turns order by seq')).rows.map((r) => r.v);
      const before = await vectors();
      const [longWas, shortWas] = await versions();
      await migrate(database);
      const [longIs, shortIs] = await versions();
      assert.notEqual(longIs, longWas, 'the long turn is rewritten');
      assert.equal(shortIs, shortWas, 'the short one is left alone');
      const { rows: storage } = await database.execute(`select attstorage from pg_attribute where attrelid = 'turns'::regclass and attname = 'tsv'`);
      assert.equal(storage[0].attstorage, 'm', 'tsv is STORAGE MAIN');
      assert.deepEqual(await vectors(), before, 'the same vectors');
      const { rows: found } = await database.execute(`select seq from turns where tsv @@ to_tsquery('english', 'algebraic & engine') order by seq`);
      assert.deepEqual(found.map((r) => r.seq), [0]);
    });
  });

  test('upgrading a database tells apart the snapshots of files that named no speakers', async () => {
    await onOldDatabase(5, async (database) => {
      const { org, mind } = await oldMind(database);
      const snapshot = (n: number, status: string, speakers: unknown) =>
        database.execute(`insert into snapshots (id, organization_id, mind_id, artifact_id, mindset_date, status, speakers)
          values ('00000000-0000-4000-8000-00000000001${n}', '${org}', '${mind}', '00000000-0000-4000-8000-000000000003', now(), '${status}', $1)`, [speakers === null ? null : JSON.stringify(speakers)]);
      const one = (label: string) => ({ label, turns: 3, words: 90, isMind: true });
      await snapshot(0, 'completed', [one('Speaker')]); // captions: the one voice ingest calls "Speaker"
      await snapshot(1, 'completed', [one('Ada'), { ...one('Charles'), isMind: false }]);
      await snapshot(2, 'completed', [one('Ada')]); // a monologue, labelled
      await snapshot(3, 'pending', null);
      await migrate(database);
      const { rows } = await database.execute('select id, speakers_labelled from snapshots order by id');
      assert.deepEqual(rows.map((r) => r.speakers_labelled), [false, true, true, null]);
    });
  });
});

/** An organization, a mind and an artifact (…0003) in an old database, by fixed ids. */
async function oldMind(database: Database): Promise<{ org: string; mind: string }> {
  const org = '00000000-0000-4000-8000-000000000001';
  const mind = '00000000-0000-4000-8000-000000000002';
  await database.execute(`insert into organizations (id, name) values ('${org}', 'old')`);
  await database.execute(`insert into minds (id, organization_id, name, slug) values ('${mind}', '${org}', 'Ada Lovelace', 'ada-lovelace')`);
  await database.execute(`insert into artifacts (id, organization_id, mind_id, storage_key, file_name, content_type, status)
    values ('00000000-0000-4000-8000-000000000003', '${org}', '${mind}', 'k', 'a.txt', 'text/plain', 'uploaded')`);
  return { org, mind };
}

/** Runs `fn` on a new database (PGlite, or PostgreSQL with TEST_DATABASE_URL) that has only the first `count` migrations. */
async function onOldDatabase(count: number, fn: (database: Database) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mp-upgrade-'));
  const pgDb = onPostgres() ? await createThrowawayDatabase(process.env.TEST_DATABASE_URL!) : null;
  const database = await openDatabase({ databaseUrl: pgDb?.url ?? null, dataDir: dir });
  try {
    await migrateOnlyFirst(database, dir, count);
    await fn(database);
  } finally {
    await database.close();
    await pgDb?.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Applies only the first `count` migrations, as a database created before the later ones would have. */
async function migrateOnlyFirst(database: Database, dir: string, count: number): Promise<void> {
  const folder = path.join(dir, `migrations-${count}`);
  await mkdir(path.join(folder, 'meta'), { recursive: true });
  const journal = JSON.parse(await readFile(path.join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8'));
  journal.entries = journal.entries.slice(0, count);
  await writeFile(path.join(folder, 'meta/_journal.json'), JSON.stringify(journal));
  for (const entry of journal.entries) await cp(path.join(MIGRATIONS_DIR, `${entry.tag}.sql`), path.join(folder, `${entry.tag}.sql`));
  const { migrate: run } = database.kind === 'pglite' ? await import('drizzle-orm/pglite/migrator') : await import('drizzle-orm/node-postgres/migrator');
  await run(database.db as any, { migrationsFolder: folder });
}
