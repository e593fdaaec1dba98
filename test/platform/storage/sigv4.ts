/**
 * An independent AWS Signature Version 4 check for the test S3 server (s3rver checks none).
 * It recomputes the signature of a request signed either in the Authorization header or in the
 * query string (presigned URL) from the raw method, path, query and signed headers, following
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html.
 * The payload hash is taken as declared (UNSIGNED-PAYLOAD or x-amz-content-sha256), not recomputed.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface SignedRequest {
  method: string;
  /** Raw request target as sent, e.g. `/bucket/key?X-Amz-Algorithm=...`. */
  url: string;
  headers: IncomingHttpHeaders;
}

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ is %XX. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function parseRawQuery(raw: string): Array<[string, string]> {
  if (!raw) return [];
  return raw.split('&').filter(Boolean).map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    return [decodeURIComponent(name), decodeURIComponent(value)];
  });
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function headerValue(headers: IncomingHttpHeaders, name: string): string {
  const v = headers[name];
  return (Array.isArray(v) ? v.join(',') : v ?? '').trim().replace(/\s+/g, ' ');
}

/**
 * Returns null when the request is unsigned or its signature matches `secretFor(accessKeyId)`,
 * otherwise a reason. Expiry of presigned URLs is checked too.
 */
export function checkSigV4(req: SignedRequest, secretFor: (accessKeyId: string) => string | undefined, now = Date.now()): string | null {
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const query = parseRawQuery(q < 0 ? '' : req.url.slice(q + 1));
  const get = (name: string) => query.find(([n]) => n === name)?.[1];

  let credential: string, signedHeaders: string, signature: string, amzDate: string, payloadHash: string;
  const authorization = headerValue(req.headers, 'authorization');
  if (get('X-Amz-Algorithm') !== undefined) {
    if (get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return 'unsupported algorithm';
    credential = get('X-Amz-Credential') ?? '';
    signedHeaders = get('X-Amz-SignedHeaders') ?? '';
    signature = get('X-Amz-Signature') ?? '';
    amzDate = get('X-Amz-Date') ?? '';
    payloadHash = get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
    const expires = Number(get('X-Amz-Expires'));
    const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
    if (!m || !Number.isFinite(expires)) return 'malformed presigned URL';
    const signedAt = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
    if (now > signedAt + expires * 1000) return 'presigned URL expired';
  } else if (authorization.startsWith('AWS4-HMAC-SHA256 ')) {
    const fields = new Map(
      authorization.slice('AWS4-HMAC-SHA256 '.length).split(',').map((f) => {
        const [k, ...v] = f.trim().split('=');
        return [k!, v.join('=')] as [string, string];
      }),
    );
    credential = fields.get('Credential') ?? '';
    signedHeaders = fields.get('SignedHeaders') ?? '';
    signature = fields.get('Signature') ?? '';
    amzDate = headerValue(req.headers, 'x-amz-date');
    payloadHash = headerValue(req.headers, 'x-amz-content-sha256') || 'UNSIGNED-PAYLOAD';
  } else if (authorization) {
    return 'unsupported authorization scheme';
  } else {
    return null; // anonymous; the server's own rules apply
  }

  const [accessKeyId, date, region, service, terminator] = credential.split('/');
  if (!accessKeyId || !date || !region || !service || terminator !== 'aws4_request') return 'malformed credential';
  const secret = secretFor(accessKeyId);
  if (secret === undefined) return 'unknown access key';

  const canonicalQuery = query
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([n, v]) => [encodeRfc3986(n), encodeRfc3986(v)] as const)
    .sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([n, v]) => `${n}=${v}`)
    .join('&');
  const headerNames = signedHeaders.split(';');
  const canonicalHeaders = headerNames.map((name) => `${name}:${headerValue(req.headers, name)}\n`).join('');
  const canonicalRequest = [req.method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  const expected = Buffer.from(hmac(signingKey, stringToSign).toString('hex'));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'signature does not match';
  return null;
}
