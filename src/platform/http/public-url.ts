/**
 * The origin put into local signed upload URLs (REST `GET …/signed-url`, and the MCP tool that
 * calls it in-process with the MCP request's Host).
 *
 * MINDPRINT_PUBLIC_URL when it is set. Otherwise the request's `Host`, but only when it names an
 * address this server listens on (the listening host or, on a wildcard address, an address of one
 * of this machine's interfaces, or `localhost` when the loopback is served) and the listening
 * port. Any other Host is refused: the Host header is the client's to write, and a URL built from
 * a poisoned one (`Host: attacker.example`) would send the transcript to another host.
 */
import { isIP } from 'node:net';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { DomainError } from '../errors.ts';

const WILDCARDS = new Set(['0.0.0.0', '::', '']);
const LOOPBACKS = new Set(['127.0.0.1', '::1', 'localhost']);

/** `::ffff:127.0.0.1` → `127.0.0.1`; IPv6 in one canonical spelling (through the URL parser); lower case. */
function canonical(address: string): string {
  const a = address.toLowerCase().replace(/\.$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return mapped[1]!;
  if (isIP(a) === 6) {
    try {
      return new URL(`http://[${a}]/`).hostname.slice(1, -1);
    } catch {
      return a;
    }
  }
  return a;
}

/** `host[:port]` or `[v6][:port]` → its parts; null when it is not a host at all. */
function parseHost(header: string): { hostname: string; port: number | null } | null {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+))(?::(\d{1,5}))?$/.exec(header);
  if (!m) return null;
  return { hostname: canonical(m[1] ?? m[2]!), port: m[3] === undefined ? null : Number(m[3]) };
}

/** The addresses of this machine's interfaces, canonical. */
function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const i of list ?? []) out.add(canonical(i.address.replace(/%.*$/, '')));
  return out;
}

/** Whether `Host: <hostname>` names where this server listens (`listenHost`, HOST). */
function listensOn(hostname: string, listenHost: string): boolean {
  const listen = canonical(listenHost);
  if (hostname === listen) return true;
  const wildcard = WILDCARDS.has(listen);
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return wildcard || LOOPBACKS.has(listen);
  if (!wildcard || isIP(hostname) === 0) return false;
  // On 0.0.0.0 only IPv4 connections arrive; on :: both.
  if (listen === '0.0.0.0' && isIP(hostname) === 6) return false;
  return interfaceAddresses().has(hostname);
}

/** The base (origin, or MINDPRINT_PUBLIC_URL with its path) of signed upload URLs for this request. */
export function publicBaseUrl(req: FastifyRequest, config: Pick<Config, 'publicUrl' | 'host' | 'port'>): string {
  if (config.publicUrl) return config.publicUrl;
  const header = req.headers.host ?? '';
  const protocol = req.protocol === 'https' ? 'https' : 'http';
  const host = parseHost(header);
  const address = req.server.server.address() as AddressInfo | string | null;
  const port = address !== null && typeof address === 'object' ? address.port : config.port;
  if (host && (host.port ?? (protocol === 'https' ? 443 : 80)) === port && listensOn(host.hostname, config.host)) return `${protocol}://${header}`;
  throw new DomainError(
    'VALIDATION_FAILED',
    `Cannot build a signed upload URL for Host "${header.slice(0, 100)}": it is not an address this server listens on (${config.host}:${port}). ` +
      'Reach the service at its listening address, or have the operator set MINDPRINT_PUBLIC_URL to the origin clients use (required behind a reverse proxy)',
    { field: 'headers.host' },
  );
}
