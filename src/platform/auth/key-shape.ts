/**
 * What a bearer token must look like to be an API key at all. Kept apart from keys.ts (which
 * talks to the database) so configuration can check MINDPRINT_BOOTSTRAP_KEY against the same rule
 * the authenticator applies: a bootstrap secret the authenticator would refuse would leave an
 * instance whose only key can never sign in.
 */
export const MIN_KEY_LENGTH = 16;
export const MAX_KEY_LENGTH = 256;

/** Shape check before any lookup: a bearer token that cannot be a key is refused without a query. */
export function looksLikeKey(secret: string): boolean {
  return secret.length >= MIN_KEY_LENGTH && secret.length <= MAX_KEY_LENGTH && /^[\x21-\x7e]+$/.test(secret);
}
