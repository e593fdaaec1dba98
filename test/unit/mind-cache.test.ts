import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MindCache } from '../../src/minds/cache.ts';
import type { Mind } from '../../src/minds/schemas.ts';

const mind = (id: string, org: string, name = 'A'): Mind => ({
  id, name, slug: 'a', email: null, imageUrl: null, socialMedia: null, scope: 'private', isSelf: false, organizationId: org,
  createdAt: null, updatedAt: null, tags: [], snapshotCount: 0, psychometricCount: 0, keyTopicCount: 0, findingCount: 0,
});

test('a hit until the organization is invalidated; other organizations are unaffected', async () => {
  const cache = new MindCache();
  let loads = 0;
  const load = async () => (loads++, mind('m1', 'o1'));
  await cache.read('o1', 'm1', load);
  await cache.read('o1', 'm1', load);
  assert.equal(loads, 1);
  cache.invalidate('o2');
  await cache.read('o1', 'm1', load);
  assert.equal(loads, 1);
  cache.invalidate('o1');
  await cache.read('o1', 'm1', load);
  assert.equal(loads, 2);
});

test('a write during the load makes the loaded entry a miss', async () => {
  const cache = new MindCache();
  let loads = 0;
  await cache.read('o1', 'm1', async () => {
    loads++;
    cache.invalidate('o1'); // a write lands while the query runs
    return mind('m1', 'o1', 'old');
  });
  const fresh = await cache.read('o1', 'm1', async () => (loads++, mind('m1', 'o1', 'new')));
  assert.equal(loads, 2);
  assert.equal(fresh.name, 'new');
});

test('an entry is never served to another organization', async () => {
  const cache = new MindCache();
  cache.set(mind('m1', 'o1'), cache.stamp('o1'));
  assert.equal(cache.get('o2', 'm1'), null);
  assert.ok(cache.get('o1', 'm1'));
});

test('entries expire after the TTL even without a known change', async () => {
  const cache = new MindCache({ ttlMs: 1_000 });
  cache.set(mind('m1', 'o1'), cache.stamp('o1'));
  assert.ok(cache.get('o1', 'm1', Date.now() + 900));
  assert.equal(cache.get('o1', 'm1', Date.now() + 1_100), null);
});

test('while bypassed every read loads, and a load that straddles an outage is not kept', async () => {
  const cache = new MindCache({ bypassed: true });
  let loads = 0;
  const load = async () => (loads++, mind('m1', 'o1'));
  await cache.read('o1', 'm1', load);
  await cache.read('o1', 'm1', load);
  assert.equal(loads, 2, 'bypassed: nothing is served or stored');
  cache.bypass(false);
  await cache.read('o1', 'm1', load);
  await cache.read('o1', 'm1', load);
  assert.equal(loads, 3);
  // The feed goes down and comes back while a load runs: its result may predate missed changes.
  cache.invalidate('o1');
  await cache.read('o1', 'm1', async () => {
    loads++;
    cache.bypass(true);
    cache.bypass(false);
    return mind('m1', 'o1', 'maybe stale');
  });
  const fresh = await cache.read('o1', 'm1', async () => (loads++, mind('m1', 'o1', 'fresh')));
  assert.equal(fresh.name, 'fresh');
  assert.equal(loads, 5);
});
