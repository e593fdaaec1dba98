/**
 * The embedded database is a directory only one process may open. A running server leaves a
 * lock file naming its pid and address, so CLI commands can refuse (or a second server can
 * refuse) instead of corrupting it.
 */
import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';

export interface LockInfo {
  pid: number;
  url: string | null;
  startedAt: string;
}

const lockPath = (dataDir: string) => path.join(dataDir, 'mindprint.lock');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live process holding the data dir, or null (a stale lock from a killed process is ignored). */
export async function readLock(dataDir: string): Promise<LockInfo | null> {
  try {
    const info = JSON.parse(await readFile(lockPath(dataDir), 'utf8')) as LockInfo;
    return alive(info.pid) ? info : null;
  } catch {
    return null;
  }
}

export class DataDirInUseError extends Error {
  constructor(
    readonly holder: LockInfo,
    dataDir: string,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by a running Mindprint server (pid ${holder.pid}${holder.url ? `, ${holder.url}` : ''}). ` +
        'Stop that server first, or use its HTTP API (e.g. POST /api-keys), or run on PostgreSQL (DATABASE_URL) where servers and commands can share the database.',
    );
  }
}

export async function acquireLock(dataDir: string, url: string | null): Promise<() => Promise<void>> {
  const holder = await readLock(dataDir);
  if (holder) throw new DataDirInUseError(holder, dataDir);
  await mkdir(dataDir, { recursive: true });
  const info: LockInfo = { pid: process.pid, url, startedAt: new Date().toISOString() };
  await writeFile(lockPath(dataDir), JSON.stringify(info));
  return async () => {
    await rm(lockPath(dataDir), { force: true });
  };
}

export async function updateLockUrl(dataDir: string, url: string): Promise<void> {
  await writeFile(lockPath(dataDir), JSON.stringify({ pid: process.pid, url, startedAt: new Date().toISOString() } satisfies LockInfo));
}
