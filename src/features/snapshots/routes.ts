import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.ts';
import { DomainError } from '../../platform/errors.ts';
import { publicBaseUrl } from '../../platform/http/public-url.ts';
import { ErrorResponse, errorResponses, Uuid } from '../../platform/http/schemas.ts';
import { MindParams } from '../minds/index.ts';
import { CreateSnapshotForm, CreateSnapshotResponse, Finding, KeyTopic, Psychometric, SetSpeakerBody, SetSpeakerResponse, SignedUrlQuery, SignedUrlResponse, Snapshot, SnapshotDetails, SnapshotParams, SnapshotSpeakers, SnapshotStatusObject, UPLOAD_CONTENT_TYPES_DOC, UploadBytes, UploadReceived } from './schemas.ts';
import * as service from './service.ts';
import { createSignedUrl, receiveSignedUpload } from './signed-upload.ts';
import { createSnapshot, type SnapshotForm } from './upload.ts';
import { listSpeakers, setSpeaker } from './speakers.ts';
import { assertHasContent, spoolToTempFile, tmpDir } from './spool.ts';

const FORM_FIELDS = new Set(['artifactId', 'mindsetDate', 'digitalTwinId', 'speaker']);

/** The boundary= of a multipart Content-Type, for messages (at most the 70 characters RFC 2046 allows). */
function boundaryOf(req: FastifyRequest): string | null {
  const m = /;\s*boundary=("?)([^";]*)\1/i.exec(String(req.headers['content-type'] ?? ''));
  return m ? m[2]!.slice(0, 70) : null;
}

/**
 * What is wrong with a malformed multipart body, from the error the multipart parser (busboy)
 * raised: it raises plain Errors, which would otherwise be 500s. Null for any other error.
 */
function malformedMultipart(err: unknown, req: FastifyRequest): DomainError | null {
  if (err instanceof DomainError || !(err instanceof Error) || (err as { statusCode?: number }).statusCode !== undefined) return null;
  const message = err.message;
  if (/boundary not found/i.test(message)) {
    return new DomainError('VALIDATION_FAILED', 'The multipart/form-data Content-Type has no boundary= parameter: send "Content-Type: multipart/form-data; boundary=…" with the boundary that delimits the parts', { field: 'content-type' });
  }
  if (/unexpected end of (multipart )?data|part terminated early/i.test(message)) {
    const boundary = boundaryOf(req);
    return new DomainError(
      'VALIDATION_FAILED',
      `The multipart body ended before its closing boundary: it is truncated, or its parts are not delimited by the Content-Type's boundary${boundary ? ` ("--${boundary}")` : ''}`,
      { field: 'body' },
    );
  }
  if (/malformed|header|multipart/i.test(message)) return new DomainError('VALIDATION_FAILED', `The multipart body is malformed: ${message}`, { field: 'body' });
  return null;
}

/** Reads the multipart form: the file is spooled to a temp file (size-limited), fields collected. */
async function readForm(req: FastifyRequest, ctx: Deps): Promise<SnapshotForm> {
  if (!req.isMultipart()) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send multipart/form-data with a "file" part (or an "artifactId" field)');
  const form: SnapshotForm = { file: null, fields: {} };
  try {
    for await (const part of req.parts()) {
      // A part whose Content-Disposition has no name="…" (busboy reports the name as undefined).
      if (typeof part.fieldname !== 'string' || part.fieldname === '' || part.fieldname === 'undefined') {
        throw new DomainError('VALIDATION_FAILED', 'A multipart part has no name: every part needs "Content-Disposition: form-data; name=…" (the transcript goes in "file")', { field: 'body' });
      }
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw new DomainError('VALIDATION_FAILED', `Unexpected file part "${part.fieldname}"; the transcript goes in "file"`, { field: part.fieldname });
        // A second file part never gets here: the `files: 1` limit refuses it (400, src/platform/http/errors.ts).
        const spooled = await spoolToTempFile(part.file, tmpDir(ctx), ctx.config.maxUploadBytes);
        form.file = { ...spooled, fileName: part.filename || 'transcript' };
        assertHasContent(spooled);
      } else {
        if (!FORM_FIELDS.has(part.fieldname)) throw new DomainError('VALIDATION_FAILED', `Unknown field "${part.fieldname}"`, { field: part.fieldname });
        form.fields[part.fieldname] = String(part.value);
      }
    }
  } catch (err) {
    await form.file?.remove();
    throw malformedMultipart(err, req) ?? err;
  }
  return form;
}

export const snapshotRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;
  const tags = ['Snapshots'];
  await app.register(multipart, {
    limits: { fileSize: deps.config.maxUploadBytes, files: 1, fields: 10, fieldSize: 10_000, parts: 12 },
  });

  app.post('/minds/:mindId/snapshots', {
    schema: {
      tags,
      summary: 'Create a memory bank snapshot',
      description:
        'multipart/form-data with `file` (WebVTT, DOCX, PDF, SRT or plain-text transcript; the type is detected from the content) **or** `artifactId` ' +
        '(uploaded through a signed URL), and optionally `mindsetDate` (ISO 8601 date or date-time, default now; a date is midnight UTC, a date-time without ' +
        'a zone is UTC, and a date that is not on the calendar such as 2021-02-30 is a 400), `digitalTwinId` (default twin), ' +
        '`speaker` (the speaker label that is this mind; otherwise matched by the mind’s name, else the speaker with the most words). ' +
        `Answers as soon as the file is stored and processing is queued. Files over MINDPRINT_MAX_UPLOAD_MB (default 50) → 413; ` +
        'an artifact whose upload is still being received or checked → 409. ' +
        'Beside the spec’s `message`, `mindAssessmentId` and `artifactId`, the answer says what can be told of the file’s speakers before it is processed ' +
        '(`speakersLabelled`, `speakerWarning`: an auto-caption track names no speakers, so every voice in it would count as the mind); ' +
        'the status answer says it for every file once processed. `speaker` is matched ignoring case, by a unique prefix or by name; ' +
        'a label it does not name, or names ambiguously, is a 400 listing the file’s `speakers` (and the `candidates`).',
      consumes: ['multipart/form-data'],
      requestBodyDoc: { content: { 'multipart/form-data': { schema: CreateSnapshotForm } } },
      params: MindParams,
      response: { 200: CreateSnapshotResponse, ...errorResponses(404, 409, 413, 415) },
    },
  }, async (req) => {
    const form = await readForm(req, deps);
    try {
      return await createSnapshot(deps, req.caller, req.params.mindId, form);
    } finally {
      await form.file?.remove();
    }
  });

  app.get('/minds/:mindId/snapshots', {
    schema: { tags, summary: 'List snapshots of a mind', description: 'Newest `mindsetDate` first. Each row names its file, the speaker taken to be the mind and their words, and flags a file that names no speakers (`speakersLabelled: false`, `speakerWarning`).', params: MindParams, response: { 200: Type.Object({ snapshots: Type.Array(Snapshot), count: Type.Number() }), ...errorResponses(404) } },
  }, async (req) => service.listSnapshots(db, req.caller, req.params.mindId));

  app.get('/minds/:mindId/snapshots/:snapshotId/status', {
    schema: { tags, summary: 'Snapshot processing status', description: 'pending → processing → completed | failed; `error` says why a snapshot failed. Beside the spec’s fields: once processed, `mindSpeaker` (the label taken to be the mind), `speakersLabelled` and `speakerWarning` (false / a sentence when the file names no speakers, so every voice in it counts as the mind).', params: SnapshotParams, response: { 200: SnapshotStatusObject, ...errorResponses(404) } },
  }, async (req) => service.snapshotStatus(db, req.caller, req.params.mindId, req.params.snapshotId));

  app.get('/minds/:mindId/snapshots/:snapshotId', {
    schema: {
      tags,
      summary: 'Snapshot details',
      description: 'The snapshot with its artifact, speakers and attribution; `includeTranscript=true` adds the parsed turns, `includePsychometrics=true` the psychometrics.',
      params: SnapshotParams,
      querystring: Type.Object({ includeTranscript: Type.Optional(Type.Boolean()), includePsychometrics: Type.Optional(Type.Boolean()) }),
      response: { 200: SnapshotDetails, ...errorResponses(404) },
    },
  }, async (req) => service.snapshotDetails(db, req.caller, req.params.mindId, req.params.snapshotId, req.query) as never);

  app.get('/minds/:mindId/snapshots/:snapshotId/speakers', {
    schema: {
      tags,
      summary: 'Speakers of a snapshot',
      description:
        'The speaker labels of the snapshot’s file, in order of first appearance, with their turns, words and up to three of their lines, and which one is the mind. ' +
        'A failed snapshot’s labels are read from its file again (no counts or lines). 409 while the snapshot is pending or processing.',
      params: SnapshotParams,
      response: { 200: SnapshotSpeakers, ...errorResponses(404, 409) },
    },
  }, async (req) => listSpeakers(deps, req.caller, req.params.mindId, req.params.snapshotId));

  app.put('/minds/:mindId/snapshots/:snapshotId/speaker', {
    schema: {
      tags,
      summary: 'Choose the mind’s speaker of a snapshot',
      description:
        'Re-attributes the snapshot to another speaker label of its file (matched ignoring case, by a unique prefix such as "Lenny" → "Lenny Rachitsky", or by name) and processes it again: ' +
        'it goes back to `pending`, its memory and analysis are replaced when it completes (follow it with …/status). The label that already is the mind’s changes nothing (`reprocessing: false`). ' +
        'Works on completed and failed snapshots; 409 while it is pending or processing. A label the file does not have, or an ambiguous one, is a 400 listing the `speakers` (and `candidates`).',
      params: SnapshotParams,
      body: SetSpeakerBody,
      response: { 200: SetSpeakerResponse, ...errorResponses(404, 409) },
    },
  }, async (req) => setSpeaker(deps, req.caller, req.params.mindId, req.params.snapshotId, req.body.speaker));

  app.delete('/minds/:mindId/snapshots/:snapshotId', {
    schema: { tags, summary: 'Delete a snapshot', description: 'Its turns and analysis are deleted, and its stored file when no other snapshot uses it.', params: SnapshotParams, response: { 200: Type.Object({ message: Type.String(), snapshotId: Uuid }), ...errorResponses(404) } },
  }, async (req) => service.deleteSnapshot(deps, req.caller, req.params.mindId, req.params.snapshotId));

  for (const [action, linked] of [['link', true], ['unlink', false]] as const) {
    app.post(`/minds/:mindId/snapshots/:snapshotId/${action}`, {
      schema: {
        tags,
        summary: linked ? 'Link a snapshot' : 'Unlink a snapshot',
        description: linked ? 'The snapshot feeds the mind’s simulations and profile again.' : 'The snapshot is kept but no longer feeds the mind’s simulations or aggregate profile.',
        params: SnapshotParams,
        response: { 200: Type.Object({ message: Type.String(), snapshot: Snapshot }), ...errorResponses(404) },
      },
    }, async (req) => service.setLinked(db, req.caller, req.params.mindId, req.params.snapshotId, linked));
  }

  app.get('/minds/:mindId/snapshots/:snapshotId/psychometrics', {
    schema: { tags: ['Analysis'], summary: 'Psychometrics of a snapshot', description: 'Big Five (instrument big_five), communication style and emotions, each with evidence turns; with an LLM configured also ipip-bfm-50 (the LLM answering the 50-item IPIP Big-Five markers in character, scored with the published key — not the person’s own answers). See src/lib/analysis/README.md for definitions.', params: SnapshotParams, response: { 200: Type.Object({ psychometrics: Type.Array(Psychometric) }), ...errorResponses(404) } },
  }, async (req) => ({ psychometrics: await service.snapshotPsychometrics(db, req.caller, req.params.mindId, req.params.snapshotId) }));

  app.get('/minds/:mindId/snapshots/:snapshotId/topic-analysis', {
    schema: { tags: ['Analysis'], summary: 'Key topics of a snapshot', params: SnapshotParams, response: { 200: Type.Object({ keyTopics: Type.Array(KeyTopic) }), ...errorResponses(404) } },
  }, async (req) => ({ keyTopics: await service.snapshotTopics(db, req.caller, req.params.mindId, req.params.snapshotId) }));

  app.get('/minds/:mindId/snapshots/:snapshotId/findings', {
    schema: { tags: ['Analysis'], summary: 'Findings of a snapshot', description: 'What the person states about themselves and the world, quoted from their own turns.', params: SnapshotParams, response: { 200: Type.Object({ findings: Type.Array(Finding) }), ...errorResponses(404) } },
  }, async (req) => ({ findings: await service.snapshotFindings(db, req.caller, req.params.mindId, req.params.snapshotId) }));

  app.get('/minds/:mindId/signed-url', {
    schema: {
      tags,
      summary: 'Get a signed URL to upload a transcript',
      description: 'Creates an artifact and a URL to PUT its raw bytes to (with the same Content-Type), valid for one hour and one upload. Then create the snapshot with `artifactId`.',
      params: MindParams,
      querystring: SignedUrlQuery,
      response: { 200: SignedUrlResponse, ...errorResponses(404) },
    },
  }, async (req) => createSignedUrl(deps, req.caller, req.params.mindId, req.query, publicBaseUrl(req, deps.config)));
};

/** PUT /uploads/:token — outside the bearer-authenticated API: the signed token is the credential. */
export const uploadRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  // Leave the body unread: it is streamed to disk with the signed size limit.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));
  app.put('/uploads/:token', {
    schema: {
      tags: ['Snapshots'],
      summary: 'Upload a file to a signed URL',
      description: 'The raw file bytes, with the Content-Type the URL was signed for. 403 when the URL is tampered with, expired or already used, or its artifact or mind was deleted; 413 over the size limit; 400 when the content is not a supported transcript. Served at the root, not under the API base path (take the URL as `signedUrl` gives it).',
      security: [],
      // Outside the API base path that the document's `servers` names.
      servers: [{ url: '/' }],
      params: Type.Object({ token: Type.String({ maxLength: 4096 }) }),
      requestBodyDoc: { content: Object.fromEntries(UPLOAD_CONTENT_TYPES_DOC.map((type) => [type, { schema: UploadBytes }])) },
      // Outside the API: no key (so no 401 or 429), and any Content-Type is read (a wrong one is a 403).
      response: { 200: UploadReceived, 400: ErrorResponse, 403: ErrorResponse, 413: ErrorResponse, 414: ErrorResponse, 503: ErrorResponse },
    },
  }, async (req, reply) => {
    try {
      return await receiveSignedUpload(deps, req.params.token, req.headers['content-type'], req.raw);
    } catch (err) {
      // A refused upload may leave the body unread (over the limit, or refused before reading):
      // the rest would sit on a keep-alive connection, and the client's next request with it.
      // Close the connection after the answer instead of reading up to the rest of 50 MB for nothing.
      if (!req.raw.complete) reply.header('connection', 'close');
      throw err;
    }
  });
};
