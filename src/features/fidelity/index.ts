/** What other features may use of this one. */
export { fidelityModule } from './module.ts';
