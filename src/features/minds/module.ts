import type { Module } from '../../deps.ts';
import { mindRoutes } from './routes.ts';

/** Minds: profiles of people, with their tags, default digital twin and counts. */
export const mindsModule: Module = {
  name: 'minds',
  routes: mindRoutes,
};
