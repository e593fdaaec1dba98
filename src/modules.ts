/**
 * The feature modules of the service. `serve` mounts their routes and (by default) runs their
 * workers; `worker` runs only their workers.
 */
import type { AppContext, Module } from './context.ts';

export async function loadModules(): Promise<Module[]> {
  return [];
}

export async function initModules(ctx: AppContext): Promise<Module[]> {
  const modules = await loadModules();
  for (const m of modules) await m.init?.(ctx);
  return modules;
}
