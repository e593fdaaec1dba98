import { defineConfig } from 'drizzle-kit';

// Migrations are generated from src/platform/db/schema.ts and applied at start (and by `mindprint migrate`)
// on both PGlite and PostgreSQL.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/platform/db/schema.ts',
  out: './drizzle',
});
