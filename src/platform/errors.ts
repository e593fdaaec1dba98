/**
 * The errors of the service's work: a code from one closed list, a message for people and
 * details for programs (the field at fault, the names that were not found, …). Services, jobs and
 * features throw them and know nothing of HTTP: platform/http/errors.ts maps each code to its
 * status, title and headers, and answers `{ error, message, code, ...details }`.
 */

export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'AUTH_FAILED'
  | 'NOT_FOUND'
  | 'FORBIDDEN'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'URI_TOO_LONG'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'REQUEST_TIMEOUT'
  | 'HEADERS_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'UPSTREAM_FAILED'
  | 'UNAVAILABLE'
  | 'INTERNAL';

export interface DomainErrorOptions {
  /** AUTH_FAILED: a credential was presented but is not (or no longer) valid, rather than missing or malformed. */
  invalidToken?: boolean;
}

export class DomainError extends Error {
  readonly invalidToken: boolean;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Spread into the answer beside `error`, `message` and `code` (`field`, `unknown`, …). */
    readonly details?: Record<string, unknown>,
    options: DomainErrorOptions = {},
  ) {
    super(message);
    this.invalidToken = options.invalidToken ?? false;
  }
}

export const invalid = (message: string, details?: Record<string, unknown>) => new DomainError('VALIDATION_FAILED', message, details);
export const notFound = (what: string) => new DomainError('NOT_FOUND', `${what} not found`);
export const forbidden = (message: string) => new DomainError('FORBIDDEN', message);
export const conflict = (message: string, details?: Record<string, unknown>) => new DomainError('CONFLICT', message, details);
export const tooLarge = (message: string) => new DomainError('PAYLOAD_TOO_LARGE', message);
export const unsupportedMediaType = (message: string) => new DomainError('UNSUPPORTED_MEDIA_TYPE', message);
export const upstreamFailed = (message: string, details?: Record<string, unknown>) => new DomainError('UPSTREAM_FAILED', message, details);
/** No valid credential; `invalidToken` when one was sent but is not (or no longer) valid. */
export const unauthorized = (message: string, invalidToken = false) => new DomainError('AUTH_FAILED', message, undefined, { invalidToken });
/** A passing outage of something the service needs: the request changed nothing and may be sent again shortly. */
export const unavailable = (message: string) => new DomainError('UNAVAILABLE', message);
