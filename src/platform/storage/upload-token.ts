import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidUploadTokenError } from './errors.ts';

/**
 * What a local upload URL allows: one PUT of at most maxBytes of contentType into key, for the
 * artifact row artifactId of organizationId, until expiresAt (epoch ms). Single use is enforced
 * by the caller's database row; the signature only makes tampering and expiry detectable.
 */
export interface UploadClaims {
  artifactId: string;
  organizationId: string;
  key: string;
  contentType: string;
  maxBytes: number;
  expiresAt: number;
}

// Token: base64url(JSON claims) "." base64url(HMAC-SHA256(secret, first part)).
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function mac(payload: string, secret: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

function requireSecret(secret: string): void {
  if (typeof secret !== 'string' || secret.length === 0) throw new Error('upload token secret must be a non-empty string');
}

export function signUploadToken(claims: UploadClaims, secret: string): string {
  requireSecret(secret);
  // Fixed field order so the same claims always give the same token.
  const payload = Buffer.from(
    JSON.stringify({
      artifactId: claims.artifactId,
      organizationId: claims.organizationId,
      key: claims.key,
      contentType: claims.contentType,
      maxBytes: claims.maxBytes,
      expiresAt: claims.expiresAt,
    }),
  ).toString('base64url');
  return `${payload}.${mac(payload, secret).toString('base64url')}`;
}

function parseClaims(payload: string): UploadClaims {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidUploadTokenError('malformed');
  }
  const v = value as Record<string, unknown> | null;
  const ok =
    typeof v === 'object' && v !== null &&
    typeof v.artifactId === 'string' && typeof v.organizationId === 'string' &&
    typeof v.key === 'string' && typeof v.contentType === 'string' &&
    Number.isSafeInteger(v.maxBytes) && Number.isFinite(v.expiresAt);
  if (!ok) throw new InvalidUploadTokenError('malformed');
  return {
    artifactId: v.artifactId as string,
    organizationId: v.organizationId as string,
    key: v.key as string,
    contentType: v.contentType as string,
    maxBytes: v.maxBytes as number,
    expiresAt: v.expiresAt as number,
  };
}

/**
 * Returns the claims of a token this service signed with `secret` and that has not expired at
 * `now`. Throws InvalidUploadTokenError: 'malformed' (not a token), 'bad signature' (tampered or
 * another secret), 'expired'. The signature is checked before the payload is trusted.
 */
export function verifyUploadToken(token: string, secret: string, now: number = Date.now()): UploadClaims {
  requireSecret(secret);
  if (typeof token !== 'string') throw new InvalidUploadTokenError('malformed');
  const parts = token.split('.');
  if (parts.length !== 2 || !BASE64URL.test(parts[0]!) || !BASE64URL.test(parts[1]!)) {
    throw new InvalidUploadTokenError('malformed');
  }
  const [payload, signature] = parts as [string, string];
  // Compare the encoded text, not decoded bytes: base64url has spare bits in its last character,
  // so decoding would accept several spellings of one signature.
  const expected = Buffer.from(mac(payload, secret).toString('base64url'));
  const given = Buffer.from(signature);
  // timingSafeEqual needs equal lengths; a wrong length is a wrong signature anyway.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new InvalidUploadTokenError('bad signature');
  }
  const claims = parseClaims(payload);
  if (now >= claims.expiresAt) throw new InvalidUploadTokenError('expired');
  return claims;
}
