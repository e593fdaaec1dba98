import type { Module } from '../../deps.ts';
import { webRoutes } from './routes.ts';

/** The web dashboard at /app/ (static files, outside the authenticated API). */
export const webModule: Module = {
  name: 'web',
  publicRoutes: async (app, { deps }) => webRoutes(app, { basePath: deps.config.basePath }),
};
