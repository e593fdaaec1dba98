/** What other features may use of this one. */
export { usageModule } from './module.ts';
export { UsageRecorder } from './recorder.ts';
