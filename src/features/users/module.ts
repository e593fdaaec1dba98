import type { Module } from '../../deps.ts';
import { userRoutes } from './routes.ts';

/** Users: the people of the caller's organization (GET /users), whom simulations are shared with. */
export const usersModule: Module = {
  name: 'users',
  routes: userRoutes,
};
