/**
 * Builds the dashboard (web/ → web/dist) with Vite.
 *
 *   node --import tsx src/clients/dashboard/build.ts              build now (npm run build:web)
 *   node --import tsx src/clients/dashboard/build.ts --if-stale   only when web/dist is missing or older than its sources
 *   … --soft                                        a failed build warns and exits 0 (npm ci, npm start:
 *                                                   the API must come up even when the dashboard cannot be built)
 *
 * The server never imports this file: Vite and React are build tools, not runtime dependencies.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const WEB_DIR = path.join(ROOT, 'web');
export const DIST_INDEX = path.join(WEB_DIR, 'dist', 'index.html');
/** What the bundle is made of: the dashboard, the SDK it imports (from its sources), and the installed versions. */
const SOURCES = ['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'packages/client/src', 'package-lock.json'].map((p) => path.join(ROOT, p));

async function newestMtime(p: string): Promise<number> {
  const s = await stat(p).catch(() => null);
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  const entries = await readdir(p);
  const times = await Promise.all(entries.map((e) => newestMtime(path.join(p, e))));
  return Math.max(s.mtimeMs, ...times);
}

/** True when web/dist is missing or older than any of its sources. */
export async function isDashboardStale(): Promise<boolean> {
  const built = await stat(DIST_INDEX).catch(() => null);
  if (!built) return true;
  const sources = await Promise.all(SOURCES.map(newestMtime));
  return Math.max(...sources) > built.mtimeMs;
}

export async function buildDashboard(opts: { quiet?: boolean } = {}): Promise<void> {
  const { build } = await import('vite');
  await build({ root: WEB_DIR, configFile: path.join(WEB_DIR, 'vite.config.ts'), logLevel: opts.quiet ? 'warn' : 'info' });
}

/** Builds when stale; answers whether it built. */
export async function ensureDashboard(opts: { quiet?: boolean } = {}): Promise<boolean> {
  if (!(await isDashboardStale())) return false;
  await buildDashboard(opts);
  return true;
}

async function main(argv: string[]): Promise<void> {
  const ifStale = argv.includes('--if-stale');
  const soft = argv.includes('--soft');
  try {
    if (ifStale) {
      if (await ensureDashboard()) console.error('mindprint: dashboard built (web/dist)');
    } else {
      await buildDashboard();
    }
  } catch (err) {
    if (!soft) throw err;
    console.error(
      `mindprint: the dashboard could not be built (${(err as Error).message.split('\n')[0]}).\n` +
        'The API works without it; /app/ explains how to build it (npm run build:web).',
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main(process.argv.slice(2));
