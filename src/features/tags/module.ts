import type { Module } from '../../deps.ts';
import { tagRoutes } from './routes.ts';

/** Tags: labels on minds, unique per organization without regard to case. */
export const tagsModule: Module = {
  name: 'tags',
  routes: tagRoutes,
};
