/**
 * `npm run build` (also run by `prepare`): the client package (packages/client/dist, ESM + .d.ts)
 * and the service and CLI (dist/, what bin/mindprint.js runs).
 *
 * dist/ mirrors src/: src/a/b.ts → dist/a/b.js, one level below the root like src/, so a module's
 * path to an asset at the root (`new URL('../../drizzle', import.meta.url)`, web/dist,
 * package.json) is the same compiled and from source. Every file under src/ that is not TypeScript
 * (models, READMEs, anything added later) is copied to the same place under dist/, so a module's
 * path to a file beside it (`new URL('./models/x.bin', import.meta.url)`) works too.
 * dist/.build.json records when the build started: bin/mindprint.js runs the sources instead when
 * one of them is newer.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const startedAt = Date.now();
const run = (args: string[]) => execFileSync(process.execPath, [tsc, ...args], { cwd: ROOT, stdio: 'inherit' });

run(['-b', 'packages/client']);
rmSync(DIST, { recursive: true, force: true });
run(['-p', 'tsconfig.build.json']);

let assets = 0;
for (const entry of readdirSync(SRC, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || /\.[cm]?tsx?$/.test(entry.name)) continue;
  const from = path.join(entry.parentPath, entry.name);
  const to = path.join(DIST, path.relative(SRC, from));
  mkdirSync(path.dirname(to), { recursive: true });
  copyFileSync(from, to);
  assets++;
}
writeFileSync(path.join(DIST, '.build.json'), JSON.stringify({ startedAt }) + '\n');
process.stdout.write(`mindprint build: dist/ (${assets} asset files copied) in ${((Date.now() - startedAt) / 1000).toFixed(1)} s\n`);
