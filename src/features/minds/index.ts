/** What other features may use of this one. */
export { mindsModule } from './module.ts';
export { MindCache } from './cache.ts';
export { assertMindExists, createMind, getDefaultTwinId, setMindTags } from './service.ts';
export { CreateMindBody, MindParams, Mind } from './schemas.ts';
