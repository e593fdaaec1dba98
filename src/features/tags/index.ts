/** What other features may use of this one. */
export { tagRoutes } from './routes.ts';
export { SetMindTagsBody, Tag, TagNames } from './schemas.ts';
export { ensureTags, parseTagNames, setMindTagIds } from './service.ts';
