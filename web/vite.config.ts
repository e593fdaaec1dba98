/**
 * The dashboard's build: `npm run build:web` (src/clients/dashboard/build.ts) writes web/dist, which the API
 * process serves at /app/. For work on the dashboard itself, `npx vite web` serves it with hot
 * reload and forwards API calls to a Mindprint on :3000.
 */
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/app/',
  plugins: [react()],
  // The SDK (@mindprint/client, a workspace package) is bundled from its TypeScript sources, so the
  // dashboard never needs the package built first.
  resolve: { alias: { '@mindprint/client': fileURLToPath(new URL('../packages/client/src/index.ts', import.meta.url)) } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The SDK loads node:fs only to read uploads given as paths, which a browser never does.
    rolldownOptions: { external: [/^node:/] },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
