import { createRequire } from 'node:module';

/** The package version: reported in the OpenAPI document and stamped on simulation messages. */
export const VERSION: string = createRequire(import.meta.url)('../../package.json').version;
