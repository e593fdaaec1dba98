/** A webhook receiver for tests: node:http on a random loopback port, recording every request. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  url: string;
}
export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The status (and body) of the next answers: a function of the request number (0-based). */
  answer: (n: number, r: Received) => { status: number; body?: string; headers?: Record<string, string> };
  /** Resolves once `count` requests have arrived (bounded). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  /** Verifies a request with the published `standardwebhooks` library; returns the parsed payload. */
  verify(r: Received, secret: string): any;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const self = {} as Receiver;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), url: req.url ?? '/' };
      const n = received.push(r) - 1;
      const a = self.answer(n, r);
      res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
      res.end(a.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  Object.assign(self, {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    answer: () => ({ status: 200 }),
    async waitFor(count: number, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return received;
    },
    verify(r: Received, secret: string) {
      return new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
  return self;
}
