/**
 * The embedded database is a directory only one process may open. Whoever opens it — a server
 * or a one-off command (`keys …`, `migrate`) — first creates a lock file naming its pid, role and
 * (for a server) address; anyone else refuses, or for a short command waits for it to finish,
 * instead of opening the directory twice and corrupting it.
 *
 * The lock file is created atomically with its content (written to a private file, then
 * hard-linked into place, which fails if a lock exists), so two processes can never both
 * believe they hold it. A lock whose process is dead (killed, crashed) is stale and taken over,
 * under a short-lived guard file so that two processes cannot both take it over.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface LockInfo {
  pid: number;
  /** "serve", or the command holding the directory ("keys create", "migrate", …). */
  role: string;
  url: string | null;
  startedAt: string;
}

const lockPath = (dataDir: string) => path.join(dataDir, 'mindprint.lock');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock file's text, or null when there is none. */
async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function parse(text: string): LockInfo | null {
  try {
    const info = JSON.parse(text) as LockInfo;
    return typeof info.pid === 'number' ? { ...info, role: info.role ?? 'serve' } : null;
  } catch {
    return null;
  }
}

/** The live process holding the data dir, or null (a stale lock from a dead process is ignored). */
export async function readLock(dataDir: string): Promise<LockInfo | null> {
  const text = await readText(lockPath(dataDir));
  const info = text === null ? null : parse(text);
  return info && alive(info.pid) ? info : null;
}

export class DataDirInUseError extends Error {
  constructor(
    readonly holder: LockInfo,
    dataDir: string,
  ) {
    super(
      holder.role === 'serve'
        ? `The embedded database in ${dataDir} is in use by a running Mindprint server (pid ${holder.pid}${holder.url ? `, ${holder.url}` : ''}). ` +
            'Stop that server first, or use its HTTP API (e.g. POST /api-keys), or run on PostgreSQL (DATABASE_URL) where servers and commands can share the database.'
        : `The embedded database in ${dataDir} is in use by \`mindprint ${holder.role}\` (pid ${holder.pid}); try again when it has finished.`,
    );
  }
}

/** Writes `text` to a private file and hard-links it to `target`: false if `target` exists. */
async function createExclusive(target: string, text: string): Promise<boolean> {
  const tmp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(tmp, text);
  try {
    await link(tmp, target);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
}

/** Removes the lock if it still has exactly the stale text seen, under a guard so only one process does. */
async function takeOverStale(file: string, staleText: string): Promise<void> {
  const guard = `${file}.takeover`;
  if (!(await createExclusive(guard, String(process.pid)))) {
    // Someone else is taking over; a guard left by a process that died mid-way expires.
    const age = await stat(guard).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (age > 10_000) await rm(guard, { force: true });
    await sleep(20);
    return;
  }
  try {
    if ((await readText(file)) === staleText) await rm(file, { force: true });
  } finally {
    await rm(guard, { force: true });
  }
}

export interface AcquireOptions {
  /** "serve" or the command's name; shown to whoever is refused. */
  role: string;
  /** How long to wait while a one-off command holds the directory (a server is never waited for). */
  waitForCommandMs?: number;
}

/** Takes the data dir for this process; the returned function releases it. */
export async function acquireLock(dataDir: string, opts: AcquireOptions): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const file = lockPath(dataDir);
  const mine: LockInfo = { pid: process.pid, role: opts.role, url: null, startedAt: new Date().toISOString() };
  const text = JSON.stringify(mine);
  const deadline = Date.now() + (opts.waitForCommandMs ?? 60_000);
  for (;;) {
    if (await createExclusive(file, text)) break;
    const current = await readText(file);
    if (current === null) continue; // released meanwhile
    const holder = parse(current);
    if (holder && alive(holder.pid)) {
      if (holder.role === 'serve' || Date.now() > deadline) throw new DataDirInUseError(holder, dataDir);
      await sleep(100);
      continue;
    }
    await takeOverStale(file, current);
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    // Only our own lock: never one a later process took over.
    const current = await readText(file);
    if (current !== null && parse(current)?.pid === process.pid && parse(current)?.startedAt === mine.startedAt) await rm(file, { force: true });
  };
}

/** Records the server's address in its lock (for the message others get). */
export async function updateLockUrl(dataDir: string, url: string): Promise<void> {
  const file = lockPath(dataDir);
  const current = parse((await readText(file)) ?? '');
  if (!current || current.pid !== process.pid) return;
  const tmp = `${file}.${process.pid}.url`;
  await writeFile(tmp, JSON.stringify({ ...current, url } satisfies LockInfo));
  await rename(tmp, file);
}
