/** PostgreSQL error codes, read the same way from pg, PGlite and drizzle's wrapped errors. */
export function pgErrorCode(err: unknown): string | undefined {
  let e: any = err;
  for (let depth = 0; e && depth < 4; depth++, e = e.cause) if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return undefined;
}

export const isUniqueViolation = (err: unknown) => pgErrorCode(err) === '23505';

/**
 * The database cannot be reached or can no longer run queries: PostgreSQL refused the connection
 * at start (the message names DATABASE_URL without its password and the cause), or the embedded
 * database failed for good (a WASM runtime error). Requests that meet it answer 503 UNAVAILABLE.
 */
export class DatabaseUnavailableError extends Error {}

/** A WebAssembly runtime error (out-of-bounds memory access, unreachable, stack overflow) anywhere in the chain. */
export function isWasmRuntimeError(err: unknown): boolean {
  let e: any = err;
  for (let depth = 0; e && depth < 4; depth++, e = e.cause) if (e instanceof WebAssembly.RuntimeError) return true;
  return false;
}
