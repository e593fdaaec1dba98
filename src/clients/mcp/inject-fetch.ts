/**
 * A `fetch` that sends the client SDK's requests into this same Fastify app with `inject`
 * (light-my-request): no socket, no loopback address to know, yet every request goes through the
 * real routes, so authentication, validation, organization scoping, usage counting, rate limits
 * and error shapes are exactly those of a remote client. It serves only this server's own URLs
 * (the API and its signed /uploads/ URLs): the MCP endpoint never fetches a URL a caller names.
 */
import type { FastifyInstance } from 'fastify';
import { ToolError } from './errors.ts';

export interface InjectFetchOptions {
  /** The public base every URL must start with (origin, or MINDPRINT_PUBLIC_URL with its path). */
  publicBase: string;
  /** Sent with every request (host and forwarding headers of the MCP request, so signed URLs point where the caller reached us). */
  headers: Record<string, string>;
  /** The MCP caller's address, for anything keyed by client address. */
  remoteAddress: string;
}

export function injectFetch(app: FastifyInstance, opts: InjectFetchOptions): typeof globalThis.fetch {
  const base = new URL(opts.publicBase);
  const prefix = base.pathname.replace(/\/+$/, '');
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin !== base.origin || (prefix && !url.pathname.startsWith(`${prefix}/`))) {
      throw new ToolError(
        `This remote MCP server only calls its own Mindprint API, not ${url.origin}. ` +
          'When uploads go straight to object storage (S3), PUT the file to the signedUrl yourself, then call create_snapshot.',
      );
    }
    const headers: Record<string, string> = { ...opts.headers };
    request.headers.forEach((value, name) => (headers[name] = value));
    const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const res = await app.inject({
      method: request.method as 'GET',
      url: url.pathname.slice(prefix.length) + url.search,
      headers,
      payload,
      remoteAddress: opts.remoteAddress,
    });
    const out = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(name, String(v));
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || request.method === 'HEAD';
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, statusText: res.statusMessage, headers: out });
  };
}
