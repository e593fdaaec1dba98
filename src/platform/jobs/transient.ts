/**
 * Which failures of a job are worth retrying. Only errors known to pass are: the file store or
 * the database could not be reached or was briefly unavailable. A bug (a TypeError, a constraint
 * violation) fails the same way every time, so retrying it only delays the failure and hides it.
 */

/** Node and undici error codes of I/O and network trouble that may go away. */
const TRANSIENT_ERRNO = new Set([
  'EIO', 'EAGAIN', 'EBUSY', 'EMFILE', 'ENFILE', 'ENOSPC', 'ENOMEM', 'ETIMEDOUT', 'ECONNRESET', 'ECONNREFUSED',
  'ECONNABORTED', 'EPIPE', 'ENOTCONN', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'ENETRESET',
  'EAI_AGAIN', 'ESTALE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * PostgreSQL SQLSTATEs that mean "try again": connection exceptions (class 08), serialization
 * failures and deadlocks (40001, 40P01), the server shutting down or starting (57P01–57P03),
 * insufficient resources (class 53), I/O errors (58030).
 */
function isTransientSqlState(code: string): boolean {
  return code.startsWith('08') || code.startsWith('53') || ['40001', '40P01', '57P01', '57P02', '57P03', '58030'].includes(code);
}

/** node-postgres reports a lost connection with these messages and no SQLSTATE. */
const PG_CONNECTION_MESSAGES = /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable/i;

/** The AWS SDK's names for throttling and server-side trouble. */
const AWS_TRANSIENT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'SlowDown', 'InternalError', 'ServiceUnavailable', 'ThrottlingException', 'Throttling', 'TooManyRequestsException']);

export type TransientKind = 'storage' | 'database' | 'network';

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
  $retryable?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/** The error and everything it wraps (drizzle's DrizzleQueryError, AggregateError), outermost first. */
export function errorChain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  const visit = (e: unknown, depth: number) => {
    if (typeof e !== 'object' || e === null || depth > 8 || out.includes(e as ErrorLike)) return;
    const x = e as ErrorLike;
    out.push(x);
    visit(x.cause, depth + 1);
    if (Array.isArray(x.errors)) for (const inner of x.errors) visit(inner, depth + 1);
  };
  visit(err, 0);
  return out;
}

/** What kind of passing trouble `err` is, or null when it is not known to pass. */
export function transientKind(err: unknown): TransientKind | null {
  for (const e of errorChain(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : null;
    // AWS SDK (S3): marked retryable, a 5xx or 429, or one of its throttling/timeout names.
    if (e.$metadata !== undefined || e.$fault !== undefined) {
      if (e.$retryable || e.$fault === 'server' || (status !== null && (status >= 500 || status === 429)) || AWS_TRANSIENT_NAMES.has(String(e.name))) return 'storage';
      continue;
    }
    if (/^[0-9A-Z]{5}$/.test(code) && isTransientSqlState(code)) return 'database';
    if (typeof e.message === 'string' && PG_CONNECTION_MESSAGES.test(e.message)) return 'database';
    if (TRANSIENT_ERRNO.has(code)) return 'network';
  }
  return null;
}

export function describeTransient(kind: TransientKind): string {
  switch (kind) {
    case 'storage':
      return 'the file store was unavailable';
    case 'database':
      return 'the database was unavailable';
    case 'network':
      return 'reading or writing data failed (I/O or network error)';
  }
}
