/**
 * Temp files a killed process leaves behind (issue 10: SIGKILL during an upload left
 * data/tmp/upload-<uuid> for ever) are swept at start and by the periodic maintenance; files of
 * uploads in progress are left alone.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { onPostgres, startTestServer } from '../../support/server.ts';

/** Plants an interrupted upload's spool file and a store write's temp file; `ageMs` back-dates them. */
async function plant(dataDir: string, ageMs: number): Promise<{ upload: string; storeTemp: string }> {
  const upload = path.join(dataDir, 'tmp', `upload-${randomUUID()}`);
  const storeDir = path.join(dataDir, 'artifacts', 'org', randomUUID(), 'mind', randomUUID());
  const storeTemp = path.join(storeDir, `.${randomUUID()}.0123456789ab.tmp`);
  await mkdir(path.dirname(upload), { recursive: true });
  await mkdir(storeDir, { recursive: true });
  await writeFile(upload, Buffer.alloc(64 * 1024, 'a'));
  await writeFile(storeTemp, Buffer.alloc(1024, 'b'));
  const when = new Date(Date.now() - ageMs);
  for (const f of [upload, storeTemp]) await utimes(f, when, when);
  return { upload, storeTemp };
}

const exists = async (file: string) => (await readdir(path.dirname(file)).catch(() => [] as string[])).includes(path.basename(file));

describe('temp files of interrupted uploads', () => {
  test('are swept at start (on the embedded database all of them: the process holds the data dir alone)', async () => {
    let s = await startTestServer({}, { persistent: true });
    try {
      const stale = await plant(s.config.dataDir, 60 * 60 * 1000);
      const fresh = await plant(s.config.dataDir, 0);
      s = await s.restart();
      assert.equal(await exists(stale.upload), false);
      assert.equal(await exists(stale.storeTemp), false);
      // Beside other processes (PostgreSQL), a recent file may be another process's upload in progress.
      assert.equal(await exists(fresh.upload), onPostgres());
      assert.equal(await exists(fresh.storeTemp), onPostgres());
      // The service works as before.
      assert.equal((await s.api('POST', '/minds', { name: 'After The Sweep' })).status, 200);
    } finally {
      await s.close();
    }
  });

  test('are swept by the periodic maintenance once stale, and uploads in progress are left alone', async () => {
    const s = await startTestServer({ MINDPRINT_JOB_MAINTENANCE_SECONDS: '1' });
    try {
      const stale = await plant(s.config.dataDir, 60 * 60 * 1000);
      const fresh = await plant(s.config.dataDir, 60 * 1000);
      // (The store's tree is walked at start and hourly: only the spool dir is swept at every round.)
      while (await exists(stale.upload)) await sleep(200);
      // A few more maintenance rounds: the fresh files (a minute old: uploads in progress) stay.
      await sleep(2_500);
      assert.equal(await exists(fresh.upload), true);
    } finally {
      await s.close();
    }
  });
});
