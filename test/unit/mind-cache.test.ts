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
  cache.set(mind('m1', 'o1'), 0);
  assert.equal(cache.get('o2', 'm1'), null);
  assert.ok(cache.get('o1', 'm1'));
});
