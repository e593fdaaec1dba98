/**
 * The query string must decode to UTF-8 text. Fastify's parser (fast-querystring) keeps a
 * %-escape that does not decode (`%FF`, `%C3%28`, the encoded surrogate `%ED%A0%80`, a lone `%`)
 * as its literal characters: the value a route sees is not what the client meant, and would be
 * searched for or stored as such. Such a request is refused (400, naming the query string), as
 * the router already refuses a path that does not decode (./errors.ts, frameworkErrors). Raw
 * bytes over 0x7F never get here: Node's HTTP parser refuses them (clientErrorHandler, 400).
 */
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../errors.ts';

/** The first `key` or `value` of the query string that does not decode, or null. */
export function undecodableQueryPart(query: string): string | null {
  for (const pair of query.split('&')) {
    for (const part of pair.split('=')) {
      try {
        decodeURIComponent(part.replace(/\+/g, ' '));
      } catch {
        return part;
      }
    }
  }
  return null;
}

export function registerUrlChecks(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => {
    const url = req.raw.url ?? '';
    const q = url.indexOf('?');
    if (q === -1) return;
    const bad = undecodableQueryPart(url.slice(q + 1).replace(/#.*$/, ''));
    if (bad !== null) {
      throw new DomainError('VALIDATION_FAILED', `The query string does not decode: "${bad.slice(0, 60)}" has a %-escape that is malformed or not UTF-8; percent-encode text as UTF-8 (é is %C3%A9, % itself is %25)`, { field: 'querystring' });
    }
  });
}
