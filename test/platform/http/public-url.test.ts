/**
 * The origin of local signed upload URLs (src/platform/http/public-url.ts): MINDPRINT_PUBLIC_URL, else the
 * request's Host only when it names where the server listens; a poisoned Host is refused.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../../src/platform/errors.ts';
import { publicBaseUrl } from '../../../src/platform/http/public-url.ts';

const request = (host: string | undefined, port = 3000, protocol = 'http') =>
  ({ headers: host === undefined ? {} : { host }, protocol, server: { server: { address: () => ({ address: '::', family: 'IPv6', port }) } } }) as unknown as FastifyRequest;

const config = (host: string, publicUrl: string | null = null) => ({ host, port: 3000, publicUrl });

function refused(req: FastifyRequest, cfg: ReturnType<typeof config>): void {
  assert.throws(() => publicBaseUrl(req, cfg), (err: unknown) => err instanceof DomainError && err.code === 'VALIDATION_FAILED' && err.details?.field === 'headers.host' && /MINDPRINT_PUBLIC_URL/.test(err.message));
}

test('MINDPRINT_PUBLIC_URL is used whatever the Host says', () => {
  assert.equal(publicBaseUrl(request('attacker.example'), config('0.0.0.0', 'https://mp.example.org/base')), 'https://mp.example.org/base');
  assert.equal(publicBaseUrl(request(undefined), config('127.0.0.1', 'https://mp.example.org')), 'https://mp.example.org');
});

test('without it, a Host naming the listening address and port is used as sent', () => {
  assert.equal(publicBaseUrl(request('127.0.0.1:3000'), config('127.0.0.1')), 'http://127.0.0.1:3000');
  assert.equal(publicBaseUrl(request('localhost:3000'), config('127.0.0.1')), 'http://localhost:3000');
  assert.equal(publicBaseUrl(request('[::1]:3000'), config('::1')), 'http://[::1]:3000');
  assert.equal(publicBaseUrl(request('LOCALHOST:3000'), config('::')), 'http://LOCALHOST:3000');
  assert.equal(publicBaseUrl(request('mindprint.lan:3000'), config('mindprint.lan')), 'http://mindprint.lan:3000');
  // The listening port, not the configured one (PORT=0 picks a free port).
  assert.equal(publicBaseUrl(request('127.0.0.1:41234', 41234), config('127.0.0.1')), 'http://127.0.0.1:41234');
  // Port 80 may be left out.
  assert.equal(publicBaseUrl(request('127.0.0.1', 80), config('127.0.0.1')), 'http://127.0.0.1');
});

test('on a wildcard address, any address of this machine’s interfaces is known', () => {
  const v4 = Object.values(os.networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address ?? '127.0.0.1';
  assert.equal(publicBaseUrl(request(`${v4}:3000`), config('0.0.0.0')), `http://${v4}:3000`);
  assert.equal(publicBaseUrl(request('127.0.0.1:3000'), config('::')), 'http://127.0.0.1:3000');
  // An IPv6 host on 0.0.0.0 (IPv4 only) is not where it listens.
  refused(request('[::1]:3000'), config('0.0.0.0'));
});

test('a poisoned, missing or malformed Host is refused, naming MINDPRINT_PUBLIC_URL', () => {
  refused(request('attacker.example'), config('127.0.0.1'));
  refused(request('attacker.example:3000'), config('0.0.0.0'));
  refused(request('203.0.113.7:3000'), config('0.0.0.0'));
  refused(request('127.0.0.1:3001'), config('127.0.0.1'));
  refused(request('127.0.0.1'), config('127.0.0.1'));
  refused(request('localhost:3000'), config('192.0.2.1'));
  refused(request(undefined), config('127.0.0.1'));
  refused(request(''), config('127.0.0.1'));
  refused(request('127.0.0.1:3000@attacker.example'), config('127.0.0.1'));
  refused(request('127.0.0.1:3000/evil'), config('127.0.0.1'));
  refused(request('127.0.0.1.attacker.example:3000'), config('127.0.0.1'));
});
