/**
 * Where a webhook may be delivered: an http(s) URL whose host resolves only to public unicast
 * addresses. Loopback, private, link-local (cloud metadata: 169.254.169.254), CGNAT
 * (100.100.100.200), unique-local (fd00:ec2::254), multicast, reserved and the IPv6 forms that
 * embed an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo) are refused, unless
 * MINDPRINT_WEBHOOKS_ALLOW_PRIVATE is set. The ranges are ipaddr.js's (`range()`): a maintained
 * table of the IANA special-purpose registries, rather than ranges written out by hand here.
 *
 * The check runs at registration and again at every attempt, on the addresses the attempt then
 * connects to (send.ts hands them to the socket through `lookup`): a name that resolved to a
 * public address at registration and to 127.0.0.1 later (DNS rebinding) is refused then.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}
/** Resolves a host name to every address it has (the system resolver by default; tests give their own). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;
export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A URL or address a webhook may not target: the message says which and why (it becomes a 400, or a delivery's error). */
export class TargetError extends Error {}

/** What ipaddr.js calls a range, as a person would say it. */
const RANGE_NAMES: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  uniqueLocal: 'unique-local (private)',
  linkLocal: 'link-local (cloud metadata)',
  carrierGradeNat: 'carrier-grade NAT',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  reserved: 'reserved',
  ipv4Mapped: 'IPv4-mapped',
  rfc6052: 'NAT64',
  rfc6145: 'IPv4-translated',
  '6to4': '6to4',
  teredo: 'Teredo',
};

/**
 * Null for a public unicast address; otherwise the name of the range that makes it no target.
 * IPv4-mapped and IPv4-compatible IPv6 addresses are judged as the IPv4 address they carry.
 */
export function refusedRange(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address.replace(/^\[|\]$/g, ''));
  } catch {
    return 'invalid';
  }
  const range = ip.range();
  return range === 'unicast' ? null : (RANGE_NAMES[range] ?? range);
}

/** A webhook URL as given: http(s), a host, no credentials, no fragment, at most 2,048 characters. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetError('url is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetError(`url must be http:// or https://, not ${url.protocol}`);
  if (url.username || url.password) throw new TargetError('url must not contain credentials (user:password@)');
  if (url.hash) throw new TargetError('url must not have a #fragment');
  if (!url.hostname) throw new TargetError('url has no host');
  return url;
}

export interface CheckedTarget {
  url: URL;
  /** The host without IPv6 brackets. */
  host: string;
  /** The addresses to connect to, every one checked. */
  addresses: ResolvedAddress[];
}

/**
 * Resolves the URL's host and checks every address it resolves to (one refused address refuses
 * the URL: the resolver's order, or an attacker's round robin, must not decide).
 */
export async function checkTarget(url: URL, opts: { allowPrivate: boolean; resolve?: Resolver }): Promise<CheckedTarget> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  const family = isIP(host);
  if (family) addresses = [{ address: host, family }];
  else {
    try {
      addresses = await (opts.resolve ?? systemResolver)(host);
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw new TargetError(`url's host ${host} does not resolve${code ? ` (${code})` : ''}`);
    }
    if (addresses.length === 0) throw new TargetError(`url's host ${host} does not resolve`);
  }
  if (!opts.allowPrivate) {
    for (const a of addresses) {
      const range = refusedRange(a.address);
      if (range === null) continue;
      const where = family ? `url's address ${host} is` : `url's host ${host} resolves to ${a.address},`;
      throw new TargetError(`${where} a ${range} address: webhooks are delivered only to public addresses (MINDPRINT_WEBHOOKS_ALLOW_PRIVATE=true allows others)`);
    }
  }
  return { url, host, addresses };
}
