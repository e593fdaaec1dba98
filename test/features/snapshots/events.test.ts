/**
 * The domain events of the lifecycles (docs/architecture.md, "State changes in one place"), on a
 * real server (PGlite, or PostgreSQL with TEST_DATABASE_URL): each transition that changed a row
 * emits its event once, with the ids a subscriber (webhooks) needs, and a subscriber that throws
 * rolls the transition back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../../src/platform/db/client.ts';
import { EVENT_TYPES, type DomainEvents, type EventType } from '../../../src/platform/events/index.ts';
import { QUEUE, queueDefinitions } from '../../../src/platform/jobs/queues.ts';
import { jobLogger } from '../../../src/platform/jobs/log.ts';
import { LOST_REASON, sweepLostSnapshots } from '../../../src/features/snapshots/sweeper.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { PANEL, upload, waitForSnapshot } from './support.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('domain events', () => {
  let s: TestServer;
  const seen: { type: EventType; data: any }[] = [];
  let failNext: EventType | null = null;
  const of = (type: EventType) => seen.filter((e) => e.type === type).map((e) => e.data);
  async function until(what: () => boolean, ms = 30_000) {
    const deadline = Date.now() + ms;
    while (!what() && Date.now() < deadline) await sleep(50);
    assert.ok(what(), 'timed out');
  }

  before(async () => {
    s = await startTestServer();
    // Subscribes after the modules, as a webhooks module would.
    s.ctx.events.subscribe(
      Object.fromEntries(
        EVENT_TYPES.map((type) => [
          type,
          async (_tx: unknown, data: DomainEvents[typeof type]) => {
            if (failNext === type) {
              failNext = null;
              throw new Error(`subscriber of ${type} failed`);
            }
            seen.push({ type, data });
          },
        ]),
      ),
    );
  });
  after(() => s?.close());

  test('snapshot, semantic index, simulation and mind: one event per transition, with their ids', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Barack H Obama' })).body.mind;
    const ids = { organizationId: mind.organizationId, mindId: mind.id };
    const res = await upload(s, mind.id, { file: { bytes: PANEL, name: 'panel.txt' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const snapshotId = res.body.mindAssessmentId;
    assert.equal((await waitForSnapshot(s, mind.id, snapshotId)).status, 'completed');
    assert.deepEqual(of('snapshot.completed'), [{ ...ids, snapshotId }]);
    await until(() => of('snapshot.indexed').length === 1);
    assert.deepEqual(of('snapshot.indexed'), [{ ...ids, snapshotId, embedder: s.ctx.memory.embedder.id }]);

    const put = await s.api('PUT', `/minds/${mind.id}/snapshots/${snapshotId}/speaker`, { speaker: 'Romney' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(of('snapshot.reprocessing'), [{ ...ids, snapshotId, speaker: 'W Mitt Romney' }]);
    assert.equal((await waitForSnapshot(s, mind.id, snapshotId)).status, 'completed');
    assert.equal(of('snapshot.completed').length, 2, 'completed again, once');

    const sim = await s.api('POST', '/simulate', { scenario: { message: 'What would you do about jobs?' }, mindId: mind.id });
    assert.equal(sim.status, 200, JSON.stringify(sim.body));
    assert.deepEqual(of('simulation.completed'), [{ ...ids, simulationId: sim.body.simulationId, messageId: sim.body.messageId }]);

    // Lost: the snapshot open again, its job finished (as a worker killed on its last attempt leaves it).
    // pg-boss settles a finished job just after its handler returns: until then the job may still run,
    // and the sweeper rightly leaves the snapshot alone.
    const live = async () => rowsOf(await s.ctx.db.execute(sql`select 1 from pgboss.job where name = ${QUEUE.processSnapshot} and state in ('created', 'retry', 'active')`)).length;
    for (let i = 0; i < 200 && (await live()) > 0; i++) await sleep(50);
    await s.ctx.db.execute(sql`update snapshots set status = 'processing' where id = ${snapshotId}`);
    const queue = queueDefinitions(s.ctx.config).find((q) => q.name === QUEUE.processSnapshot)!;
    const silent = jobLogger({ logLevel: 'silent' });
    assert.deepEqual(await sweepLostSnapshots(s.ctx, queue, silent), [snapshotId]);
    assert.deepEqual(await sweepLostSnapshots(s.ctx, queue, silent), [], 'failed once');
    assert.deepEqual(of('snapshot.failed'), [{ ...ids, snapshotId, error: LOST_REASON }]);

    assert.equal((await s.api('DELETE', `/minds/${mind.id}`)).status, 200);
    assert.deepEqual(of('mind.deleted'), [ids]);
  });

  test('a subscriber that throws rolls the transition back', async () => {
    const mind = (await s.api('POST', '/minds', { name: 'Jim Lehrer' })).body.mind;
    failNext = 'mind.deleted';
    assert.equal((await s.api('DELETE', `/minds/${mind.id}`)).status, 500);
    assert.equal((await s.api('GET', `/minds/${mind.id}`)).status, 200, 'the mind is still there');
    assert.equal((await s.api('DELETE', `/minds/${mind.id}`)).status, 200);
  });
});
