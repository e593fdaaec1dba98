/** What other features may use of this one. */
export { PersonaCache } from './inputs.ts';
export { mindProfile } from './service.ts';
export { profileModule } from './module.ts';
export { Finding, KeyTopic, MindProfile, Psychometric } from './schemas.ts';
