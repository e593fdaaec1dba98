/** PostgreSQL error codes, read the same way from pg, PGlite and drizzle's wrapped errors. */
export function pgErrorCode(err: unknown): string | undefined {
  let e: any = err;
  for (let depth = 0; e && depth < 4; depth++, e = e.cause) if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return undefined;
}

export const isUniqueViolation = (err: unknown) => pgErrorCode(err) === '23505';
