/**
 * One attempt: POST the body to a checked target (target.ts), connecting only to the addresses
 * that were checked — the socket's `lookup` answers with them, so the name is not resolved a
 * second time (DNS rebinding) — with a 10 s limit on the whole exchange, no redirect followed,
 * no proxy, no connection reused, and only a short excerpt of the answer kept.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { VERSION } from '../../platform/version.ts';
import type { CheckedTarget } from './target.ts';

export const TIMEOUT_MS = 10_000;
/** Bytes of the receiver's answer read at most, and characters of it kept. */
const READ_BYTES = 2048;
const EXCERPT_CHARS = 500;

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

/** A `lookup` that answers with the checked addresses only. */
function pinnedLookup(target: CheckedTarget): LookupFunction {
  return ((_hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const wanted = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    const addresses = target.addresses.filter((a) => !wanted || a.family === wanted);
    if (addresses.length === 0) return callback(Object.assign(new Error(`no IPv${wanted} address for ${target.host}`), { code: 'ENOTFOUND' }));
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as LookupFunction;
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e.code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)';
  if (e.code === 'ECONNRESET') return 'connection reset (ECONNRESET)';
  if (e.code === 'ENOTFOUND') return `host not found (ENOTFOUND)`;
  if (e.code && e.message && !e.message.includes(e.code)) return `${e.message} (${e.code})`;
  return e.message ?? String(err);
}

/** Printable text of the answer's first bytes, at most EXCERPT_CHARS characters. */
function excerpt(bytes: Buffer): string | null {
  if (bytes.length === 0) return null;
  // Control characters (but tab and line ends) would garble a terminal or a log: spaces instead.
  // eslint-disable-next-line no-control-regex
  const text = bytes.toString('utf8').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ');
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

export function postSigned(target: CheckedTarget, headers: Record<string, string>, body: string, timeoutMs = TIMEOUT_MS): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const transport = target.url.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<AttemptResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ...r, durationMs: elapsed() });
    };
    const req = transport.request(target.url, {
      method: 'POST',
      agent: false,
      lookup: pinnedLookup(target),
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': `Mindprint-Webhooks/${VERSION}`,
      },
    });
    const timer = setTimeout(() => finish({ ok: false, statusCode: null, error: `timed out after ${timeoutMs / 1000} s`, responseExcerpt: null }), timeoutMs);
    req.on('error', (err) => finish({ ok: false, statusCode: null, error: describe(err), responseExcerpt: null }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const text = excerpt(Buffer.concat(chunks).subarray(0, READ_BYTES));
        if (status >= 200 && status < 300) return finish({ ok: true, statusCode: status, error: null, responseExcerpt: text });
        const error =
          status >= 300 && status < 400
            ? `answered ${status} (a redirect${res.headers.location ? ` to ${String(res.headers.location).slice(0, 200)}` : ''}): redirects are not followed`
            : `answered ${status}`;
        return finish({ ok: false, statusCode: status, error, responseExcerpt: text });
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= READ_BYTES) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.end(body);
  });
}
