/**
 * The OpenAPI document as a machine reads it (issue 10's contract): every operation has an
 * operationId, unique, as src/platform/http/operation-ids.ts assigns it, and the list names no operation
 * the document does not have; the resources are named component schemas referenced by `$ref`;
 * every error status is documented with the shared Error schema; the bodies that no validator
 * reads (multipart and signed uploads) are documented; fixed lists are enums.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATION_IDS } from '../../src/platform/http/operation-ids.ts';
import { UPLOADABLE_CONTENT_TYPES } from '../../src/features/snapshots/file-kinds.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

let s: TestServer;
let doc: { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };
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
  assert.deepEqual(missing, [], 'operations without an operationId: add them to src/platform/http/operation-ids.ts');
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

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const okSchema = (path: string, method: string) => doc.paths[path]![method].responses['200'].content['application/json'].schema;

test('the resources are named component schemas, and the operations refer to them', () => {
  const names = Object.keys(doc.components.schemas);
  for (const name of ['Mind', 'Tag', 'Snapshot', 'SnapshotStatus', 'SnapshotProcessingStatus', 'Simulation', 'Message', 'User', 'Error', 'ApiKey', 'Psychometric', 'Topic', 'Finding', 'MindProfile', 'Model', 'SemanticIndex', 'Usage']) {
    assert.ok(names.includes(name), `components.schemas.${name}`);
  }
  assert.deepEqual(okSchema('/minds/{mindId}', 'get').properties.mind, ref('Mind'));
  assert.deepEqual(okSchema('/minds', 'get').properties.minds.items, ref('Mind'));
  assert.deepEqual(doc.components.schemas.Mind.properties.tags.items, ref('Tag'));
  assert.deepEqual(okSchema('/minds/{mindId}/snapshots/{snapshotId}/status', 'get'), ref('SnapshotStatus'));
  assert.deepEqual(doc.components.schemas.Snapshot.properties.status, ref('SnapshotProcessingStatus'));
  assert.deepEqual(doc.components.schemas.SnapshotProcessingStatus.enum, ['pending', 'processing', 'completed', 'failed']);
  assert.deepEqual(okSchema('/simulations/{simulationId}', 'get').properties.messages.items, ref('Message'));
  assert.deepEqual(doc.paths['/minds']!.post.requestBody.content['application/json'].schema, ref('CreateMindRequest'));
  // A nullable named schema: the reference or null.
  assert.deepEqual(doc.components.schemas.Message.properties.content, { anyOf: [ref('MessageContent'), { type: 'null' }] });
  // Every $ref resolves, and every component is referred to.
  const text = JSON.stringify(doc);
  const refs = new Set([...text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!));
  for (const r of refs) assert.ok(doc.components.schemas[r], `${r} is defined`);
  for (const name of names) assert.ok(refs.has(name), `${name} is used`);
});

test('every operation documents every status the service can answer, errors with the Error schema', () => {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item).filter(([m]) => METHODS.includes(m))) {
      const what = `${method.toUpperCase()} ${path}`;
      const statuses = Object.keys(op.responses).map(Number);
      // The success status is the operation's own (200, or 202 for a run queued in the background).
      const success = statuses.find((st) => st >= 200 && st < 300) ?? 200;
      const expected = path === '/uploads/{token}' ? [200, 400, 403, 408, 413, 414, 431, 503] : [success, 400, 401, 408, 429, 431, 503];
      if (path !== '/uploads/{token}') {
        if (path.includes('{')) expected.push(404, 414);
        if (method !== 'get') expected.push(413, 415);
      }
      for (const status of expected) assert.ok(statuses.includes(status), `${what} documents ${status}`);
      for (const status of statuses.filter((s) => s >= 400)) {
        const response = op.responses[status];
        assert.deepEqual(response.content['application/json'].schema, ref('Error'), `${what} ${status}`);
        assert.ok(response.description.length > 10, `${what} ${status} is described`);
      }
      for (const status of statuses.filter((s) => s === 429 || s === 503)) assert.ok(op.responses[status].headers['Retry-After'], `${what} ${status} Retry-After`);
    }
  }
  assert.deepEqual(Object.keys(doc.paths['/simulations/{simulationId}']!.get.responses).sort(), ['200', '400', '401', '403', '404', '408', '414', '429', '431', '503']);
});

test('every request body refuses unknown fields (additionalProperties: false), nested objects of fixed shape included', () => {
  const lax: string[] = [];
  const check = (schema: any, where: string) => {
    if (schema?.$ref) return check(doc.components.schemas[schema.$ref.split('/').pop()], where);
    if (schema?.type === 'object' && schema.properties && schema.additionalProperties !== false) lax.push(where);
    for (const [name, prop] of Object.entries<any>(schema?.properties ?? {})) check(prop, `${where}.${name}`);
  };
  let bodies = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item).filter(([m]) => METHODS.includes(m))) {
      for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) {
        if (type !== 'application/json' && type !== 'multipart/form-data') continue;
        bodies++;
        check(media.schema, `${method.toUpperCase()} ${path} body`);
      }
    }
  }
  assert.ok(bodies >= 9, `${bodies} bodies`);
  assert.deepEqual(lax, []);
});

test('the bodies no validator reads are documented: the multipart snapshot upload and the signed upload', () => {
  const multipart = doc.paths['/minds/{mindId}/snapshots']!.post.requestBody;
  assert.deepEqual(Object.keys(multipart.content), ['multipart/form-data']);
  assert.deepEqual(multipart.content['multipart/form-data'].schema, ref('CreateSnapshotForm'));
  const form = doc.components.schemas.CreateSnapshotForm;
  assert.deepEqual(Object.keys(form.properties).sort(), ['artifactId', 'digitalTwinId', 'file', 'mindsetDate', 'speaker']);
  assert.equal(form.properties.file.format, 'binary');
  const upload = doc.paths['/uploads/{token}']!.put.requestBody;
  assert.deepEqual(Object.keys(upload.content).sort(), [...UPLOADABLE_CONTENT_TYPES].sort());
  for (const media of Object.values(upload.content) as { schema: { format: string } }[]) assert.equal(media.schema.format, 'binary');
});

test('fixed lists are enums: the signed-URL content types, statuses, instruments, error codes', () => {
  const param = doc.paths['/minds/{mindId}/signed-url']!.get.parameters.find((p: { name: string }) => p.name === 'contentType');
  assert.deepEqual([...param.schema.enum].sort(), [...UPLOADABLE_CONTENT_TYPES].sort());
  assert.deepEqual(doc.components.schemas.SignedUploadUrl.properties.contentType, ref('UploadContentType'));
  assert.deepEqual([...doc.components.schemas.UploadContentType.enum].sort(), [...UPLOADABLE_CONTENT_TYPES].sort());
  assert.deepEqual(doc.components.schemas.Psychometric.properties.instrument.enum, ['big_five', 'communication_style', 'emotion', 'ipip-bfm-50']);
  assert.deepEqual(doc.components.schemas.Message.properties.role.enum, ['user', 'assistant']);
  assert.deepEqual(doc.components.schemas.Message.properties.status.enum, ['pending', 'streaming', 'completed', 'failed']);
  assert.ok(doc.components.schemas.Error.properties.code.enum.includes('UNAVAILABLE'));
});

test('a content type outside the list is a 400 that lists the accepted ones', async () => {
  const mind = (await s.api('POST', '/minds', { name: 'Enum Check' })).body.mind;
  const res = await s.api('GET', `/minds/${mind.id}/signed-url?contentType=image/png&fileName=a.png`);
  assert.equal(res.status, 400);
  assert.match(res.body.message, /^querystring\.contentType must be equal to one of the allowed values: text\/vtt, /);
});
