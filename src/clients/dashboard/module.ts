import type { Module } from '../../deps.ts';
import { webRoutes } from './routes.ts';

/** The web dashboard at /app/ (static files, outside the authenticated API). */
export const webModule: Module = {
  name: 'web',
  publicRoutes: (app, ctx) => webRoutes(app, { basePath: ctx.config.basePath }),
};
