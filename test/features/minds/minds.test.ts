import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertInvalid, onPostgres, startTestServer, type TestServer } from '../../support/server.ts';

const MIND_FIELDS = ['id', 'name', 'slug', 'email', 'imageUrl', 'socialMedia', 'scope', 'isSelf', 'organizationId', 'createdAt', 'updatedAt', 'tags', 'snapshotCount', 'psychometricCount', 'keyTopicCount', 'findingCount'].sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('minds', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('creating a mind returns exactly the spec fields and a default digital twin', async () => {
    const res = await s.api('POST', '/minds', { name: 'Ada Lovelace', email: 'ada@example.com', tags: ' math , Poetry,math', socialMedia: { x: '@ada' } });
    assert.equal(res.status, 200);
    const { mind, digitalTwin } = res.body;
    assert.deepEqual(Object.keys(mind).sort(), MIND_FIELDS);
    assert.equal(mind.name, 'Ada Lovelace');
    assert.equal(mind.slug, 'ada-lovelace');
    assert.equal(mind.scope, 'private');
    assert.equal(mind.isSelf, false);
    assert.equal(mind.imageUrl, null);
    assert.match(mind.createdAt, ISO);
    for (const k of ['snapshotCount', 'psychometricCount', 'keyTopicCount', 'findingCount']) assert.equal(mind[k], 0);
    assert.deepEqual(mind.tags.map((t: any) => t.name), ['math', 'Poetry']);
    assert.deepEqual(Object.keys(mind.tags[0]).sort(), ['createdAt', 'id', 'name', 'organizationId', 'updatedAt']);
    assert.equal(digitalTwin.name, 'Default Twin');
    assert.equal(digitalTwin.isDefault, true);
    assert.equal(digitalTwin.mindId, mind.id);
  });

  test('imageUrl is an http(s) URL or a data:image/ URL: javascript:, file: and other schemes are a 400', async () => {
    for (const imageUrl of ['javascript:alert(1)', 'JavaScript:alert(1)', 'file:///etc/passwd', 'ftp://example.com/a.png', 'data:text/html,<script>alert(1)</script>', 'https://', 'http:/example.com/a.png', 'vbscript:msgbox', '//example.com/a.png']) {
      await assertInvalid(s, 'POST', '/minds', { name: 'Eve', imageUrl }, /^body\.imageUrl must be an http\(s\):\/\/ URL or a data:image\/ URL|^body\.imageUrl must match format "uri"/);
    }
    const created = await s.api('POST', '/minds', { name: 'Eve', imageUrl: 'https://example.com/eve.png' });
    assert.equal(created.status, 200);
    const id = created.body.mind.id;
    await assertInvalid(s, 'PUT', `/minds/${id}`, { imageUrl: 'javascript:alert(document.cookie)' }, /^body\.imageUrl must be an http\(s\):\/\/ URL or a data:image\/ URL$/);
    for (const imageUrl of ['HTTP://example.com/eve.png', 'data:image/png;base64,iVBORw0KGgo=', null]) {
      const res = await s.api('PUT', `/minds/${id}`, { imageUrl });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.mind.imageUrl, imageUrl);
    }
  });

  test('tags may be an array, isSelf may be set, and slugs stay unique within the organization', async () => {
    const a = await s.api('POST', '/minds', { name: 'Zoë Brown', tags: ['x', 'X', 'y'], isSelf: true });
    const b = await s.api('POST', '/minds', { name: 'Zoe Brown' });
    assert.equal(a.body.mind.slug, 'zoe-brown');
    assert.equal(b.body.mind.slug, 'zoe-brown-2');
    assert.equal(a.body.mind.isSelf, true);
    assert.deepEqual(a.body.mind.tags.map((t: any) => t.name), ['x', 'y']);
  });

  test('concurrent creates and renames with one name all succeed with distinct slugs', async () => {
    const created = await Promise.all(Array.from({ length: 20 }, () => s.api('POST', '/minds', { name: 'Same Name', tags: ['t1', 't2'] })));
    assert.deepEqual(created.map((r) => r.status), Array(20).fill(200), JSON.stringify(created.find((r) => r.status !== 200)?.body));
    const slugs = created.map((r) => r.body.mind.slug);
    assert.equal(new Set(slugs).size, 20);
    assert.ok(slugs.includes('same-name') && slugs.includes('same-name-20'));
    // A mind whose own name ends in a number competes for the same slugs ("same-name-21").
    const others = await Promise.all([
      ...Array.from({ length: 5 }, () => s.api('POST', '/minds', { name: 'Same Name 21' })),
      ...Array.from({ length: 5 }, () => s.api('POST', '/minds', { name: 'Same Name' })),
    ]);
    assert.deepEqual(others.map((r) => r.status), Array(10).fill(200));
    const fresh = await Promise.all(Array.from({ length: 10 }, (_, i) => s.api('POST', '/minds', { name: `Renamed ${i}` })));
    const renamed = await Promise.all(fresh.map((r) => s.api('PUT', `/minds/${r.body.mind.id}`, { name: 'Same Name' })));
    assert.deepEqual(renamed.map((r) => r.status), Array(10).fill(200), JSON.stringify(renamed.find((r) => r.status !== 200)?.body));
    const all = (await s.api('GET', '/minds')).body.minds.filter((m: any) => m.slug.startsWith('same-name'));
    assert.equal(all.length, 40);
    assert.equal(new Set(all.map((m: any) => m.slug)).size, 40);
    for (const r of [...created, ...others, ...fresh]) assert.equal((await s.api('DELETE', `/minds/${r.body.mind.id}`)).status, 200);
  });

  test('names in any script get a slug of their own letters; search finds them', async () => {
    const made = [];
    for (const [name, slug] of [['Владимир Путин', 'владимир-путин'], ['毛泽东', '毛泽东'], ['Zoë Ünal', 'zoe-unal'], ['🙂', 'mind']]) {
      const res = await s.api('POST', '/minds', { name });
      assert.equal(res.status, 200);
      assert.equal(res.body.mind.slug, slug, name);
      made.push(res.body.mind);
    }
    assert.equal((await s.api('POST', '/minds', { name: 'Владимир  Путин!' })).body.mind.slug, 'владимир-путин-2');
    assert.deepEqual((await s.api('GET', `/minds/search?query=${encodeURIComponent('ПУТИН')}`)).body.minds.map((m: any) => m.name).sort(), ['Владимир  Путин!', 'Владимир Путин'].sort());
    for (const m of (await s.api('GET', '/minds')).body.minds) if (made.some((x) => x.id === m.id) || m.name === 'Владимир  Путин!') await s.api('DELETE', `/minds/${m.id}`);
  });

  test('list is newest first and filters by any of the tag names, case-insensitively', async () => {
    const all = await s.api('GET', '/minds');
    assert.equal(all.status, 200);
    const times = all.body.minds.map((m: any) => m.createdAt);
    assert.deepEqual([...times].sort().reverse(), times);
    const math = await s.api('GET', '/minds?tagNames=MATH,nothing');
    assert.deepEqual(math.body.minds.map((m: any) => m.name), ['Ada Lovelace']);
    const none = await s.api('GET', '/minds?tagNames=unknown');
    assert.deepEqual(none.body.minds, []);
  });

  test('get, update (partial) and delete a mind', async () => {
    const { body } = await s.api('POST', '/minds', { name: 'Grace Hopper', tags: 'navy' });
    const id = body.mind.id;
    const got = await s.api('GET', `/minds/${id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.mind.name, 'Grace Hopper');
    const upd = await s.api('PUT', `/minds/${id}`, { email: 'grace@example.com', tags: 'cobol,navy' });
    assert.equal(upd.status, 200);
    assert.equal(upd.body.success, true);
    assert.equal(upd.body.mind.email, 'grace@example.com');
    assert.equal(upd.body.mind.name, 'Grace Hopper');
    assert.deepEqual(upd.body.mind.tags.map((t: any) => t.name), ['cobol', 'navy']);
    const renamed = await s.api('PUT', `/minds/${id}`, { name: 'Rear Admiral Grace Hopper' });
    assert.equal(renamed.body.mind.slug, 'rear-admiral-grace-hopper');
    const del = await s.api('DELETE', `/minds/${id}`);
    assert.deepEqual(del.body, { success: true });
    assert.equal((await s.api('GET', `/minds/${id}`)).status, 404);
    assert.equal((await s.api('DELETE', `/minds/${id}`)).status, 404);
  });

  test('deleting a mind removes its twin and its tag links from the database (the tags stay)', async () => {
    const { mind, digitalTwin } = (await s.api('POST', '/minds', { name: 'Doomed', tags: 'fate,luck' })).body;
    const { sql } = await import('drizzle-orm');
    const { rowsOf } = await import('../../../src/platform/db/client.ts');
    const count = async (q: ReturnType<typeof sql>) => rowsOf<{ n: number }>(await s.ctx.db.execute(q))[0]!.n;
    assert.equal(await count(sql`select count(*)::int as n from digital_twins where mind_id = ${mind.id}`), 1);
    assert.equal(await count(sql`select count(*)::int as n from mind_tags where mind_id = ${mind.id}`), 2);
    assert.equal((await s.api('DELETE', `/minds/${mind.id}`)).status, 200);
    assert.equal(await count(sql`select count(*)::int as n from minds where id = ${mind.id}`), 0);
    assert.equal(await count(sql`select count(*)::int as n from digital_twins where id = ${digitalTwin.id} or mind_id = ${mind.id}`), 0);
    assert.equal(await count(sql`select count(*)::int as n from mind_tags where mind_id = ${mind.id}`), 0);
    assert.equal(await count(sql`select count(*)::int as n from tags where name in ('fate', 'luck')`), 2);
  });

  test('a mind read again after any change shows the change (tag rename, tag delete, update)', async () => {
    const { mind } = (await s.api('POST', '/minds', { name: 'Cached Person', tags: 'alpha' })).body;
    assert.deepEqual((await s.api('GET', `/minds/${mind.id}`)).body.mind.tags.map((t: any) => t.name), ['alpha']);
    const alpha = mind.tags[0];
    await s.api('PUT', `/tags/${alpha.id}`, { name: 'beta' });
    assert.deepEqual((await s.api('GET', `/minds/${mind.id}`)).body.mind.tags.map((t: any) => t.name), ['beta']);
    await s.api('DELETE', `/tags/${alpha.id}`);
    assert.deepEqual((await s.api('GET', `/minds/${mind.id}`)).body.mind.tags, []);
    await s.api('PUT', `/minds/${mind.id}`, { email: 'cached@example.com' });
    assert.equal((await s.api('GET', `/minds/${mind.id}`)).body.mind.email, 'cached@example.com');
    await s.api('DELETE', `/minds/${mind.id}`);
    assert.equal((await s.api('GET', `/minds/${mind.id}`)).status, 404);
  });

  test('the list read again after any change shows the change (create, tag rename, page, delete)', async () => {
    const names = async (q = '') => (await s.api('GET', `/minds${q}`)).body.minds.map((m: any) => m.name);
    const first = await names('?tagNames=listed');
    const one = (await s.api('POST', '/minds', { name: 'Listed One', tags: 'listed' })).body.mind;
    assert.deepEqual(await names('?tagNames=listed'), ['Listed One', ...first]);
    const res = await s.api('GET', '/minds?tagNames=listed');
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    await s.api('PUT', `/tags/${one.tags[0].id}`, { name: 'relisted' });
    assert.deepEqual(await names('?tagNames=listed'), []);
    assert.deepEqual((await s.api('GET', '/minds?tagNames=relisted')).body.minds[0].tags.map((t: any) => t.name), ['relisted']);
    const two = (await s.api('POST', '/minds', { name: 'Listed Two' })).body.mind;
    assert.deepEqual(await names('?limit=2'), ['Listed Two', 'Listed One']);
    await s.api('DELETE', `/minds/${two.id}`);
    assert.deepEqual(await names('?limit=1'), ['Listed One']);
    await s.api('DELETE', `/minds/${one.id}`);
    assert.ok(!(await names()).includes('Listed One'));
  });

  test('a mind id that is not a UUID is 400; an unknown UUID is 404', async () => {
    const bad = await s.api('GET', '/minds/not-a-uuid');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_FAILED');
    assert.match(bad.body.message, /mindId/);
    const missing = await s.api('GET', '/minds/00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'NOT_FOUND');
    assert.equal((await s.api('PUT', '/minds/00000000-0000-4000-8000-000000000000', { name: 'x' })).status, 404);
    for (const [method, path, body] of [
      ['PUT', '/minds/not-a-uuid', { name: 'x' }],
      ['DELETE', '/minds/not-a-uuid'],
      ['PUT', '/minds/123/tags', { tagNames: [] }],
      ['PUT', '/tags/not-a-uuid', { name: 'x' }],
      ['DELETE', '/tags/00000000-0000-4000-8000-00000000000'],
      ['DELETE', '/api-keys/nope'],
    ] as const) {
      await assertInvalid(s, method, path, body, /^params\.(mindId|tagId|keyId) /);
    }
  });

  test('search matches name, email, slug, tags and social values; exact, then prefix, then substring', async () => {
    await s.api('POST', '/minds', { name: 'Ann', socialMedia: { linkedin: 'ann-the-builder' } });
    await s.api('POST', '/minds', { name: 'Annabel Lee', email: 'poe@example.com' });
    await s.api('POST', '/minds', { name: 'Joanna Ann', tags: 'ann-tag' });
    const res = await s.api('GET', '/minds/search?query=ANN');
    assert.equal(res.status, 200);
    const names = res.body.minds.map((m: any) => m.name);
    assert.equal(names[0], 'Ann');
    assert.ok(names.indexOf('Annabel Lee') < names.indexOf('Joanna Ann'));
    assert.deepEqual((await s.api('GET', '/minds/search?query=builder')).body.minds.map((m: any) => m.name), ['Ann']);
    assert.deepEqual((await s.api('GET', '/minds/search?query=poe@')).body.minds.map((m: any) => m.name), ['Annabel Lee']);
    assert.deepEqual((await s.api('GET', '/minds/search?query=ann-tag')).body.minds.map((m: any) => m.name), ['Joanna Ann']);
    assert.deepEqual((await s.api('GET', '/minds/search?query=100%25')).body.minds, []);
  });

  test('search never matches across two fields; tags and social values rank like names', async () => {
    const ada = (await s.api('GET', '/minds/search?query=ada%20lovelace')).body.minds;
    assert.deepEqual(ada.map((m: any) => m.name), ['Ada Lovelace']);
    // "ada lovelace ada-lovelace" used to be one string: name + slug gave "lovelace ada".
    assert.deepEqual((await s.api('GET', '/minds/search?query=lovelace%20ada')).body.minds, []);
    const colours = (await s.api('POST', '/minds', { name: 'Colour Person', tags: ['crimson', 'teal'], socialMedia: { github: 'octo', x: 'zz' } })).body.mind;
    assert.deepEqual((await s.api('GET', '/minds/search?query=crimson%20teal')).body.minds, []);
    assert.deepEqual((await s.api('GET', '/minds/search?query=octo%20zz')).body.minds, []);
    // A separator smuggled into the query is ignored, not matched.
    assert.deepEqual((await s.api('GET', '/minds/search?query=crimson%1Fteal')).body.minds, []);
    assert.equal((await s.api('GET', '/minds/search?query=%1F')).status, 400);
    const octopus = (await s.api('POST', '/minds', { name: 'Octopus Crimsonfield' })).body.mind;
    // Exact tag / social value beats a name that only starts with the query.
    assert.deepEqual((await s.api('GET', '/minds/search?query=crimson')).body.minds.map((m: any) => m.name), ['Colour Person', 'Octopus Crimsonfield']);
    assert.deepEqual((await s.api('GET', '/minds/search?query=octo')).body.minds.map((m: any) => m.name), ['Colour Person', 'Octopus Crimsonfield']);
    // A tag or social value that starts with the query beats a mere substring.
    const deep = (await s.api('POST', '/minds', { name: 'Deep Tealwater' })).body.mind;
    const tealish = (await s.api('POST', '/minds', { name: 'Zed', tags: ['tealish'] })).body.mind;
    assert.deepEqual((await s.api('GET', '/minds/search?query=teal')).body.minds.map((m: any) => m.name), ['Colour Person', 'Zed', 'Deep Tealwater']);
    for (const m of [colours, octopus, deep, tealish]) await s.api('DELETE', `/minds/${m.id}`);
  });

  test('search returns at most `limit` minds (default 50, up to 200); list pages with limit/offset', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) ids.push((await s.api('POST', '/minds', { name: `Limit Person ${String(i).padStart(2, '0')}` })).body.mind.id);
    try {
      assert.equal((await s.api('GET', '/minds/search?query=limit%20person')).body.minds.length, 50);
      assert.equal((await s.api('GET', '/minds/search?query=limit%20person&limit=200')).body.minds.length, 55);
      const two = (await s.api('GET', '/minds/search?query=limit%20person&limit=2')).body.minds;
      assert.deepEqual(two.map((m: any) => m.name), ['Limit Person 00', 'Limit Person 01']);
      for (const bad of ['0', '201', 'x', '1.5']) {
        const res = await s.api('GET', `/minds/search?query=limit&limit=${bad}`);
        assert.equal(res.status, 400, bad);
        assert.match(res.body.message, /querystring\.limit/);
      }
      const all = (await s.api('GET', '/minds')).body.minds.map((m: any) => m.id);
      assert.ok(all.length >= 55, 'no limit by default');
      const page = (await s.api('GET', '/minds?limit=5&offset=3')).body.minds.map((m: any) => m.id);
      assert.deepEqual(page, all.slice(3, 8));
      assert.deepEqual((await s.api('GET', `/minds?offset=${all.length}`)).body.minds, []);
      assert.equal((await s.api('GET', '/minds?limit=0')).status, 400);
      assert.equal((await s.api('GET', '/minds?offset=-1')).status, 400);
    } finally {
      for (const id of ids) await s.api('DELETE', `/minds/${id}`);
    }
  });

  test('an empty ?tagNames= is no filter', async () => {
    const all = (await s.api('GET', '/minds')).body.minds;
    for (const q of ['?tagNames=', '?tagNames=%20', '?tagNames=,,']) {
      const res = await s.api('GET', `/minds${q}`);
      assert.equal(res.status, 200, q);
      assert.equal(res.body.minds.length, all.length, q);
    }
  });

  test('on PostgreSQL the hot reads are named prepared statements that reach a generic plan (no planning per request)', { skip: !onPostgres() && 'PostgreSQL only' }, async () => {
    const { getMind, listMinds } = await import('../../../src/features/minds/service.ts');
    const mind = (await s.api('POST', '/minds', { name: 'Prepared Person' })).body.mind;
    const caller = { organizationId: mind.organizationId, userId: '', apiKeyId: '' };
    // One at a time, so the pool hands out the same (most recently used) connection every time.
    for (let i = 0; i < 10; i++) {
      assert.equal((await getMind(s.ctx.db, caller, mind.id)).name, 'Prepared Person');
      await listMinds(s.ctx.db, caller, {});
      await listMinds(s.ctx.db, caller, { tagNames: 'x,y' });
    }
    const { rows } = await s.ctx.database.execute('select name, generic_plans from pg_prepared_statements');
    const generic = Object.fromEntries(rows.map((r: any) => [r.name, Number(r.generic_plans)]));
    for (const name of ['mp_get_mind', 'mp_list_minds', 'mp_list_minds_tagged']) assert.ok(generic[name] > 0, `${name}: ${JSON.stringify(generic)}`);
    await s.api('DELETE', `/minds/${mind.id}`);
  });

  test('search is served by the trigram index, not a scan', async () => {
    const { sql } = await import('drizzle-orm');
    const db = s.ctx.db;
    // With few rows the planner rightly prefers a scan (or the organization index); forbid scans to
    // see that the substring match itself can be answered from the trigram index.
    await db.execute(sql`set enable_seqscan = off`);
    try {
      const plan = (await db.execute(sql`explain select id from minds where search_text like ${'%annabel%'}`)) as any;
      assert.match(plan.rows.map((r: any) => r['QUERY PLAN']).join('\n'), /minds_search_trgm_idx/);
    } finally {
      await db.execute(sql`reset enable_seqscan`);
    }
  });

  test('search without a query, or with an empty one, is 400', async () => {
    for (const q of ['', '?query=', '?query=%20%20']) {
      const res = await s.api('GET', `/minds/search${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
    }
  });

  test('bad bodies are 400 naming the field and change nothing', async () => {
    const before = (await s.api('GET', '/minds')).body.minds.length;
    const cases: [unknown, RegExp][] = [
      [{}, /name/],
      [{ name: '' }, /name/],
      [{ name: '   ' }, /name/],
      [{ name: 42 }, /name/],
      [{ name: 'x', email: 'not-an-email' }, /email/],
      [{ name: 'x', tags: 'a,,b' }, /tags/],
      [{ name: 'x', socialMedia: 'str' }, /socialMedia/],
      [{ name: 'x', unknownField: 1 }, /unknownField/],
      [{ name: 'x', isSelf: 'true' }, /isSelf/],
      [{ name: 'x', tags: [1] }, /^body\.tags\.0 must be string/],
      [{ name: 'x', tags: ['a', 'b', { c: 1 }] }, /^body\.tags\.2 /],
    ];
    for (const [body, field] of cases) {
      const res = await s.api('POST', '/minds', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(typeof res.body.error, 'string');
      assert.match(res.body.message, field);
    }
    assert.equal((await s.api('GET', '/minds')).body.minds.length, before);
  });
});
