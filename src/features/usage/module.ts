import type { Module } from '../../deps.ts';
import { usageRoutes } from './routes.ts';

/** Usage: requests and latencies of the calling key (recorded by boot/app.ts through Deps.usage). */
export const usageModule: Module = {
  name: 'usage',
  routes: usageRoutes,
};
