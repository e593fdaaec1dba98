/** What other features may use of this one. */
export { simulationsModule } from './module.ts';
