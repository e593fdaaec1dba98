/** What other features may use of this one. */
export { keyRoutes } from './routes.ts';
