/**
 * Turns whatever the AI SDK throws (HTTP errors, retry exhaustion, unparseable responses,
 * aborts, network failures) into one error type with a stable code and a message an operator
 * can act on. The API key never appears in the message: provider error bodies sometimes echo
 * it, so it is scrubbed from everything we pass on. The message names the provider's endpoint
 * and is for the log; callers get `publicMessage`, which does not.
 */
import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  NoObjectGeneratedError,
  NoOutputGeneratedError,
  RetryError,
  TypeValidationError,
} from 'ai';

export type LlmErrorCode =
  | 'auth' // 401/403: the key is wrong or lacks access
  | 'not_found' // 404: wrong model name or base URL
  | 'rate_limited' // 429
  | 'provider_unavailable' // 5xx
  | 'provider_rejected' // other 4xx (bad request, context too long, …)
  | 'unreachable' // no HTTP response at all
  | 'invalid_response' // a response we could not use (bad JSON, no answer, no valid analysis)
  | 'timeout' // the provider did not finish within MINDPRINT_LLM_TIMEOUT_MS
  | 'aborted'; // the caller cancelled (client disconnected)

export class LlmEngineError extends Error {
  readonly code: LlmErrorCode;
  /** The provider's HTTP status, when there was one. */
  readonly providerStatus: number | null;
  /**
   * What API callers are told (the 502 body, a failed message's `errors`, a questionnaire not
   * administered): what failed, without the provider's base URL, model name or error text, which
   * can name internal hosts and addresses. `message` keeps those for the operator's log.
   */
  readonly publicMessage: string;

  constructor(code: LlmErrorCode, message: string, providerStatus: number | null = null, publicMessage: string = publicMessageOf(code, providerStatus)) {
    super(message);
    this.name = 'LlmEngineError';
    this.code = code;
    this.providerStatus = providerStatus;
    this.publicMessage = publicMessage;
  }
}

const SEE_LOG = 'the server log has the details';

/** The message for callers: the kind of failure and the provider's HTTP status, nothing of where the provider is. */
export function publicMessageOf(code: LlmErrorCode, status: number | null, reason?: string): string {
  const http = status === null ? '' : ` (HTTP ${status})`;
  switch (code) {
    case 'auth':
      return `The LLM provider refused the service's credentials${http}; the operator has to check the LLM settings (${SEE_LOG})`;
    case 'not_found':
      return `The LLM provider does not know the configured model or endpoint${http}; the operator has to check the LLM settings (${SEE_LOG})`;
    case 'rate_limited':
      return `The LLM provider is rate limiting requests${http}; try again later`;
    case 'provider_unavailable':
      return `The LLM provider failed${http}; try again later (${SEE_LOG})`;
    case 'provider_rejected':
      return reason ? `The LLM provider rejected the request${http}: ${reason}` : `The LLM provider rejected the request${http} (${SEE_LOG})`;
    case 'unreachable':
      return `The LLM provider could not be reached; try again later (${SEE_LOG})`;
    case 'invalid_response':
      return `The LLM provider returned a response that could not be used${http} (${SEE_LOG})`;
    case 'timeout':
      return 'The LLM provider did not finish in the time allowed; try again later';
    case 'aborted':
      return 'LLM generation was cancelled';
  }
}

export interface ErrorContext {
  apiKey: string | null;
  /** Where requests go, for messages (never contains credentials: config rejects those). */
  endpoint: string;
  model: string;
}

const MAX_DETAIL = 300;

export function abortedError(): LlmEngineError {
  return new LlmEngineError('aborted', 'LLM generation was cancelled');
}

export function timeoutError(ctx: ErrorContext, timeoutMs: number): LlmEngineError {
  return new LlmEngineError(
    'timeout',
    `The LLM provider at ${ctx.endpoint} (model ${ctx.model}) did not finish within ${timeoutMs} ms (MINDPRINT_LLM_TIMEOUT_MS).`,
  );
}

export function toLlmError(error: unknown, ctx: ErrorContext): LlmEngineError {
  if (error instanceof LlmEngineError) return error;
  if (isAbort(error)) return abortedError();

  let attempts = 1;
  let cause = error;
  if (RetryError.isInstance(error)) {
    attempts = error.errors.length;
    cause = error.lastError;
    if (isAbort(cause)) return abortedError();
  }
  const after = attempts > 1 ? ` (after ${attempts} attempts)` : '';
  const where = `${ctx.endpoint} (model ${ctx.model})`;

  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode ?? null;
    const detail = scrub(providerMessage(cause), ctx.apiKey);
    if (status === null) {
      return new LlmEngineError('unreachable', `Could not reach the LLM provider at ${where}${after}: ${detail}`);
    }
    if (status < 400) {
      // A successful status whose body the SDK could not parse (HTML from a proxy, truncated JSON, …).
      return new LlmEngineError('invalid_response', `The LLM provider at ${where} returned a response that could not be read (HTTP ${status}): ${detail}`, status);
    }
    if (status === 401 || status === 403) {
      return new LlmEngineError(
        'auth',
        `The LLM provider at ${where} rejected the credentials (HTTP ${status}): ${detail}. Check MINDPRINT_LLM_API_KEY.`,
        status,
      );
    }
    if (status === 404) {
      return new LlmEngineError(
        'not_found',
        `The LLM provider at ${where} answered HTTP 404: ${detail}. Check MINDPRINT_LLM_MODEL and MINDPRINT_LLM_BASE_URL (usually ends in /v1).`,
        status,
      );
    }
    if (status === 429) {
      return new LlmEngineError('rate_limited', `The LLM provider at ${where} is rate limiting requests (HTTP 429)${after}: ${detail}`, status);
    }
    if (status >= 500) {
      return new LlmEngineError('provider_unavailable', `The LLM provider at ${where} failed (HTTP ${status})${after}: ${detail}`, status);
    }
    // Why the provider refused (a context too long, a bad parameter) is the caller's to fix, so
    // they get it too, with any URL or address in it (the provider's, a proxy's) taken out.
    return new LlmEngineError('provider_rejected', `The LLM provider at ${where} rejected the request (HTTP ${status}): ${detail}`, status, publicMessageOf('provider_rejected', status, withoutLocations(detail, ctx.endpoint)));
  }

  if (
    JSONParseError.isInstance(cause) ||
    InvalidResponseDataError.isInstance(cause) ||
    TypeValidationError.isInstance(cause) ||
    EmptyResponseBodyError.isInstance(cause)
  ) {
    return new LlmEngineError('invalid_response', `The LLM provider at ${where} returned a response that could not be read (${cause.name}).`);
  }
  if (NoObjectGeneratedError.isInstance(cause) || NoOutputGeneratedError.isInstance(cause)) {
    return new LlmEngineError('invalid_response', `The model at ${where} did not return a valid structured analysis.`);
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return new LlmEngineError('provider_unavailable', `LLM request to ${where} failed${after}: ${scrub(clip(message), ctx.apiKey)}`);
}

/** The provider's own error message (already extracted by the SDK), else a short form of the body. */
function providerMessage(error: APICallError): string {
  const message = error.message?.trim();
  if (message) return clip(message);
  return clip(error.responseBody?.trim() || 'no details');
}

/** `text` without URLs, IP addresses, host:port pairs and the endpoint's host: what a caller may read of a provider's message. */
export function withoutLocations(text: string, endpoint: string): string {
  let host = '';
  try {
    host = new URL(endpoint).host;
  } catch {
    /* not a URL: nothing more to take out */
  }
  let out = text
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, '[url]')
    // IPv6: bracketed, or four or more groups (a time of day has at most three).
    .replace(/\[[0-9a-f:.]+\](?::\d+)?|\b(?:[0-9a-f]{1,4}:){3,7}[0-9a-f]{1,4}\b/gi, '[address]')
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '[address]')
    // host:port, the host with a letter in it (12:30 is a time).
    .replace(/\b[a-z0-9-]*[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*:\d{2,5}\b/gi, '[address]');
  if (host) out = out.split(host).join('[address]');
  return out;
}

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length > MAX_DETAIL ? `${oneLine.slice(0, MAX_DETAIL)}…` : oneLine;
}

function scrub(text: string, apiKey: string | null): string {
  if (!apiKey) return text;
  return text.split(apiKey).join('[redacted]');
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError' || error.name === 'ResponseAborted');
}
