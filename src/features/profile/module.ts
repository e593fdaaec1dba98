import type { Module } from '../../deps.ts';
import { profileRoutes } from './routes.ts';

/** The profile of a mind: GET /minds/{mindId}/profile, the persona card and its cache (inputs.ts, persona.ts). */
export const profileModule: Module = {
  name: 'profile',
  routes: profileRoutes,
};
