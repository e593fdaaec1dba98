/** What other features may use of this one. */
export { exportsModule } from './module.ts';
export { BUNDLE_FORMAT, BUNDLE_MEDIA_TYPE, MindBundle } from './schemas.ts';
