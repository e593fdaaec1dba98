import type { Module } from '../../deps.ts';
import { keyRoutes } from './routes.ts';

/** API keys: the calling user's keys, listed, created and revoked. */
export const keysModule: Module = {
  name: 'keys',
  routes: keyRoutes,
};
