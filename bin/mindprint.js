#!/usr/bin/env node
// The `mindprint` executable. It runs the compiled JavaScript in dist/ (built by `npm run build`,
// which `npm ci`/`npm install` run as `prepare`): that is all an installed package has. In a clone
// whose sources are newer than the build (edited, pulled, or never built), it runs src/main.ts
// through tsx instead, so a change is never hidden behind a stale build; `npm run build` makes the
// fast start come back.
//
// Nothing newer than Node 20's APIs may be imported statically here: require-node.js must run
// first (imports run in order) and say which Node is needed; newer modules are imported after it.
import './require-node.js';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';

// V8's code cache for our modules and dependencies (in the OS temp dir): later starts skip compiling them.
(await import('node:module')).enableCompileCache?.();

const root = new URL('../', import.meta.url);
const compiled = new URL('dist/main.js', root);

/** Whether dist/ was built from the sources as they are (or there are no sources: an installed package). */
function buildIsCurrent() {
  if (!existsSync(compiled)) return false;
  const sources = [new URL('src/', root), new URL('packages/client/src/', root)].filter((dir) => existsSync(dir));
  if (!sources.length) return true;
  let builtAt;
  try {
    builtAt = Number(JSON.parse(readFileSync(new URL('dist/.build.json', root), 'utf8')).startedAt);
  } catch {
    return false;
  }
  for (const dir of sources) {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && statSync(`${entry.parentPath}/${entry.name}`).mtimeMs > builtAt) return false;
    }
  }
  return true;
}

if (buildIsCurrent()) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
