/**
 * The database schema: one definition for PGlite and PostgreSQL, migrated by drizzle-kit.
 * Every tenant-owned table carries organization_id, and every query filters on it. The tables are
 * defined by area in schema/ (drizzle.config.ts reads that folder); this module is what the rest
 * of the code imports.
 */
export * from './schema/accounts.ts';
export * from './schema/minds.ts';
export * from './schema/memory.ts';
export * from './schema/simulations.ts';
export * from './schema/service.ts';
export * from './schema/webhooks.ts';
export * from './schema/fidelity.ts';
