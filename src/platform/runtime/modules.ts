/**
 * Starting one of our modules by path — a worker thread, a child process — from code that runs
 * either compiled (dist/*.js: the installed package, a built clone) or as TypeScript through tsx
 * (development, tests). Callers name the module as their imports do, with `.ts`; here it becomes
 * the compiled `.js` beside the caller, or the `.ts` with tsx's loader in the new thread/process.
 *
 *   new Worker(workerEntry('./worker.ts', import.meta.url), options)
 *   fork(fileURLToPath(moduleUrl('./child.ts', import.meta.url)), args, { execArgv: [...childExecArgv(import.meta.url)] })
 */

/** Whether the caller (its `import.meta.url`) is a TypeScript source, i.e. runs through tsx. */
export function runsFromSource(from: string): boolean {
  return /\.[cm]?ts$/.test(new URL(from).pathname);
}

/** The URL of `specifier` (relative, written with `.ts`) next to `from`: `.js` when running compiled. */
export function moduleUrl(specifier: string, from: string): URL {
  const url = new URL(specifier, from);
  if (!runsFromSource(from)) url.pathname = url.pathname.replace(/\.([cm]?)ts$/, '.$1js');
  return url;
}

/**
 * The entry to give `new Worker()` for `specifier`. Compiled: the `.js` file itself. From source:
 * a small module (a data: URL) that makes sure this thread has tsx's loader, then imports the
 * `.ts`. A worker inherits `--import tsx` from a process started with it, but not hooks the parent
 * registered in code (bin/mindprint.js in development), and Node's own type stripping does not run
 * everything tsx does — so the probe (./tsx-probe.ts, which only tsx can load) decides, and exactly
 * one tsx loader is active either way.
 */
export function workerEntry(specifier: string, from: string): URL {
  const target = moduleUrl(specifier, from);
  if (!runsFromSource(from)) return target;
  const probe = new URL('./tsx-probe.ts', import.meta.url).href;
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const source =
    `try { await import(${JSON.stringify(probe)}); }\n` +
    `catch { const { register } = await import(${JSON.stringify(tsxApi)}); register(); }\n` +
    `await import(${JSON.stringify(target.href)});\n`;
  return new URL(`data:text/javascript,${encodeURIComponent(source)}`);
}

/** Node options a child process needs to run a module from `moduleUrl` (tsx's loader when running from source). */
export function childExecArgv(from: string): readonly string[] {
  return runsFromSource(from) ? ['--import', import.meta.resolve('tsx')] : [];
}
