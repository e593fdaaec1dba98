/**
 * A real S3-compatible server for tests: s3rver (npm) on a random loopback port, storing into a
 * temp dir. s3rver speaks the S3 REST protocol (PutObject, multipart, presigned URLs, expiry) but
 * does not verify SigV4 signatures (it accepts any request naming its access key S3RVER), so
 * every request first passes our own SigV4 check (sigv4.ts): a presigned URL used with another
 * Content-Type, a tampered URL or a wrong secret get 403 SignatureDoesNotMatch as on real S3.
 * Payload hashes are not recomputed, and anonymous requests are let through to s3rver.
 *
 * Other tests can run the whole service in S3 mode with:
 *   const s3 = await startTestS3Server(); ... loadConfig({ ...process.env, ...s3.env }) ...; await s3.close();
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { checkSigV4 } from './sigv4.ts';

// s3rver's one built-in account.
const ACCESS_KEY_ID = 'S3RVER';
const SECRET_ACCESS_KEY = 'S3RVER';

export interface TestS3Server {
  /** e.g. http://127.0.0.1:41234 */
  endpoint: string;
  bucket: string;
  /** Environment that points Mindprint (and the AWS SDK) at this server. */
  env: {
    MINDPRINT_STORAGE_URL: string;
    AWS_ENDPOINT_URL_S3: string;
    AWS_REGION: string;
    AWS_ACCESS_KEY_ID: string;
    AWS_SECRET_ACCESS_KEY: string;
    MINDPRINT_S3_FORCE_PATH_STYLE: string;
  };
  close(): Promise<void>;
}

export async function startTestS3Server(opts: { bucket?: string } = {}): Promise<TestS3Server> {
  const bucket = opts.bucket ?? 'mindprint-test';
  const directory = await mkdtemp(path.join(tmpdir(), 'mindprint-s3rver-'));
  const s3rver = new S3rver({
    silent: true,
    directory,
    // Path-style only: virtual-host buckets would need DNS for <bucket>.127.0.0.1.
    vhostBuckets: false,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const s3rverHandler = s3rver.callback();
  const http = createServer((req, res) => {
    const problem = checkSigV4(
      { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers },
      (id) => (id === ACCESS_KEY_ID ? SECRET_ACCESS_KEY : undefined),
    );
    if (problem === null) return s3rverHandler(req, res);
    // Drain the body first: answering mid-upload makes some clients fail with EPIPE instead of 403.
    req.resume();
    req.once('end', () => {
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>${problem}</Message></Error>`);
    });
  });
  let port: number;
  try {
    await s3rver.configureBuckets();
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(0, '127.0.0.1', () => resolve());
    });
    port = (http.address() as AddressInfo).port;
  } catch (err) {
    http.close();
    await rm(directory, { recursive: true, force: true });
    throw err;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      MINDPRINT_STORAGE_URL: `s3://${bucket}`,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
      MINDPRINT_S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        // Keep-alive sockets from fetch or the SDK would otherwise hold close() open.
        http.closeAllConnections();
      });
      (s3rver as unknown as { logger: { close(): void } }).logger.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
