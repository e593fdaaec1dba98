import type { Module } from '../../deps.ts';
import { exportRoutes } from './routes.ts';

/** Export and import of a mind (format mindprint.mind.v1): GET /minds/{mindId}/export, POST /minds/import. */
export const exportsModule: Module = {
  name: 'exports',
  routes: exportRoutes,
};
