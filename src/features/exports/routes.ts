import { Readable } from 'node:stream';
import { createGzip, gunzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Routes } from '../../deps.ts';
import { invalid, tooLarge } from '../../platform/errors.ts';
import { jsonBodyParser } from '../../platform/http/json-body.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { MindParams } from '../minds/index.ts';
import { exportMind } from './export.ts';
import { importMind } from './import.ts';
import { BUNDLE_FORMAT, BUNDLE_MEDIA_TYPE, ExportQuery, ImportResult, MindBundle } from './schemas.ts';

type Done = (err: Error | null, body?: unknown) => void;

/** Whether the request's Accept-Encoding takes gzip (`gzip`, `x-gzip` or `*`, with a q above 0). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const part of value.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name !== 'gzip' && name !== 'x-gzip' && name !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (!q || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

/**
 * The bundle's body parser: JSON (application/json or the bundle's media type) within the upload
 * size limit, also when gzipped (a `.json.gz` file, or Content-Encoding: gzip) — decompressed
 * within the same limit. A body that is not JSON (a file cut short) says where it broke.
 */
function bundleParser(app: FastifyInstance, limit: number) {
  const json = jsonBodyParser(app);
  const parse = (req: FastifyRequest, body: Buffer, done: Done) =>
    json(req, body, (err, value) => {
      if (err && (err as { code?: string }).code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
        let reason = 'it does not parse';
        try {
          JSON.parse(body.toString('utf8'));
        } catch (e) {
          reason = (e as Error).message;
        }
        return done(invalid(`The body is not a valid JSON mind bundle (${reason}); was the file cut short?`, { field: 'body' }));
      }
      done(err, value);
    });
  return (req: FastifyRequest, body: string | Buffer, done: Done) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return parse(req, bytes, done);
    gunzip(bytes, { maxOutputLength: limit }, (err, out) => {
      if (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return done(tooLarge(`The gzipped bundle decompresses to more than the upload size limit (MINDPRINT_MAX_UPLOAD_MB, ${Math.round(limit / 1024 / 1024)} MB)`));
        return done(invalid('The body starts like gzip but does not decompress (cut short?)', { field: 'body' }));
      }
      parse(req, out, done);
    });
  };
}

export const exportRoutes: Routes = async (app, { deps: ctx }) => {
  const tags = ['Minds'];
  const limit = ctx.config.maxUploadBytes;
  // This scope's routes only: a bundle may be as large as an upload, and may come gzipped.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(['application/json', BUNDLE_MEDIA_TYPE], { parseAs: 'buffer', bodyLimit: limit }, bundleParser(app, limit));

  app.get('/minds/:mindId/export', {
    schema: {
      tags,
      summary: 'Export a mind',
      description:
        `The mind as a bundle of format \`${BUNDLE_FORMAT}\` (\`${BUNDLE_MEDIA_TYPE}\`), for \`POST /minds/import\` here or on another server: ` +
        'the mind, its tags, its completed snapshots with their metadata, speaker turns, psychometrics, key topics and findings, and the name of the embedder of its semantic index (vectors are not shipped; import builds them again). ' +
        'Ids in the bundle are local to the file. With `artifacts=true` the original files are added (base64) while the bundle stays within the upload size limit; those left out are listed in `omittedArtifacts`. ' +
        'Streamed as it is read, gzipped when `Accept-Encoding` allows it.',
      params: MindParams,
      querystring: ExportQuery,
      response: {
        200: {
          description: 'The bundle (a download: `Content-Disposition: attachment`)',
          headers: { 'Content-Disposition': { type: 'string', description: 'attachment; filename="<slug>.mindprint.json"' } },
          content: { [BUNDLE_MEDIA_TYPE]: { schema: MindBundle } },
        },
        ...errorResponses(404),
      },
    },
  }, async (req, reply) => {
    const plan = await exportMind(ctx, req.caller, req.params.mindId, { artifacts: req.query.artifacts });
    const body = Readable.from(plan.chunks);
    reply.header('content-type', `${BUNDLE_MEDIA_TYPE}; charset=utf-8`);
    reply.header('content-disposition', `attachment; filename="${plan.slug.replace(/[^A-Za-z0-9._-]/g, '_') || 'mind'}.mindprint.json"`);
    reply.header('vary', 'accept-encoding');
    if (!acceptsGzip(req.headers['accept-encoding'])) return reply.send(body as never);
    reply.header('content-encoding', 'gzip');
    const gzip = createGzip();
    body.on('error', (err) => gzip.destroy(err));
    return reply.send(body.pipe(gzip) as never);
  });

  app.post('/minds/import', {
    bodyLimit: limit,
    schema: {
      tags,
      summary: 'Import a mind',
      description:
        `Creates a new mind in the caller's organization from a bundle of \`GET /minds/{mindId}/export\` (format \`${BUNDLE_FORMAT}\`), in one transaction, every id new. ` +
        'The snapshots are completed at once; their semantic index is built in the background with this server’s embedder. ' +
        'The body is the bundle as JSON (`application/json` or `' + BUNDLE_MEDIA_TYPE + '`), gzipped or not, at most MINDPRINT_MAX_UPLOAD_MB (413 past it). ' +
        'A bundle that does not parse, breaks the schema, or has references pointing nowhere is a 400 naming the field; so is a bundle of a newer format version.',
      requestBodyDoc: {
        description: 'A mind bundle (may be gzipped)',
        content: { [BUNDLE_MEDIA_TYPE]: { schema: MindBundle }, 'application/json': { schema: MindBundle } },
      },
      response: { 200: Type.Object({ imported: ImportResult }), ...errorResponses(413, 415) },
    },
  }, async (req) => ({ imported: await importMind(ctx, req.caller, req.body) }));
};
