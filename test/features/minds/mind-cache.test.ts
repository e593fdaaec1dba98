import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MindCache } from '../../../src/features/minds/cache.ts';

const json = (name: string) => JSON.stringify({ mind: { name } });

test('a hit until the organization is invalidated; other organizations are unaffected', async () => {
  const cache = new MindCache();
  let loads = 0;
  const load = async () => (loads++, json('A'));
  await cache.read('o1', 'mind:m1', load);
  await cache.read('o1', 'mind:m1', load);
  assert.equal(loads, 1);
  cache.invalidate('o2');
  await cache.read('o1', 'mind:m1', load);
  assert.equal(loads, 1);
  cache.invalidate('o1');
  await cache.read('o1', 'mind:m1', load);
  assert.equal(loads, 2);
});

test('a write during the load makes the loaded entry a miss', async () => {
  const cache = new MindCache();
  let loads = 0;
  await cache.read('o1', 'mind:m1', async () => {
    loads++;
    cache.invalidate('o1'); // a write lands while the query runs
    return json('old');
  });
  const fresh = await cache.read('o1', 'mind:m1', async () => (loads++, json('new')));
  assert.equal(loads, 2);
  assert.equal(fresh, json('new'));
});

test('an entry is never served to another organization', async () => {
  const cache = new MindCache();
  cache.set('o1', 'mind:m1', json('A'), cache.stamp('o1'));
  assert.equal(cache.get('o2', 'mind:m1'), null);
  assert.equal(cache.get('o1', 'mind:m1'), json('A'));
});

test('entries expire after the TTL even without a known change', async () => {
  const cache = new MindCache({ ttlMs: 1_000 });
  cache.set('o1', 'mind:m1', json('A'), cache.stamp('o1'));
  assert.ok(cache.get('o1', 'mind:m1', Date.now() + 900));
  assert.equal(cache.get('o1', 'mind:m1', Date.now() + 1_100), null);
});

test('while bypassed every read loads, and a load that straddles an outage is not kept', async () => {
  const cache = new MindCache({ bypassed: true });
  let loads = 0;
  const load = async () => (loads++, json('A'));
  await cache.read('o1', 'mind:m1', load);
  await cache.read('o1', 'mind:m1', load);
  assert.equal(loads, 2, 'bypassed: nothing is served or stored');
  cache.bypass(false);
  await cache.read('o1', 'mind:m1', load);
  await cache.read('o1', 'mind:m1', load);
  assert.equal(loads, 3);
  // The feed goes down and comes back while a load runs: its result may predate missed changes.
  cache.invalidate('o1');
  await cache.read('o1', 'mind:m1', async () => {
    loads++;
    cache.bypass(true);
    cache.bypass(false);
    return json('maybe stale');
  });
  const fresh = await cache.read('o1', 'mind:m1', async () => (loads++, json('fresh')));
  assert.equal(fresh, json('fresh'));
  assert.equal(loads, 5);
});

test('the cached JSON stays within its size bound', async () => {
  const cache = new MindCache({ maxChars: 1_000 });
  for (let i = 0; i < 20; i++) cache.set('o1', `list:${i}`, 'x'.repeat(200), cache.stamp('o1'));
  const kept = Array.from({ length: 20 }, (_, i) => cache.get('o1', `list:${i}`)).filter(Boolean).length;
  assert.ok(kept >= 1 && kept <= 5, `kept ${kept}`);
  cache.set('o1', 'huge', 'x'.repeat(600), cache.stamp('o1'));
  assert.equal(cache.get('o1', 'huge'), null, 'an entry larger than a quarter of the bound is not kept');
});
