import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import type { TestServer } from '../../support/server.ts';
import { fixturePath } from '../../support/shared-data.ts';

/** A file of test/fixtures (see SOURCES.md there). */
export const fixtureFile = (rel: string) => readFile(fixturePath(rel));
/** The first two thirds of the three 2012 debates (test/fixtures), as one text: real conversation to make long files of. */
export const debateExcerpts = async (): Promise<string> =>
  (await Promise.all(['2012-10-03', '2012-10-16', '2012-10-22'].map((d) => readFile(fixturePath(`transcripts/us-presidential-debates/${d}.said.txt`), 'utf8')))).join('\n');

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

/** Rows of a query on the server's database. */
export async function rows(s: TestServer, query: SQL): Promise<any[]> {
  return ((await s.ctx.db.execute(query)) as any).rows;
}

export async function count(s: TestServer, table: string): Promise<number> {
  return (await rows(s, sql.raw(`select count(*)::int as n from ${table}`)))[0].n;
}

/** Files in the local artifact store, as paths relative to its root. */
export async function storedFiles(s: TestServer): Promise<string[]> {
  const root = path.join(s.config.dataDir, 'artifacts');
  try {
    return (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)));
  } catch {
    return [];
  }
}

/** A short three-speaker exchange, in the debates' `Name: text` layout. */
export const PANEL = [
  'Jim Lehrer: Good evening. Let us begin with jobs, and what each of you would do about them in the first year.',
  'Barack H Obama: I think the first thing is to invest in education and training, so that people can find the work that is out there.',
  'W Mitt Romney: I believe small businesses create the jobs, and I would cut the rules that hold them back every single day.',
  'Jim Lehrer: And the deficit, how would you bring it down?',
  'Barack H Obama: We have to cut spending we do not need and ask the wealthiest to pay a little more, because that is fair.',
  'W Mitt Romney: I will not raise taxes on families; I will cut programs and grow the economy, and that closes the gap.',
].join('\n\n');
