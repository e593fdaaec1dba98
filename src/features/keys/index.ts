/** What other features may use of this one. */
export { keysModule } from './module.ts';
