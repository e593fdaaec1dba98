/**
 * The OpenAPI document as a machine reads it (issue 10's contract): every operation has an
 * operationId, unique, as src/http/operation-ids.ts assigns it, and the list names no operation
 * the document does not have.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATION_IDS } from '../../src/http/operation-ids.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

let s: TestServer;
let doc: { paths: Record<string, Record<string, { operationId?: string }>> };
before(async () => {
  s = await startTestServer();
  doc = (await (await fetch(`${s.base}/openapi.json`)).json()) as typeof doc;
});
after(() => s?.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, operationId: op.operationId })),
  );

test('every operation has an operationId, unique across the document', () => {
  const ops = operations();
  assert.ok(ops.length >= 30, `${ops.length} operations`);
  const missing = ops.filter((o) => !o.operationId).map((o) => o.key);
  assert.deepEqual(missing, [], 'operations without an operationId: add them to src/http/operation-ids.ts');
  const ids = ops.map((o) => o.operationId!);
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  for (const o of ops) assert.match(o.operationId!, /^[a-z][A-Za-z]+$/, o.key);
});

test('the operationIds are the assigned ones, and every assigned one is in the document', () => {
  const documented = new Map(operations().map((o) => [o.key, o.operationId]));
  for (const [key, id] of Object.entries(OPERATION_IDS)) assert.equal(documented.get(key), id, `${key} is documented as ${id}`);
  assert.equal(documented.get('GET /minds/{mindId}'), 'getMind');
  assert.equal(documented.get('POST /simulate'), 'simulate');
});
