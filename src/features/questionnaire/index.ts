/** What other features may use of this one. */
export { questionnaireModule } from './module.ts';
