/** What other features may use of this one. */
export { usageRoutes } from './routes.ts';
export { UsageRecorder } from './recorder.ts';
