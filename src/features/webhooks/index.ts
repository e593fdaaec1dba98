/** What other parts may use of the webhooks feature. */
export { webhooksModule } from './module.ts';
export { refusedRange } from './target.ts';
