/**
 * The feature modules of the service. `serve` mounts their routes and (by default) runs their
 * workers; `worker` runs only their workers.
 */
import type { AppContext, Module } from '../deps.ts';
import { mcpModule } from '../clients/mcp/module.ts';
import { memoryModule } from '../features/memory/module.ts';
import { questionnaireModule } from '../features/questionnaire/module.ts';
import { simulationsModule } from '../features/simulations/module.ts';
import { snapshotsModule } from '../features/snapshots/module.ts';
import { webModule } from '../clients/dashboard/module.ts';

export async function loadModules(): Promise<Module[]> {
  return [snapshotsModule, memoryModule, questionnaireModule, simulationsModule, webModule, mcpModule];
}

export async function initModules(ctx: AppContext): Promise<Module[]> {
  const modules = await loadModules();
  for (const m of modules) await m.init?.(ctx);
  return modules;
}
