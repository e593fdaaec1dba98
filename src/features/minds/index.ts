/** What other features may use of this one. */
export { mindRoutes } from './routes.ts';
export { MindCache } from './cache.ts';
export { assertMindExists, getDefaultTwinId, setMindTags } from './service.ts';
export { MindParams, Mind } from './schemas.ts';
