/**
 * Turns whatever the AI SDK throws (HTTP errors, retry exhaustion, unparseable responses,
 * aborts, network failures) into one error type with a stable code and a message an operator
 * can act on. The API key never appears in the message: provider error bodies sometimes echo
 * it, so it is scrubbed from everything we pass on.
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

  constructor(code: LlmErrorCode, message: string, providerStatus: number | null = null) {
    super(message);
    this.name = 'LlmEngineError';
    this.code = code;
    this.providerStatus = providerStatus;
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
    return new LlmEngineError('provider_rejected', `The LLM provider at ${where} rejected the request (HTTP ${status}): ${detail}`, status);
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
