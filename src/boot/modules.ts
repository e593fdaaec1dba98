/**
 * The feature modules of the service. `serve` mounts their routes and (by default) runs their
 * workers; `worker` runs only their workers.
 */
import type { Deps, Module } from '../deps.ts';
import { mcpModule } from '../clients/mcp/module.ts';
import { keysModule } from '../features/keys/index.ts';
import { exportsModule } from '../features/exports/index.ts';
import { fidelityModule } from '../features/fidelity/index.ts';
import { memoryModule } from '../features/memory/index.ts';
import { mindsModule } from '../features/minds/index.ts';
import { profileModule } from '../features/profile/index.ts';
import { questionnaireModule } from '../features/questionnaire/index.ts';
import { simulationsModule } from '../features/simulations/index.ts';
import { snapshotsModule } from '../features/snapshots/index.ts';
import { tagsModule } from '../features/tags/index.ts';
import { usageModule } from '../features/usage/index.ts';
import { usersModule } from '../features/users/index.ts';
import { webhooksModule } from '../features/webhooks/index.ts';
import { webModule } from '../clients/dashboard/module.ts';

/** In this order their routes are registered (and their `init` and `on` run). */
export async function loadModules(): Promise<Module[]> {
  return [mindsModule, tagsModule, keysModule, usageModule, usersModule, profileModule, snapshotsModule, memoryModule, questionnaireModule, simulationsModule, fidelityModule, exportsModule, webhooksModule, webModule, mcpModule];
}

export async function initModules(ctx: Deps): Promise<Module[]> {
  const modules = await loadModules();
  for (const m of modules) await m.init?.(ctx);
  for (const m of modules) if (m.on) ctx.events.subscribe(m.on(ctx));
  return modules;
}
