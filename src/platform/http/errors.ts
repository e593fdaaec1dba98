/**
 * The HTTP face of the domain errors (../errors.ts): each code's status, title and headers, and
 * the one handler that turns any error into the JSON body every client sees: `{ error, message,
 * code }`. No stack traces or SQL ever leave here.
 */
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseUnavailableError, pgErrorCode } from '../db/errors.ts';
import { DomainError, invalid, tooLarge, unavailable, unsupportedMediaType, type ErrorCode } from '../errors.ts';
import { errorChain, transientKind } from '../jobs/transient.ts';
import { ERROR_HEADERS } from './response-headers.ts';
import { patternMessage } from './schemas.ts';

/** The status of each code (docs/api.md lists them; test/platform/http/error-codes.test.ts keeps the two equal). */
export const STATUS: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  AUTH_FAILED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UPSTREAM_FAILED: 502,
  UNAVAILABLE: 503,
};

const TITLE: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'Bad Request',
  AUTH_FAILED: 'Unauthorized',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not Found',
  CONFLICT: 'Conflict',
  PAYLOAD_TOO_LARGE: 'Payload Too Large',
  URI_TOO_LONG: 'URI Too Long',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported Media Type',
  REQUEST_TIMEOUT: 'Request Timeout',
  HEADERS_TOO_LARGE: 'Request Header Fields Too Large',
  RATE_LIMITED: 'Too Many Requests',
  UPSTREAM_FAILED: 'Bad Gateway',
  UNAVAILABLE: 'Service Unavailable',
  INTERNAL: 'Internal Server Error',
};

/** How long a client is asked to wait (Retry-After, seconds) when the database or the file store is unavailable. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * An error raised by the HTTP layer itself with headers of its own (a rate limit's Retry-After and
 * RateLimit-*): services throw plain domain errors.
 */
export class HttpError extends DomainError {
  constructor(code: ErrorCode, message: string, details: Record<string, unknown> | undefined, readonly headers: Record<string, string>) {
    super(code, message, details);
  }
}

/** The response headers that belong to an error: the RFC 6750 challenge on a 401, Retry-After on a 503. */
function headersOf(err: DomainError): Record<string, string> | undefined {
  if (err instanceof HttpError) return err.headers;
  if (err.code === 'AUTH_FAILED') return { 'www-authenticate': err.invalidToken ? 'Bearer realm="mindprint", error="invalid_token"' : 'Bearer realm="mindprint"' };
  if (err.code === 'UNAVAILABLE') return { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) };
  return undefined;
}

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
function fromFastifyError(err: FastifyError): DomainError | null {
  if (err.validation) {
    // A value that fits no branch of a union (a tag list given as [1]) reports every branch: name
    // the deepest one (body.tagNames.0), which points at the offending element.
    const first = err.validation.reduce((a, b) => ((b.instancePath ?? '').split('/').length > (a.instancePath ?? '').split('/').length ? b : a), err.validation[0]!);
    const where = err.validationContext ?? 'body';
    // "body.scenario.colour": the path to the value, plus the property a missing/unknown-field error names.
    const base = `${where}${(first?.instancePath ?? '').replace(/\//g, '.')}`;
    const named = first?.params && ('missingProperty' in first.params ? first.params.missingProperty : 'additionalProperty' in first.params ? first.params.additionalProperty : null);
    const field = named ? `${base}.${String(named)}` : base;
    const allowed = first?.params && 'allowedValues' in first.params && Array.isArray(first.params.allowedValues) ? `: ${first.params.allowedValues.join(', ')}` : '';
    const described = first?.keyword === 'pattern' ? patternMessage(first.params?.pattern) : undefined;
    const what = first?.params && 'additionalProperty' in first.params ? 'is not a known field' : (described ?? `${first?.message ?? 'is invalid'}${allowed}`);
    return invalid(`${field} ${what}`, { field });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge('The request body is larger than the limit');
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
      return unsupportedMediaType('Unsupported Content-Type: send application/json (snapshot uploads: multipart/form-data)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalid('The JSON body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return invalid('The body is not valid JSON');
  }
  if (err instanceof SyntaxError || err.statusCode === 400) return invalid(err.message || 'Bad request');
  if (err.statusCode === 413) return tooLarge('The request body is larger than the limit');
  if (err.statusCode === 415) return unsupportedMediaType('Unsupported content type');
  return null;
}

/**
 * The database (or the file store) unavailable: PostgreSQL restarting or unreachable, a
 * connection that dropped mid-query, the embedded database failed. 503 with Retry-After, not 500:
 * the request changed nothing (a transaction that lost its connection is rolled back), and the
 * same request succeeds once the outage is over, without restarting the service.
 */
function fromOutage(err: unknown): DomainError | null {
  if (err instanceof DatabaseUnavailableError || (err as { cause?: unknown })?.cause instanceof DatabaseUnavailableError) {
    return unavailable('The database is unavailable; the request was not completed. Try again shortly');
  }
  // ALTER DATABASE … ALLOW_CONNECTIONS false (maintenance), or the database being dropped.
  if (pgErrorCode(err) === '55000' && errorChain(err).some((e) => /not currently accepting connections/.test(String(e.message)))) {
    return unavailable('The database is not accepting connections at the moment; the request was not completed. Try again shortly');
  }
  const kind = transientKind(err);
  if (kind === 'database' || kind === 'network') return unavailable('The database is unavailable at the moment; the request was not completed. Try again shortly');
  if (kind === 'storage') return unavailable('The file store is unavailable at the moment; the request was not completed. Try again shortly');
  return null;
}

/**
 * Values PostgreSQL refuses to store (NUL in text, \u0000 in jsonb) are stopped by the validator,
 * naming the field; any that arrive another way (multipart fields) are still a 400, not a 500.
 */
function fromDatabaseError(err: unknown): DomainError | null {
  const code = pgErrorCode(err);
  if (code === '22021' || code === '22P05') return invalid('A value contains a character that cannot be stored (such as NUL, \\u0000)');
  return null;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | DomainError, request: FastifyRequest, reply: FastifyReply) => {
    const known = err instanceof DomainError ? err : (fromFastifyError(err as FastifyError) ?? fromDatabaseError(err) ?? fromOutage(err));
    if (known) {
      if (known.code === 'INTERNAL') request.log.error({ err }, 'request failed');
      else if (known.code === 'UNAVAILABLE' && !(err instanceof DomainError)) request.log.warn({ err: (err as Error).message }, 'request failed: unavailable');
      const headers = headersOf(known);
      if (headers) reply.headers(headers);
      return reply.status(STATUS[known.code]).send(errorBody(known.code, known.message, known.details));
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send(errorBody('INTERNAL', 'Something went wrong on our side; the request was not completed'));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`));
  });
}

/**
 * Errors Fastify's router raises before any route runs (the `frameworkErrors` server option): a
 * path parameter longer than the router's limit, a URL that does not decode. Without this they
 * answer with Fastify's own codes (FST_ERR_MAX_PARAM_LENGTH), which are not ours.
 */
export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  // The router answers before any hook runs: the headers every answer carries are set here.
  reply.headers(ERROR_HEADERS);
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.status(414).send(errorBody('URI_TOO_LONG', `A path parameter is longer than ${MAX_PATH_PARAM_LENGTH} characters`));
    return;
  }
  if (err.code === 'FST_ERR_BAD_URL') {
    void reply.status(400).send(errorBody('VALIDATION_FAILED', 'The URL path does not decode (a malformed %-escape)'));
    return;
  }
  void reply.status(err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400).send(errorBody('VALIDATION_FAILED', err.message || 'Bad request'));
}

/** The longest path parameter the router accepts: signed upload tokens (documented up to 4,096 characters) travel in the path. */
export const MAX_PATH_PARAM_LENGTH = 4096;

/** Node's limit on the request line and headers together (`--max-http-header-size`, 16 KB by default). */
const MAX_HEADER_KB = 16;

/**
 * Errors Node's HTTP parser raises before there is a request for Fastify to route (the server's
 * `clientError`, Fastify's `clientErrorHandler` option): headers or a URL over Node's limit, a
 * request not received within the request timeout, bytes that are not HTTP. Fastify's default
 * answers these with its own body (`statusCode`, no `code`); they get ours, with the headers
 * every response carries (./response-headers.ts), and the connection is closed as Node does.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message]: [ErrorCode, string] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? ['HEADERS_TOO_LARGE', `The request line and headers together are larger than ${MAX_HEADER_KB} KB: send a shorter URL (move long values into a JSON body) or fewer, shorter headers`]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['REQUEST_TIMEOUT', 'The request was not received in full within the time allowed; send it again']
        : err.code === 'HPE_INVALID_URL'
          ? ['VALIDATION_FAILED', 'The URL has characters a URL cannot have (raw bytes over 0x7F, spaces, controls): percent-encode them as UTF-8 (é is %C3%A9)']
          : ['VALIDATION_FAILED', 'The request is not well-formed HTTP/1.1'];
  this.log.debug({ err: err.message, code: err.code }, 'client error');
  // Only when no response is under way on this connection (a keep-alive request already answering).
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(errorBody(code, message));
    socket.write(
      `HTTP/1.1 ${STATUS[code]} ${TITLE[code]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        Object.entries(ERROR_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
