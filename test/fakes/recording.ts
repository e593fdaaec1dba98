/** What the fake provider servers keep of each request, so tests can inspect prompts and cancellations. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (null when there was none or it was not JSON). */
  body: any;
  /** True once the client closed the connection before the response was fully written. */
  aborted: boolean;
  /** Resolves when the connection for this request is finished, either way. */
  closed: Promise<void>;
}

/** Reads and parses the body, appends the request to `requests`, and tracks whether the client hung up. */
export async function recordRequest(req: IncomingMessage, res: ServerResponse, requests: RecordedRequest[]): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  let body: any = null;
  try {
    body = raw === '' ? null : JSON.parse(raw);
  } catch {
    body = null;
  }
  let markClosed = () => {};
  const record: RecordedRequest = {
    method: req.method ?? 'GET',
    path: (req.url ?? '/').split('?')[0] ?? '/',
    headers: req.headers,
    body,
    aborted: false,
    closed: new Promise<void>((resolve) => (markClosed = resolve)),
  };
  requests.push(record);
  res.on('close', () => {
    if (!res.writableFinished) record.aborted = true;
    markClosed();
  });
  return record;
}
