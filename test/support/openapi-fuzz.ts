/**
 * Property-based fuzzing from the OpenAPI document (issue 10), shared by test/e2e/fuzz.test.ts
 * (bounded, in the suite) and bench/fuzz.ts (longer, with figures). fast-check generates, for
 * every operation the document lists, requests that fit its schemas and requests that do not:
 * full Unicode with lone surrogates and NUL, lengths at and past the limits, deep nesting, ids
 * of the caller's organization, of another organization and random ones, malformed JSON and
 * multipart, wrong content types and keys. Each answer is checked against the document with Ajv
 * (JSON Schema 2020-12, as OpenAPI 3.1 uses): a status the operation documents, its content type,
 * a body valid against its schema, an error code that belongs to the status. Any 5xx, an answer
 * that never comes, an undocumented status or a schema mismatch is a failure.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import type { ErrorCode } from '../../src/platform/errors.ts';
import { STATUS } from '../../src/platform/http/errors.ts';
import type { TestServer } from './server.ts';

type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete'] as const;

export interface Operation {
  id: string;
  method: string;
  path: string;
  op: Json;
  pathParams: string[];
  query: Json[];
  /** Media types of the request body → schema. */
  body: Record<string, Json> | null;
  /** Outside the API base path (signed uploads). */
  atRoot: boolean;
}

export function operationsOf(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = (op.parameters ?? []) as Json[];
      ops.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        op,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query'),
        body: op.requestBody ? Object.fromEntries(Object.entries(op.requestBody.content as Json).map(([t, m]) => [t, (m as Json).schema])) : null,
        atRoot: Array.isArray(op.servers) && op.servers[0]?.url === '/',
      });
    }
  }
  return ops;
}

/* ---------- values ---------- */

/** Strings a hostile client sends: any code point, lone surrogates, NUL, control and bidi characters. */
const nasty = fc.constantFrom('\ud800', '\udfff', '\udbff\u0041', '\u0000', '\u001b[2J', '\u202e', '\ufeff', '\uffff', '𝕏', '👩‍👩‍👧', "'; drop table minds; --", '../../etc/passwd', '%00', '{{7*7}}', ' ');
export const hostileString = (maxLength = 64): fc.Arbitrary<string> =>
  fc.array(fc.oneof({ weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) }, { weight: 1, arbitrary: nasty }), { maxLength: Math.max(1, Math.ceil(maxLength / 4)) }).map((parts) => parts.join(''));

/** A string a URL can carry: lone surrogates become U+FFFD (they travel as invalid %-escapes instead). */
const wellFormed = (t: string) => t.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** JSON nested `depth` levels deep (objects and arrays). */
export const deepJson = (depth: number, array: boolean) => (array ? '['.repeat(depth) + '1' + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

function resolve(doc: Json, schema: Json): Json {
  let s = schema;
  for (let i = 0; s?.$ref && i < 20; i++) s = s.$ref.split('/').slice(1).reduce((o: Json, k: string) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return s;
}

const typeOf = (s: Json): string | undefined => (Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type);

/** Values that fit a schema (the document's JSON Schema), boundary lengths included. */
export function validValue(doc: Json, schema: Json, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(doc, schema);
  if (!s || depth > 6) return fc.constant(null);
  const nullable = Array.isArray(s.type) && s.type.includes('null');
  const base = validNonNull(doc, s, depth);
  return nullable ? fc.oneof({ weight: 4, arbitrary: base }, { weight: 1, arbitrary: fc.constant(null) }) : base;
}

function stringValue(s: Json): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 80, 10_000);
  switch (s.format) {
    case 'uuid':
      return fc.uuid({ version: 4 });
    case 'date-time':
      return fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'email':
      return fc.emailAddress().filter((e) => e.length <= max);
    case 'uri':
      return fc.webUrl().filter((u) => u.length <= max);
    case 'binary':
      return fc.string({ maxLength: 200 });
  }
  if (s.pattern === '^\\d{4}-\\d{2}-\\d{2}$') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  const text = fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: Math.max(min, 1), maxLength: Math.min(max, 40) }) },
    { weight: 2, arbitrary: hostileString(Math.min(max, 40)) },
    // The boundaries: exactly the longest and the shortest allowed.
    { weight: 1, arbitrary: fc.constant('x'.repeat(max)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: max, maxLength: max }) },
  );
  return text.map((t) => (s.pattern === '\\S' && !/\S/.test(t) ? `a${t}`.slice(0, max) : t)).filter((t) => [...t].length >= min && t.length <= max);
}

function validNonNull(doc: Json, s: Json, depth: number): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]).filter((v) => v !== null));
  if (s.anyOf || s.oneOf) return fc.oneof(...((s.anyOf ?? s.oneOf) as Json[]).map((m) => validValue(doc, m, depth + 1)));
  switch (typeOf(s)) {
    case 'string':
      return stringValue(s);
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(doc, s.items ?? {}, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, 4) });
    case 'object': {
      const props = (s.properties ?? {}) as Json;
      if (Object.keys(props).length === 0 && s.additionalProperties) {
        const values = s.additionalProperties === true ? fc.jsonValue({ maxDepth: 3 }) : validValue(doc, s.additionalProperties, depth + 1);
        return fc.dictionary(hostileString(20).filter((k) => k.length > 0), values, { maxKeys: Math.min(s.maxProperties ?? 5, 5) });
      }
      const record = fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, validValue(doc, v as Json, depth + 1)])), { requiredKeys: (s.required ?? []) as string[] });
      return s.minProperties ? record.filter((r) => Object.keys(r).length >= s.minProperties) : record;
    }
  }
  return fc.jsonValue({ maxDepth: 2 });
}

/** Values that (mostly) do not fit: wrong types, lengths one past the limit, hostile strings, deep nesting. */
export function mutatedValue(doc: Json, schema: Json): fc.Arbitrary<unknown> {
  const s = resolve(doc, schema) ?? {};
  const wrong = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    hostileString(),
    fc.jsonValue({ maxDepth: 4 }),
    fc.array(hostileString(8), { maxLength: 3 }),
    fc.integer({ min: 1, max: 200 }).map((d) => JSON.parse(deepJson(d, d % 2 === 0))),
  );
  if (typeOf(s) === 'string' && s.maxLength) return fc.oneof(wrong, fc.constant('y'.repeat(s.maxLength + 1)), hostileString(s.maxLength));
  if (typeOf(s) === 'object' && s.properties) {
    const props = Object.keys(s.properties as Json);
    return fc.oneof(
      wrong,
      // One field replaced by a wrong value, or an unknown field added, to an otherwise valid object.
      fc.tuple(validValue(doc, s) as fc.Arbitrary<Json>, fc.constantFrom(...props), fc.constantFrom(...props).chain((p) => mutatedValue(doc, (s.properties as Json)[p]))).map(([v, p, bad]) => ({ ...v, [p]: bad })),
      fc.tuple(validValue(doc, s) as fc.Arbitrary<Json>, hostileString(12), fc.jsonValue({ maxDepth: 2 })).map(([v, k, x]) => ({ ...v, [k || 'extra']: x })),
    );
  }
  return wrong;
}

/* ---------- requests ---------- */

/** Real ids the fuzzer sends: the caller's organization's and another organization's, by path-parameter name. */
export interface IdPools {
  own: Record<string, string[]>;
  other: Record<string, string[]>;
  /** Ids an operation may destroy (DELETE with the caller's ids takes them from here, so the rest stay). */
  spare: Record<string, string[]>;
  /** Tokens of signed upload URLs (each works once). */
  uploadTokens: string[];
}

export interface FuzzRequest {
  operation: Operation;
  path: string;
  headers: Record<string, string>;
  body?: string | FormData | Uint8Array;
  /** What was generated, for the failure report. */
  note: string;
}

const pathSegment = (pools: IdPools, name: string, destructive: boolean): fc.Arbitrary<string> => {
  const own = (destructive && pools.spare[name]) || pools.own[name] || [];
  const other = pools.other[name] ?? [];
  const choices: fc.WeightedArbitrary<string>[] = [
    { weight: 2, arbitrary: fc.uuid().map(encodeURIComponent) },
    { weight: 1, arbitrary: hostileString(40).map((t) => encodeURIComponent(wellFormed(t))) },
    // Malformed %-escapes and invalid UTF-8 (a lone surrogate as UTF-8 bytes).
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%ED%A0%80', '%C0%AF', '%00', '%2e%2e%2f', '.%2e%2fx') },
    // At the router's limit for a parameter (4,096 characters) and one past it.
    { weight: 1, arbitrary: fc.constantFrom('a'.repeat(4096), 'a'.repeat(4097), '0'.repeat(5000)) },
  ];
  if (own.length) choices.push({ weight: 6, arbitrary: fc.constantFrom(...own) });
  if (other.length) choices.push({ weight: 2, arbitrary: fc.constantFrom(...other) });
  if (name === 'token' && pools.uploadTokens.length) choices.push({ weight: 4, arbitrary: fc.constantFrom(...pools.uploadTokens) });
  return fc.oneof(...choices);
};

function queryString(doc: Json, params: Json[]): fc.Arbitrary<string> {
  if (params.length === 0) return fc.oneof({ weight: 5, arbitrary: fc.constant('') }, { weight: 1, arbitrary: hostileString(20).map((v) => `?${encodeURIComponent(wellFormed(v))}=${encodeURIComponent(wellFormed(v))}`) });
  const entries = params.map((p) =>
    fc.oneof(
      { weight: p.required ? 1 : 3, arbitrary: fc.constant(undefined) },
      { weight: 6, arbitrary: validValue(doc, p.schema) },
      { weight: 2, arbitrary: mutatedValue(doc, p.schema) },
    ).map((v) => [p.name as string, v] as const),
  );
  return fc.tuple(...entries).map((pairs) => {
    const q = new URLSearchParams();
    for (const [k, v] of pairs) if (v !== undefined) q.append(k, typeof v === 'string' ? v : JSON.stringify(v));
    const s = q.toString();
    return s ? `?${s}` : '';
  });
}

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/xml', ''];

function jsonBody(doc: Json, schema: Json): fc.Arbitrary<{ body: string; type: string; note: string }> {
  const type = fc.oneof({ weight: 12, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) });
  const text = fc.oneof(
    { weight: 6, arbitrary: validValue(doc, schema).map((v) => ({ body: JSON.stringify(v), note: 'valid' })) },
    { weight: 4, arbitrary: mutatedValue(doc, schema).map((v) => ({ body: JSON.stringify(v) ?? 'null', note: 'mutated' })) },
    { weight: 1, arbitrary: fc.integer({ min: 20, max: 3000 }).chain((d) => fc.boolean().map((a) => ({ body: `{"name":"n","socialMedia":${deepJson(d, a)}}`, note: `nested ${d}` }))) },
    { weight: 1, arbitrary: hostileString(200).map((t) => ({ body: t, note: 'not JSON' })) },
    // Just over the 1 MB body limit.
    { weight: 1, arbitrary: fc.constant({ body: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }), note: 'over 1 MB' }) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', '{"a":1}}', '[]', 'null', '"x"', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}').map((t) => ({ body: t, note: 'odd JSON' })) },
  );
  return fc.tuple(text, type).map(([t, ct]) => ({ ...t, type: ct }));
}

const TRANSCRIPT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ada>I believe the engine could compose music of any complexity.\n\n00:00:05.000 --> 00:00:08.000\n<v Host>Why music?\n';

function multipartBody(doc: Json, schema: Json, pools: IdPools): fc.Arbitrary<{ body: FormData; note: string }> {
  const form = resolve(doc, schema);
  const file = fc.oneof(
    fc.constant(new TextEncoder().encode(TRANSCRIPT)),
    fc.uint8Array({ maxLength: 300 }),
    hostileString(300).map((t) => new TextEncoder().encode(t)),
    fc.constant(new Uint8Array(0)),
    fc.constant(new TextEncoder().encode('   \n\t ')),
  );
  const fields = Object.entries(form.properties as Json).filter(([k]) => k !== 'file');
  const fieldValue = (name: string, s: Json) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 3, arbitrary: name === 'artifactId' && pools.own.artifactId?.length ? fc.constantFrom(...pools.own.artifactId) : validValue(doc, s).map(String) },
      { weight: 2, arbitrary: hostileString(40) },
    );
  return fc
    .record({
      file: fc.option(fc.tuple(file, hostileString(30)), { freq: 2 }),
      fields: fc.tuple(...fields.map(([k, s]) => fieldValue(k, s as Json).map((v) => [k, v] as const))),
      extra: fc.option(fc.tuple(hostileString(10), hostileString(10)), { freq: 8 }),
    })
    .map(({ file: f, fields: fs, extra }) => {
      const fd = new FormData();
      if (f) fd.append('file', new Blob([f[0] as BlobPart]), f[1] || 'transcript.vtt');
      for (const [k, v] of fs) if (v !== undefined) fd.append(k, v);
      if (extra) fd.append(extra[0] || 'x', extra[1]);
      return { body: fd, note: `multipart ${f ? `file ${f[0].length} B` : 'no file'} ${fs.filter(([, v]) => v !== undefined).map(([k]) => k).join(',')}${extra ? ' +extra' : ''}` };
    });
}

/** A malformed multipart body: no boundary, a wrong one, truncated, or random bytes. */
const brokenMultipart = fc.oneof(
  fc.constant({ type: 'multipart/form-data', body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.vtt"\r\n\r\nWEBVTT\r\n--x--\r\n', note: 'no boundary' }),
  fc.constant({ type: 'multipart/form-data; boundary=yyy', body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.vtt"\r\n\r\nWEBVTT\r\n--x--\r\n', note: 'boundary mismatch' }),
  fc.constant({ type: 'multipart/form-data; boundary=x', body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.vtt"\r\n\r\nWEBVTT\r\n', note: 'truncated' }),
  fc.constant({ type: 'multipart/form-data; boundary=x', body: '--x\r\nContent-Type: text/plain\r\n\r\n' + 'z'.repeat(20_000) + '\r\n--x--\r\n', note: 'part without Content-Disposition' }),
  fc.uint8Array({ maxLength: 400 }).map((b) => ({ type: 'multipart/form-data; boundary=x', body: b, note: 'random bytes' })),
);

/** Requests for one operation. `key` is the caller's API key. */
export function requestsFor(doc: Json, operation: Operation, pools: IdPools, key: string): fc.Arbitrary<FuzzRequest> {
  const destructive = operation.method === 'DELETE';
  const segments = fc.tuple(...operation.pathParams.map((p) => pathSegment(pools, p, destructive)));
  const auth = operation.atRoot
    ? fc.constant<Record<string, string>>({})
    : fc.oneof(
        { weight: 30, arbitrary: fc.constant<Record<string, string>>({ authorization: `Bearer ${key}` }) },
        { weight: 1, arbitrary: fc.constant<Record<string, string>>({}) },
        { weight: 1, arbitrary: hostileString(60).map((k): Record<string, string> => ({ authorization: `Bearer ${k.replace(/[^\x20-\x7e]/g, '')}` })) },
      );
  let body: fc.Arbitrary<{ body?: string | FormData | Uint8Array; type?: string; note: string }> = fc.constant({ note: 'no body' });
  if (operation.body?.['application/json']) body = jsonBody(doc, operation.body['application/json']);
  else if (operation.body?.['multipart/form-data']) {
    body = fc.oneof({ weight: 5, arbitrary: multipartBody(doc, operation.body['multipart/form-data'], pools) }, { weight: 1, arbitrary: brokenMultipart }, { weight: 1, arbitrary: jsonBody(doc, {}) });
  } else if (operation.body) {
    // A raw upload: bytes with one of the documented types or another.
    const types = Object.keys(operation.body);
    body = fc
      .tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...types) }, { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) }), fc.oneof(fc.constant(new TextEncoder().encode(TRANSCRIPT)), fc.uint8Array({ maxLength: 500 }), fc.constant(new Uint8Array(0))))
      .map(([type, bytes]) => ({ body: bytes, type, note: `raw ${bytes.length} B` }));
  } else if (operation.method !== 'GET') {
    // No documented body: mostly none, sometimes one anyway (Fastify parses bodies of any non-GET).
    body = fc.oneof({ weight: 5, arbitrary: fc.constant({ note: 'no body' }) }, { weight: 1, arbitrary: jsonBody(doc, {}) });
  }
  return fc.tuple(segments, queryString(doc, operation.query), auth, body).map(([segs, query, headers, b]) => {
    let i = 0;
    const path = operation.path.replace(/\{[^}]+\}/g, () => segs[i++]!) + query;
    const h: Record<string, string> = { ...headers };
    if (b.type) h['content-type'] = b.type;
    return { operation, path, headers: h, body: b.body, note: b.note };
  });
}

/* ---------- checking answers ---------- */

export interface Finding {
  operation: string;
  request: string;
  status: number;
  problem: string;
}

export class ResponseChecker {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false, validateFormats: true });
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(doc: Json) {
    (addFormats as unknown as (a: Ajv2020) => void)(this.#ajv);
    this.#ajv.addFormat('binary', true);
    this.#ajv.addSchema({ ...doc, $id: 'https://mindprint.invalid/openapi.json' });
  }

  #validator(pointer: string): ValidateFunction {
    let v = this.#validators.get(pointer);
    if (!v) {
      v = this.#ajv.compile({ $ref: `https://mindprint.invalid/openapi.json#${pointer}` });
      this.#validators.set(pointer, v);
    }
    return v;
  }

  /** What is wrong with an answer (empty when it is as documented). */
  check(operation: Operation, status: number, contentType: string | null, text: string): string[] {
    if (status >= 500) return [`server error ${status}: ${text.slice(0, 300)}`];
    const response = operation.op.responses[String(status)];
    if (!response) return [`status ${status} is not documented for ${operation.id}: ${text.slice(0, 300)}`];
    if (!response.content) return [];
    const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (!response.content[type]) return [`content type "${contentType}" is not documented for ${status} (${Object.keys(response.content).join(', ')})`];
    if (type !== 'application/json') return [];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`${status} body is not JSON: ${text.slice(0, 200)}`];
    }
    const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    const validate = this.#validator(`/paths/${esc(operation.path)}/${operation.method.toLowerCase()}/responses/${status}/content/${esc(type)}/schema`);
    const problems: string[] = [];
    if (!validate(body)) problems.push(`${status} body does not match its schema: ${this.#ajv.errorsText(validate.errors)} in ${text.slice(0, 300)}`);
    if (status >= 400) {
      const code = (body as { code?: string }).code as ErrorCode | undefined;
      if (!code || STATUS[code] !== status) problems.push(`${status} carries code ${code}, whose status is ${code ? STATUS[code] : 'none'}`);
    }
    return problems;
  }
}

/** Sends one request and checks its answer. */
export async function exercise(s: TestServer, checker: ResponseChecker, req: FuzzRequest, timeoutMs = 30_000): Promise<{ status: number; problems: string[] }> {
  const base = req.operation.atRoot ? s.url : s.base;
  let res: Response;
  try {
    res = await fetch(`${base}${req.path}`, { method: req.operation.method, headers: req.headers, body: req.body as BodyInit | undefined, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const e = err as Error & { cause?: Error };
    // A URL that fetch itself refuses to send is not the server's fault.
    if (e instanceof TypeError && /Invalid URL|Failed to parse URL|Invalid header|ByteString/i.test(`${e.message} ${e.cause?.message ?? ''}`)) return { status: 0, problems: [] };
    return { status: 0, problems: [`no answer: ${e.name} ${e.message} ${e.cause?.message ?? ''}`] };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    return { status: res.status, problems: [`the body broke off: ${(err as Error).message}`] };
  }
  return { status: res.status, problems: checker.check(req.operation, res.status, res.headers.get('content-type'), text) };
}

export const describeRequest = (req: FuzzRequest) =>
  `${req.operation.method} ${req.path.length > 200 ? `${req.path.slice(0, 200)}…(${req.path.length})` : req.path} [${req.note}] ${req.headers['content-type'] ?? ''} ${typeof req.body === 'string' ? JSON.stringify(req.body.slice(0, 200)) : ''}`;

/* ---------- fixtures ---------- */

async function okBody(res: Promise<{ status: number; body: any }>, what: string): Promise<any> {
  const r = await res;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

type Ids = Record<string, string[]>;

/** Resources of one organization: a mind with a completed snapshot, a tag, a simulation; with `spare`, more to delete. */
async function seed(s: TestServer, key: string, label: string, spare: boolean): Promise<{ ids: Ids; spare: Ids }> {
  const mind = (await okBody(s.api('POST', '/minds', { name: `Ada ${label}`, tags: `fuzz-${label}`, socialMedia: { x: 'https://example.com' } }, key), 'create mind')).mind;
  const fd = new FormData();
  fd.append('file', new Blob([TRANSCRIPT]), 'ada.vtt');
  fd.append('speaker', 'Ada');
  const created = await okBody(s.api('POST', `/minds/${mind.id}/snapshots`, fd, key), 'create snapshot');
  const deadline = Date.now() + 120_000;
  for (;;) {
    const st = (await s.api('GET', `/minds/${mind.id}/snapshots/${created.mindAssessmentId}/status`, undefined, key)).body;
    if (st.status === 'completed') break;
    if (st.status === 'failed' || Date.now() > deadline) throw new Error(`fixture snapshot ${st.status}: ${st.error}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const sim = await okBody(s.api('POST', '/simulate', { mindId: mind.id, scenario: { message: 'Why music?' } }, key), 'simulate');
  const tags = (await okBody(s.api('GET', '/tags', undefined, key), 'tags')).tags as { id: string }[];
  const users = (await okBody(s.api('GET', '/users', undefined, key), 'users')).users as { id: string }[];
  const keys = (await okBody(s.api('GET', '/api-keys', undefined, key), 'keys')).apiKeys as { id: string }[];
  const ids: Ids = {
    mindId: [mind.id],
    snapshotId: [created.mindAssessmentId],
    simulationId: [sim.simulationId],
    tagId: tags.map((t) => t.id),
    userId: users.map((u) => u.id),
    keyId: keys.map((k) => k.id),
    artifactId: [created.artifactId],
  };
  if (!spare) return { ids, spare: {} };
  // Spare resources the fuzzer may delete: another mind with its snapshot, a simulation, a tag, a key.
  const spareMind = (await okBody(s.api('POST', '/minds', { name: `Spare ${label}`, tags: `spare-${label}` }, key), 'spare mind')).mind;
  const spareKey = (await okBody(s.api('POST', '/api-keys', { name: 'spare' }, key), 'spare key')).apiKey;
  const spareSim = await okBody(s.api('POST', '/simulate', { mindId: mind.id, scenario: { message: 'And then?' } }, key), 'spare simulation');
  const spareTag = (await okBody(s.api('GET', '/tags', undefined, key), 'tags')).tags.find((t: { name: string }) => t.name === `spare-${label}`);
  const fd2 = new FormData();
  fd2.append('file', new Blob([TRANSCRIPT]), 'spare.vtt');
  const spareSnap = await okBody(s.api('POST', `/minds/${spareMind.id}/snapshots`, fd2, key), 'spare snapshot');
  return { ids, spare: { mindId: [spareMind.id], keyId: [spareKey.id], simulationId: [spareSim.simulationId], tagId: [spareTag.id], snapshotId: [spareSnap.mindAssessmentId] } };
}

/** The caller's and another organization's resources, and signed upload URLs to spend. */
export async function fuzzFixtures(s: TestServer, uploadTokens = 20): Promise<IdPools> {
  const other = await s.newKey('fuzz-other-org', 'other@fuzz.test');
  const mine = await seed(s, s.key, 'own', true);
  const theirs = (await seed(s, other.key, 'other', false)).ids;
  const tokens: string[] = [];
  for (let i = 0; i < uploadTokens; i++) {
    const type = ['text/vtt', 'text/plain', 'application/pdf'][i % 3]!;
    const signed = await okBody(s.api('GET', `/minds/${mine.ids.mindId![0]}/signed-url?contentType=${encodeURIComponent(type)}&fileName=f${i}.txt`), 'signed url');
    tokens.push(new URL(signed.signedUrl).pathname.split('/').pop()!);
  }
  return { own: mine.ids, other: theirs, spare: mine.spare, uploadTokens: tokens };
}

/* ---------- the run ---------- */

export interface FuzzStats {
  seed: number;
  operations: number;
  requests: number;
  /** Requests per operationId. */
  byOperation: Record<string, number>;
  /** Answers per status (0: fetch refused to send the request). */
  statuses: Record<string, number>;
  findings: Finding[];
  elapsedMs: number;
}

/**
 * Round after round over every operation, `perRound` generated requests each, until `budgetMs`
 * is spent (every operation gets at least one round). Deterministic for a seed, up to the
 * server's own state.
 */
export async function runFuzz(s: TestServer, doc: Json, pools: IdPools, opts: { budgetMs: number; seed: number; perRound?: number; onFinding?: (f: Finding) => void }): Promise<FuzzStats> {
  const checker = new ResponseChecker(doc);
  const operations = operationsOf(doc);
  const arbs = new Map(operations.map((o) => [o, requestsFor(doc, o, pools, s.key)]));
  const stats: FuzzStats = { seed: opts.seed, operations: operations.length, requests: 0, byOperation: {}, statuses: {}, findings: [], elapsedMs: 0 };
  const started = Date.now();
  for (let round = 0; round === 0 || Date.now() - started < opts.budgetMs; round++) {
    for (const [operation, arb] of arbs) {
      for (const req of fc.sample(arb, { seed: opts.seed + round * 7919 + operations.indexOf(operation), numRuns: opts.perRound ?? 10 })) {
        const { status, problems } = await exercise(s, checker, req);
        stats.requests++;
        stats.byOperation[operation.id] = (stats.byOperation[operation.id] ?? 0) + 1;
        stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
        for (const problem of problems) {
          const finding = { operation: operation.id, request: describeRequest(req), status, problem };
          stats.findings.push(finding);
          opts.onFinding?.(finding);
        }
      }
    }
  }
  stats.elapsedMs = Date.now() - started;
  return stats;
}
