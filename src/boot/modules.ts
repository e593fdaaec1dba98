/**
 * The feature modules of the service. `serve` mounts their routes and (by default) runs their
 * workers; `worker` runs only their workers.
 */
import type { Deps, Module } from '../deps.ts';
import { mcpModule } from '../clients/mcp/module.ts';
import { fidelityModule } from '../features/fidelity/index.ts';
import { memoryModule } from '../features/memory/index.ts';
import { questionnaireModule } from '../features/questionnaire/index.ts';
import { simulationsModule } from '../features/simulations/index.ts';
import { snapshotsModule } from '../features/snapshots/index.ts';
import { webModule } from '../clients/dashboard/module.ts';

export async function loadModules(): Promise<Module[]> {
  return [snapshotsModule, memoryModule, questionnaireModule, simulationsModule, fidelityModule, webModule, mcpModule];
}

export async function initModules(ctx: Deps): Promise<Module[]> {
  const modules = await loadModules();
  for (const m of modules) await m.init?.(ctx);
  for (const m of modules) if (m.on) ctx.events.subscribe(m.on(ctx));
  return modules;
}
