/** What other features may use of this one. */
export { tagsModule } from './module.ts';
export { SetMindTagsBody, Tag, TagNames } from './schemas.ts';
export { ensureTags, parseTagNames, setMindTagIds } from './service.ts';
