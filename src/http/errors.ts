/**
 * Typed errors that services throw, and the one handler that turns any error into the JSON
 * body every client sees: `{ error, message, code }`. No stack traces or SQL ever leave here.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pgErrorCode } from '../db/errors.ts';

export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'AUTH_FAILED'
  | 'NOT_FOUND'
  | 'FORBIDDEN'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'UPSTREAM_FAILED'
  | 'INTERNAL';

const STATUS: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  AUTH_FAILED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UPSTREAM_FAILED: 502,
};

const TITLE: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'Bad Request',
  AUTH_FAILED: 'Unauthorized',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not Found',
  CONFLICT: 'Conflict',
  PAYLOAD_TOO_LARGE: 'Payload Too Large',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported Media Type',
  RATE_LIMITED: 'Too Many Requests',
  UPSTREAM_FAILED: 'Bad Gateway',
  INTERNAL: 'Internal Server Error',
};

export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Response headers that belong to this error (WWW-Authenticate on a 401). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.statusCode = STATUS[code];
  }
}

export const invalid = (message: string, details?: Record<string, unknown>) =>
  new AppError('VALIDATION_FAILED', message, details);
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const forbidden = (message: string) => new AppError('FORBIDDEN', message);
export const conflict = (message: string) => new AppError('CONFLICT', message);
/** 401 with the RFC 6750 challenge; `invalidToken` when a key was sent but is not (or no longer) valid. */
export const unauthorized = (message: string, invalidToken = false) =>
  new AppError('AUTH_FAILED', message, undefined, { 'www-authenticate': invalidToken ? 'Bearer realm="mindprint", error="invalid_token"' : 'Bearer realm="mindprint"' });

export interface ErrorBody {
  error: string;
  message: string;
  code: ErrorCode;
  [extra: string]: unknown;
}

export function errorBody(code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorBody {
  return { error: TITLE[code], message, code, ...details };
}

/** Maps Fastify's own errors (body parsing, validation, limits) onto our codes. */
function fromFastifyError(err: FastifyError): AppError | null {
  if (err.validation) {
    // A value that fits no branch of a union (a tag list given as [1]) reports every branch: name
    // the deepest one (body.tagNames.0), which points at the offending element.
    const first = err.validation.reduce((a, b) => ((b.instancePath ?? '').split('/').length > (a.instancePath ?? '').split('/').length ? b : a), err.validation[0]!);
    const where = err.validationContext ?? 'body';
    // "body.scenario.colour": the path to the value, plus the property a missing/unknown-field error names.
    const base = `${where}${(first?.instancePath ?? '').replace(/\//g, '.')}`;
    const named = first?.params && ('missingProperty' in first.params ? first.params.missingProperty : 'additionalProperty' in first.params ? first.params.additionalProperty : null);
    const field = named ? `${base}.${String(named)}` : base;
    const what = first?.params && 'additionalProperty' in first.params ? 'is not a known field' : (first?.message ?? 'is invalid');
    return invalid(`${field} ${what}`, { field });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than the limit');
    // @fastify/multipart's count limits (files, fields, parts of a snapshot upload) come with a 413,
    // but a form with too many parts is malformed, not too large: the client has to send fewer.
    case 'FST_FILES_LIMIT':
      return invalid('Send one file per snapshot', { field: 'file' });
    case 'FST_FIELDS_LIMIT':
      return invalid('The form has too many fields; send each field once');
    case 'FST_PARTS_LIMIT':
      return invalid('The form has too many parts; send one file and each field once');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type: send application/json (snapshot uploads: multipart/form-data)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalid('The JSON body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return invalid('The body is not valid JSON');
  }
  if (err instanceof SyntaxError || err.statusCode === 400) return invalid(err.message || 'Bad request');
  if (err.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than the limit');
  if (err.statusCode === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type');
  return null;
}

/**
 * Values PostgreSQL refuses to store (NUL in text, \u0000 in jsonb) are stopped by the validator,
 * naming the field; any that arrive another way (multipart fields) are still a 400, not a 500.
 */
function fromDatabaseError(err: unknown): AppError | null {
  const code = pgErrorCode(err);
  if (code === '22021' || code === '22P05') return invalid('A value contains a character that cannot be stored (such as NUL, \\u0000)');
  return null;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = err instanceof AppError ? err : (fromFastifyError(err as FastifyError) ?? fromDatabaseError(err));
    if (appError) {
      if (appError.code === 'INTERNAL') request.log.error({ err }, 'request failed');
      if (appError.headers) reply.headers(appError.headers);
      return reply.status(appError.statusCode).send(errorBody(appError.code, appError.message, appError.details));
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send(errorBody('INTERNAL', 'Something went wrong on our side; the request was not completed'));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`));
  });
}
