import { readFile } from 'node:fs/promises';
import type { TestServer } from '../support/server.ts';

export const DATA = new URL('../../../shared/data/', import.meta.url);
export const dataFile = (rel: string) => readFile(new URL(rel, DATA));

export function form(parts: Record<string, string | { bytes: Uint8Array | string; name: string; type?: string }>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(parts)) {
    if (typeof v === 'string') fd.append(k, v);
    else fd.append(k, new Blob([v.bytes as BlobPart], { type: v.type ?? 'application/octet-stream' }), v.name);
  }
  return fd;
}

/** Polls the status endpoint until the snapshot leaves pending/processing (bounded). */
export async function waitForSnapshot(s: TestServer, mindId: string, snapshotId: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await s.api('GET', `/minds/${mindId}/snapshots/${snapshotId}/status`);
    if (res.body.status === 'completed' || res.body.status === 'failed') return res.body;
    if (Date.now() > deadline) throw new Error(`snapshot still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function upload(s: TestServer, mindId: string, parts: Parameters<typeof form>[0], key?: string) {
  return s.api('POST', `/minds/${mindId}/snapshots`, form(parts), key);
}
