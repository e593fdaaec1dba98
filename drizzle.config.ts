import { defineConfig } from 'drizzle-kit';

// Migrations are generated from the tables of src/platform/db/schema/ (one file per area; the code
// imports them through src/platform/db/schema.ts) and applied at start (and by `mindprint migrate`)
// on both PGlite and PostgreSQL.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/platform/db/schema',
  out: './drizzle',
});
