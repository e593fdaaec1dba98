/**
 * MindprintClient: a small typed SDK over the Mindprint HTTP API. Request and response types
 * come from ./openapi-types.ts, generated from the service's own OpenAPI document
 * (scripts/generate-client-types.ts), so they follow the route schemas.
 *
 *   const mp = new MindprintClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: process.env.MINDPRINT_API_KEY! });
 *   const { mind } = await mp.createMind({ name: 'Barack Obama' });
 *   const { mindAssessmentId } = await mp.uploadSnapshot(mind.id, { file: './debate.vtt', mindsetDate: '2012-10-03' });
 *   await mp.waitForSnapshot(mind.id, mindAssessmentId);
 *   for await (const e of mp.simulateStream({ mindId: mind.id, scenario: { message: 'Taxes?' } })) …
 *
 * Every non-2xx answer throws MindprintApiError with the status and the `{code, message}` of the
 * service's JSON error body.
 *
 * It runs in browsers too (the web dashboard uses it): Node's modules are loaded only to read an
 * upload given as a file path.
 */
import type { components, paths } from './openapi-types.ts';
import { parseEventStream } from './sse.ts';

export { parseEventStream, type SseMessage } from './sse.ts';
export type { components, operations, paths } from './openapi-types.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The 200 JSON body of an operation. */
export type ResponseOf<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer T } } } } ? T : never;
/** The JSON request body of an operation. */
export type BodyOf<P extends keyof paths, M extends Method> = paths[P][M] extends { requestBody?: { content: { 'application/json': infer T } } } ? T : never;
/** The query parameters of an operation. */
export type QueryOf<P extends keyof paths, M extends Method> = paths[P][M] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type Mind = ResponseOf<'/minds/{mindId}', 'get'>['mind'];
export type DigitalTwin = ResponseOf<'/minds', 'post'>['digitalTwin'];
export type CreateMindInput = BodyOf<'/minds', 'post'>;
export type UpdateMindInput = BodyOf<'/minds/{mindId}', 'put'>;
export type TagWithCount = ResponseOf<'/tags', 'get'>['tags'][number];
export type Tag = Mind['tags'][number];
export type Snapshot = ResponseOf<'/minds/{mindId}/snapshots', 'get'>['snapshots'][number];
export type SnapshotStatus = ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}/status', 'get'>;
export type SnapshotDetails = ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}', 'get'>;
export type CreatedSnapshot = ResponseOf<'/minds/{mindId}/snapshots', 'post'>;
export type SignedUploadUrl = ResponseOf<'/minds/{mindId}/signed-url', 'get'>;
/** The content types a signed upload URL can be asked for. */
export type SignedUrlContentType = QueryOf<'/minds/{mindId}/signed-url', 'get'>['contentType'];
export type SignedUpload = ResponseOf<'/uploads/{token}', 'put'>;
export type SnapshotSpeakers = ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}/speakers', 'get'>;
export type SnapshotSpeaker = SnapshotSpeakers['speakers'][number];
export type SetSpeakerResult = ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}/speaker', 'put'>;
export type Psychometric = ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}/psychometrics', 'get'>['psychometrics'][number];
export type KeyTopic = ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}/topic-analysis', 'get'>['keyTopics'][number];
export type Finding = ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}/findings', 'get'>['findings'][number];
export type MindProfile = ResponseOf<'/minds/{mindId}/profile', 'get'>;
/** The fidelity check of a mind (GET /minds/{mindId}/fidelity). */
export type MindFidelity = ResponseOf<'/minds/{mindId}/fidelity', 'get'>;
export type SimulateInput = Omit<BodyOf<'/simulate', 'post'>, 'stream' | 'runInBackground'>;
type SimulateAnswer = ResponseOf<'/simulate', 'post'>;
export type SimulateResult = Extract<SimulateAnswer, { evidence: unknown }>;
export type QueuedSimulation = Extract<SimulateAnswer, { status: 'pending' }>;
export type Evidence = SimulateResult['evidence'][number];
export type Analysis = SimulateResult['analysis'];
/** What to know before trusting an answer (`unlabelled_speakers`: evidence from a file that names no speakers). */
export type AnswerWarning = SimulateResult['warnings'][number];
export type Simulation = ResponseOf<'/simulations/{simulationId}', 'get'>['simulation'];
export type SimulationWithMessages = ResponseOf<'/simulations/{simulationId}', 'get'>;
export type ListSimulationsQuery = QueryOf<'/simulations', 'get'>;
export type ShareInput = BodyOf<'/simulations/{simulationId}/share', 'post'>;
export type Model = ResponseOf<'/models', 'get'>['models'][number];
export type User = ResponseOf<'/users', 'get'>['users'][number];
export type Usage = ResponseOf<'/usage', 'get'>;
/** A mind with its memory bank, format `mindprint.mind.v1` (GET /minds/{mindId}/export). */
export type MindBundle = components['schemas']['MindBundle'];
export type ImportedMind = ResponseOf<'/minds/import', 'post'>['imported'];
/** The media type of a mind bundle. */
export const MIND_BUNDLE_MEDIA_TYPE = 'application/vnd.mindprint.mind+json';
export type Webhook = ResponseOf<'/webhooks/{webhookId}', 'get'>['webhook'];
export type CreatedWebhook = ResponseOf<'/webhooks', 'post'>;
export type CreateWebhookInput = BodyOf<'/webhooks', 'post'>;
export type UpdateWebhookInput = BodyOf<'/webhooks/{webhookId}', 'patch'>;
export type WebhookDelivery = ResponseOf<'/webhooks/{webhookId}/deliveries', 'get'>['deliveries'][number];
export type WebhookEventType = Webhook['events'][number];

/** The events of `POST /simulate` with `stream: true`, in order: start, delta…, then done or error. */
export type SimulateStreamEvent =
  | { event: 'start'; data: { simulationId: string; conversationId: string; messageId: string } }
  | { event: 'delta'; data: { text: string } }
  | { event: 'done'; data: { message: string; evidence: Evidence[]; analysis: Analysis; model: string; warnings: AnswerWarning[] } }
  | { event: 'error'; data: { error: string; code: string } };

/** A non-2xx answer: `status` is the HTTP status, `code` and `message` come from the error body. */
export class MindprintApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The parsed error body (or its text when it was not JSON). */
  readonly body: unknown;
  constructor(status: number, code: string, message: string, body: unknown) {
    super(message);
    this.name = 'MindprintApiError';
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

/**
 * No answer at all: the service could not be reached (connection refused, unknown host, reset,
 * TLS failure). fetch reports all of these as a bare `TypeError: fetch failed` whose reason is
 * hidden in its `cause`; this names the URL and the reason (`ECONNREFUSED`, or the cause's
 * message) and keeps fetch's error as `cause`. A request cancelled through its signal still throws
 * the AbortError (or TimeoutError) of the signal.
 */
export class MindprintConnectionError extends Error {
  /** The URL of the request that got no answer. */
  readonly url: string;
  /** Why: the system error code (`ECONNREFUSED`, `ENOTFOUND`, …) or the cause's message. */
  readonly reason: string;
  constructor(url: string, cause: unknown) {
    const inner = (cause as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
    const reason = String(inner?.code ?? inner?.message ?? (cause instanceof Error ? cause.message : cause));
    super(`could not reach Mindprint at ${url}: ${reason}`, { cause });
    this.name = 'MindprintConnectionError';
    this.url = url;
    this.reason = reason;
  }
}

/** fetch, with a network failure (a TypeError from fetch) thrown as MindprintConnectionError. */
async function fetchOrExplain(fetchImpl: typeof globalThis.fetch, url: URL | string, init: RequestInit): Promise<Response> {
  try {
    return await fetchImpl(url, init);
  } catch (err) {
    if (err instanceof TypeError) throw new MindprintConnectionError(String(url), err);
    throw err;
  }
}

/** A snapshot that failed processing, or did not finish within the wait. */
export class SnapshotWaitError extends Error {
  readonly reason: 'failed' | 'timeout';
  readonly status: SnapshotStatus;
  constructor(reason: 'failed' | 'timeout', status: SnapshotStatus, message: string) {
    super(message);
    this.name = 'SnapshotWaitError';
    this.reason = reason;
    this.status = status;
  }
}

export interface MindprintClientOptions {
  /** Origin of the service (`http://127.0.0.1:3000`) or origin plus base path (`…/api/svc`). */
  baseUrl: string;
  apiKey: string;
  /** Base path, when `baseUrl` is only the origin. Default `/api/svc`. */
  basePath?: string;
  fetch?: typeof globalThis.fetch;
}

export interface UploadSnapshotInput {
  /** A file path (string or file: URL), or the bytes. */
  file: string | URL | Uint8Array | Blob;
  /** Name sent with the bytes (default: the path's base name, else "transcript"). */
  fileName?: string;
  /** ISO date or date-time of the conversation (default now). */
  mindsetDate?: string;
  /** The speaker label that is this mind (default: matched by the mind's name). */
  speaker?: string;
  digitalTwinId?: string;
}

export interface SnapshotFromArtifactInput {
  /** An artifact uploaded through a signed URL (getSignedUploadUrl, then uploadToSignedUrl). */
  artifactId: string;
  mindsetDate?: string;
  speaker?: string;
  digitalTwinId?: string;
}

export interface WaitForSnapshotOptions {
  /** Give up after this long (default 10 minutes). */
  timeoutMs?: number;
  /** Time between status polls (default 250 ms). */
  intervalMs?: number;
  /** Called with every status read, including the last. */
  onProgress?: (status: SnapshotStatus) => void;
  signal?: AbortSignal;
}

interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Send `body` (a string, Blob or bytes) as it is, with this content type, instead of as JSON. */
  contentType?: string;
  signal?: AbortSignal;
  accept?: string;
}

const enc = encodeURIComponent;

export class MindprintClient {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: typeof globalThis.fetch;

  constructor(opts: MindprintClientOptions) {
    if (!opts.baseUrl) throw new TypeError('MindprintClient: baseUrl is required');
    if (!opts.apiKey) throw new TypeError('MindprintClient: apiKey is required');
    const url = new URL(opts.baseUrl);
    const basePath = (opts.basePath ?? '/api/svc').replace(/\/+$/, '');
    let pathname = url.pathname.replace(/\/+$/, '');
    if (!pathname.endsWith(basePath)) pathname += basePath;
    this.baseUrl = `${url.origin}${pathname}`;
    this.#apiKey = opts.apiKey;
    this.#fetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Sends a request and throws MindprintApiError on a non-2xx answer; returns the response. */
  async raw(method: string, p: string, opts: RequestOptions = {}): Promise<Response> {
    const url = new URL(this.baseUrl + p);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { authorization: `Bearer ${this.#apiKey}`, accept: opts.accept ?? 'application/json' };
    let body: BodyInit | undefined;
    if (opts.body instanceof FormData) body = opts.body;
    else if (opts.contentType !== undefined) {
      body = opts.body instanceof Uint8Array ? new Blob([new Uint8Array(opts.body)]) : (opts.body as BodyInit);
      headers['content-type'] = opts.contentType;
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetchOrExplain(this.#fetch, url, { method, headers, body, signal: opts.signal });
    if (!res.ok) throw await apiError(res);
    return res;
  }

  async request<T>(method: string, p: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.raw(method, p, opts);
    return (await res.json()) as T;
  }

  // ── minds ────────────────────────────────────────────────────────────────
  listMinds(query: QueryOf<'/minds', 'get'> = {}): Promise<ResponseOf<'/minds', 'get'>> {
    return this.request('GET', '/minds', { query });
  }
  createMind(input: CreateMindInput): Promise<ResponseOf<'/minds', 'post'>> {
    return this.request('POST', '/minds', { body: input });
  }
  getMind(mindId: string): Promise<ResponseOf<'/minds/{mindId}', 'get'>> {
    return this.request('GET', `/minds/${enc(mindId)}`);
  }
  updateMind(mindId: string, input: UpdateMindInput): Promise<ResponseOf<'/minds/{mindId}', 'put'>> {
    return this.request('PUT', `/minds/${enc(mindId)}`, { body: input });
  }
  deleteMind(mindId: string): Promise<ResponseOf<'/minds/{mindId}', 'delete'>> {
    return this.request('DELETE', `/minds/${enc(mindId)}`);
  }
  /** Best match first; at most `limit` (default 50, at most 200). */
  searchMinds(query: string, opts: Omit<QueryOf<'/minds/search', 'get'>, 'query'> = {}): Promise<ResponseOf<'/minds/search', 'get'>> {
    return this.request('GET', '/minds/search', { query: { ...opts, query } });
  }

  // ── tags ─────────────────────────────────────────────────────────────────
  listTags(): Promise<ResponseOf<'/tags', 'get'>> {
    return this.request('GET', '/tags');
  }
  renameTag(tagId: string, name: string): Promise<ResponseOf<'/tags/{tagId}', 'put'>> {
    return this.request('PUT', `/tags/${enc(tagId)}`, { body: { name } });
  }
  deleteTag(tagId: string): Promise<ResponseOf<'/tags/{tagId}', 'delete'>> {
    return this.request('DELETE', `/tags/${enc(tagId)}`);
  }
  setMindTags(mindId: string, tagNames: BodyOf<'/minds/{mindId}/tags', 'put'>['tagNames']): Promise<ResponseOf<'/minds/{mindId}/tags', 'put'>> {
    return this.request('PUT', `/minds/${enc(mindId)}/tags`, { body: { tagNames } });
  }

  // ── snapshots ────────────────────────────────────────────────────────────
  /** Uploads a transcript (multipart `file`) and queues its processing; answers with the snapshot id (`mindAssessmentId`). */
  async uploadSnapshot(mindId: string, input: UploadSnapshotInput): Promise<CreatedSnapshot> {
    let blob: Blob;
    let fileName = input.fileName;
    if (typeof input.file === 'string' || input.file instanceof URL) {
      const [{ readFile }, path, { fileURLToPath }] = await Promise.all([import('node:fs/promises'), import('node:path'), import('node:url')]);
      const filePath = input.file instanceof URL ? fileURLToPath(input.file) : input.file;
      blob = new Blob([await readFile(filePath)]);
      fileName ??= path.basename(filePath);
    } else if (input.file instanceof Blob) {
      blob = input.file;
    } else {
      // A copy: the view may sit on a SharedArrayBuffer, which Blob does not take.
      blob = new Blob([new Uint8Array(input.file)]);
    }
    const form = new FormData();
    // The service detects the type from the bytes; the name is kept for the record.
    form.append('file', blob, fileName ?? 'transcript');
    if (input.mindsetDate !== undefined) form.append('mindsetDate', input.mindsetDate);
    if (input.speaker !== undefined) form.append('speaker', input.speaker);
    if (input.digitalTwinId !== undefined) form.append('digitalTwinId', input.digitalTwinId);
    return this.request('POST', `/minds/${encodeURIComponent(mindId)}/snapshots`, { body: form });
  }
  /** Creates a snapshot from an artifact already uploaded through a signed URL. */
  createSnapshotFromArtifact(mindId: string, input: SnapshotFromArtifactInput): Promise<CreatedSnapshot> {
    const form = new FormData();
    for (const [field, value] of Object.entries(input)) if (value !== undefined) form.append(field, value);
    return this.request('POST', `/minds/${encodeURIComponent(mindId)}/snapshots`, { body: form });
  }

  /** Creates an artifact and a URL to PUT its bytes to once, with this content type, before `expiresAt`. */
  getSignedUploadUrl(mindId: string, query: QueryOf<'/minds/{mindId}/signed-url', 'get'>): Promise<SignedUploadUrl> {
    return this.request('GET', `/minds/${encodeURIComponent(mindId)}/signed-url`, { query });
  }

  /**
   * PUTs the bytes to a signed upload URL (as `signedUrl` gives it: the URL is the credential, no
   * API key is sent). A Blob from `fs.openAsBlob` is streamed from disk, not read into memory.
   */
  async uploadToSignedUrl(signedUrl: string, body: Blob | Uint8Array | string, contentType: string, opts: { signal?: AbortSignal } = {}): Promise<SignedUpload> {
    const payload = body instanceof Uint8Array ? new Blob([new Uint8Array(body)]) : body;
    const res = await fetchOrExplain(this.#fetch, signedUrl, { method: 'PUT', headers: { 'content-type': contentType }, body: payload, signal: opts.signal });
    if (!res.ok) throw await apiError(res);
    return (await res.json()) as SignedUpload;
  }

  listSnapshots(mindId: string): Promise<ResponseOf<'/minds/{mindId}/snapshots', 'get'>> {
    return this.request('GET', `/minds/${enc(mindId)}/snapshots`);
  }
  getSnapshotStatus(mindId: string, snapshotId: string, signal?: AbortSignal): Promise<SnapshotStatus> {
    return this.request('GET', `/minds/${enc(mindId)}/snapshots/${enc(snapshotId)}/status`, { signal });
  }
  getSnapshot(mindId: string, snapshotId: string, opts: QueryOf<'/minds/{mindId}/snapshots/{snapshotId}', 'get'> = {}): Promise<SnapshotDetails> {
    return this.request('GET', `/minds/${enc(mindId)}/snapshots/${enc(snapshotId)}`, { query: opts });
  }
  deleteSnapshot(mindId: string, snapshotId: string): Promise<ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}', 'delete'>> {
    return this.request('DELETE', `/minds/${enc(mindId)}/snapshots/${enc(snapshotId)}`);
  }
  /** The speaker labels of a snapshot's file with their words and sample lines, and which one is the mind. */
  listSnapshotSpeakers(mindId: string, snapshotId: string): Promise<SnapshotSpeakers> {
    return this.request('GET', `/minds/${enc(mindId)}/snapshots/${enc(snapshotId)}/speakers`);
  }
  /**
   * Makes another speaker label of the file the mind (matched ignoring case, by prefix or name) and
   * processes the snapshot again; follow it with waitForSnapshot when `reprocessing` is true.
   */
  setSnapshotSpeaker(mindId: string, snapshotId: string, speaker: string): Promise<SetSpeakerResult> {
    return this.request('PUT', `/minds/${enc(mindId)}/snapshots/${enc(snapshotId)}/speaker`, { body: { speaker } });
  }
  linkSnapshot(mindId: string, snapshotId: string, linked = true): Promise<ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}/link', 'post'>> {
    return this.request('POST', `/minds/${enc(mindId)}/snapshots/${enc(snapshotId)}/${linked ? 'link' : 'unlink'}`);
  }

  /**
   * Polls the snapshot's status until it is `completed` (resolves with that status). Throws
   * SnapshotWaitError when it `failed` (reason "failed", with the service's error) or is still
   * unfinished after `timeoutMs` (reason "timeout").
   */
  async waitForSnapshot(mindId: string, snapshotId: string, opts: WaitForSnapshotOptions = {}): Promise<SnapshotStatus> {
    const timeoutMs = opts.timeoutMs ?? 600_000;
    const intervalMs = opts.intervalMs ?? 250;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      opts.signal?.throwIfAborted();
      const status = await this.getSnapshotStatus(mindId, snapshotId, opts.signal);
      opts.onProgress?.(status);
      if (status.status === 'completed') return status;
      if (status.status === 'failed') throw new SnapshotWaitError('failed', status, `Snapshot ${snapshotId} failed: ${status.error ?? 'no reason given'}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new SnapshotWaitError('timeout', status, `Snapshot ${snapshotId} is still ${status.status} after ${timeoutMs} ms`);
      await sleep(Math.min(intervalMs, left), opts.signal);
    }
  }

  getPsychometrics(mindId: string, snapshotId: string): Promise<ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}/psychometrics', 'get'>> {
    return this.request('GET', `/minds/${enc(mindId)}/snapshots/${enc(snapshotId)}/psychometrics`);
  }
  getTopics(mindId: string, snapshotId: string): Promise<ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}/topic-analysis', 'get'>> {
    return this.request('GET', `/minds/${enc(mindId)}/snapshots/${enc(snapshotId)}/topic-analysis`);
  }
  getFindings(mindId: string, snapshotId: string): Promise<ResponseOf<'/minds/{mindId}/snapshots/{snapshotId}/findings', 'get'>> {
    return this.request('GET', `/minds/${enc(mindId)}/snapshots/${enc(snapshotId)}/findings`);
  }
  getProfile(mindId: string): Promise<MindProfile> {
    return this.request('GET', `/minds/${enc(mindId)}/profile`);
  }
  /** How faithfully the mind answers, measured on its own conversations held out in turn (status pending, ready or insufficient). */
  getMindFidelity(mindId: string): Promise<MindFidelity> {
    return this.request('GET', `/minds/${enc(mindId)}/fidelity`);
  }

  // ── export and import ────────────────────────────────────────────────────
  /** The mind as a bundle (format `mindprint.mind.v1`), parsed; `artifacts` adds the original files (base64). */
  async exportMind(mindId: string, opts: { artifacts?: boolean; signal?: AbortSignal } = {}): Promise<MindBundle> {
    return (await (await this.exportMindResponse(mindId, opts)).json()) as MindBundle;
  }
  /** The export as the service streams it: write `res.body` to a file without holding the bundle in memory. */
  exportMindResponse(mindId: string, opts: { artifacts?: boolean; signal?: AbortSignal } = {}): Promise<Response> {
    return this.raw('GET', `/minds/${enc(mindId)}/export`, { query: { artifacts: opts.artifacts || undefined }, accept: MIND_BUNDLE_MEDIA_TYPE, signal: opts.signal });
  }
  /**
   * Creates a new mind in the key's organization from a bundle: the parsed bundle, or its text or
   * bytes as read from a file (gzipped or not). Its snapshots are completed at once; the semantic
   * index is built in the background.
   */
  async importMind(bundle: MindBundle | string | Uint8Array | Blob, opts: { signal?: AbortSignal } = {}): Promise<ImportedMind> {
    const body = typeof bundle === 'string' || bundle instanceof Uint8Array || bundle instanceof Blob ? bundle : JSON.stringify(bundle);
    const res = await this.request<ResponseOf<'/minds/import', 'post'>>('POST', '/minds/import', { body, contentType: MIND_BUNDLE_MEDIA_TYPE, signal: opts.signal });
    return res.imported;
  }

  // ── simulations ──────────────────────────────────────────────────────────
  /** Runs a simulation and waits for the whole answer. */
  simulate(input: SimulateInput, opts: { signal?: AbortSignal } = {}): Promise<SimulateResult> {
    return this.request('POST', '/simulate', { body: { ...input, stream: false, runInBackground: false }, signal: opts.signal });
  }

  /** Queues a simulation for a worker; follow it with getSimulation. */
  simulateInBackground(input: SimulateInput): Promise<QueuedSimulation> {
    return this.request('POST', '/simulate', { body: { ...input, runInBackground: true } });
  }

  /**
   * Runs a simulation as a stream: yields `start`, then `delta` pieces (concatenated they are
   * the answer), then `done` with the whole answer and its evidence — or `error` instead of
   * `done` when the run failed. Stopping the iteration early (break, or the signal) closes the
   * connection, which cancels the generation on the server.
   */
  async *simulateStream(input: SimulateInput, opts: { signal?: AbortSignal } = {}): AsyncGenerator<SimulateStreamEvent> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await this.raw('POST', '/simulate', { body: { ...input, stream: true }, signal: controller.signal, accept: 'text/event-stream' });
      if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        throw new MindprintApiError(res.status, 'UNEXPECTED_RESPONSE', `Expected text/event-stream, got ${res.headers.get('content-type') ?? 'no content type'}`, await res.text().catch(() => null));
      }
      const messages = parseEventStream(res.body, controller.signal);
      for await (const msg of messages) {
        if (msg.event !== 'start' && msg.event !== 'delta' && msg.event !== 'done' && msg.event !== 'error') continue;
        let data: unknown;
        try {
          data = JSON.parse(msg.data);
        } catch {
          throw new MindprintApiError(res.status, 'UNEXPECTED_RESPONSE', `Event "${msg.event}" carried data that is not JSON`, msg.data);
        }
        if (msg.event === 'done' || msg.event === 'error') {
          // The service ends the stream right after its last event: read it to the end before
          // handing that event over, so the abort below finds a finished response instead of
          // cutting one the consumer has stopped reading (a browser logs that as net::ERR_ABORTED).
          await readToEnd(messages, STREAM_END_WAIT_MS);
          yield { event: msg.event, data } as SimulateStreamEvent;
          return;
        }
        yield { event: msg.event, data } as SimulateStreamEvent;
      }
      throw new MindprintApiError(res.status, 'STREAM_ENDED', 'The event stream ended without a done or error event', null);
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      // Leaving early (break/return/throw) closes the connection: the server stops generating.
      controller.abort();
    }
  }

  listSimulations(query: ListSimulationsQuery = {}): Promise<ResponseOf<'/simulations', 'get'>> {
    return this.request('GET', '/simulations', { query });
  }
  getSimulation(simulationId: string): Promise<SimulationWithMessages> {
    return this.request('GET', `/simulations/${enc(simulationId)}`);
  }
  deleteSimulation(simulationId: string): Promise<ResponseOf<'/simulations/{simulationId}', 'delete'>> {
    return this.request('DELETE', `/simulations/${enc(simulationId)}`);
  }
  shareSimulation(simulationId: string, input: ShareInput): Promise<ResponseOf<'/simulations/{simulationId}/share', 'post'>> {
    return this.request('POST', `/simulations/${enc(simulationId)}/share`, { body: input });
  }
  unshareSimulation(simulationId: string, userId: string): Promise<ResponseOf<'/simulations/{simulationId}/share/{userId}', 'delete'>> {
    return this.request('DELETE', `/simulations/${enc(simulationId)}/share/${enc(userId)}`);
  }

  // ── models, users, usage ─────────────────────────────────────────────────
  listModels(): Promise<ResponseOf<'/models', 'get'>> {
    return this.request('GET', '/models');
  }
  listUsers(): Promise<ResponseOf<'/users', 'get'>> {
    return this.request('GET', '/users');
  }
  getUsage(query: QueryOf<'/usage', 'get'> = {}): Promise<Usage> {
    return this.request('GET', '/usage', { query });
  }

  // ── webhooks ─────────────────────────────────────────────────────────────
  /** Registers an endpoint for events; the signing secret (`whsec_…`) is in this answer only. */
  createWebhook(input: CreateWebhookInput): Promise<CreatedWebhook> {
    return this.request('POST', '/webhooks', { body: input });
  }
  listWebhooks(): Promise<ResponseOf<'/webhooks', 'get'>> {
    return this.request('GET', '/webhooks');
  }
  getWebhook(webhookId: string): Promise<ResponseOf<'/webhooks/{webhookId}', 'get'>> {
    return this.request('GET', `/webhooks/${enc(webhookId)}`);
  }
  updateWebhook(webhookId: string, input: UpdateWebhookInput): Promise<ResponseOf<'/webhooks/{webhookId}', 'patch'>> {
    return this.request('PATCH', `/webhooks/${enc(webhookId)}`, { body: input });
  }
  deleteWebhook(webhookId: string): Promise<ResponseOf<'/webhooks/{webhookId}', 'delete'>> {
    return this.request('DELETE', `/webhooks/${enc(webhookId)}`);
  }
  /** Newest first; `limit` default 20 (at most 100), `offset`; `count` is the total. */
  listWebhookDeliveries(webhookId: string, query: QueryOf<'/webhooks/{webhookId}/deliveries', 'get'> = {}): Promise<ResponseOf<'/webhooks/{webhookId}/deliveries', 'get'>> {
    return this.request('GET', `/webhooks/${enc(webhookId)}/deliveries`, { query });
  }
  /** Sends a signed `webhook.test` message now; answers with the delivery as it ended (one attempt). */
  testWebhook(webhookId: string): Promise<ResponseOf<'/webhooks/{webhookId}/test', 'post'>> {
    return this.request('POST', `/webhooks/${enc(webhookId)}/test`);
  }
}

/** How long a stream may stay open after its last event before it is cut anyway. */
const STREAM_END_WAIT_MS = 2_000;

/** Reads what is left of an event stream (nothing, normally) until it ends, for at most `ms`. */
async function readToEnd(messages: AsyncIterator<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<{ done: true }>((resolve) => (timer = setTimeout(() => resolve({ done: true }), ms)));
  try {
    for (;;) {
      const next = messages.next();
      // Left pending when the wait runs out; the abort that follows settles it.
      next.catch(() => {});
      if ((await Promise.race([next, timeout])).done) return;
    }
  } catch {
    // The stream failed after its last event: nothing of it is lost.
  } finally {
    clearTimeout(timer);
  }
}

async function apiError(res: Response): Promise<MindprintApiError> {
  const text = await res.text().catch(() => '');
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  const b = (body && typeof body === 'object' ? body : {}) as { code?: unknown; message?: unknown; error?: unknown };
  const code = typeof b.code === 'string' ? b.code : `HTTP_${res.status}`;
  const message =
    typeof b.message === 'string' ? b.message : typeof b.error === 'string' ? b.error : `${res.status} ${res.statusText}${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`;
  return new MindprintApiError(res.status, code, message, body);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(t);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
