/**
 * Serves the web dashboard (the Vite build in web/dist) at /app/, with no key: the files hold no
 * data, every API call the dashboard makes carries the user's key.
 *
 * - `/` and `/app` redirect to `/app/`.
 * - Files of the build are sent as they are; the hashed ones under assets/ are immutable, the
 *   rest (favicon, …) revalidate.
 * - Any other path under /app/ that does not name a file is a dashboard route: it gets
 *   index.html (no-cache), with the API base path written into its
 *   `<meta name="mindprint-base-path">`, so the dashboard follows MINDPRINT_BASE_PATH.
 * - When there is no build, /app/ answers a page that says how to make one.
 */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULT_DIST_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

export interface WebRoutesOptions {
  /** The API prefix the dashboard calls (config.basePath). */
  basePath: string;
  /** The Vite build (default: web/dist of this checkout). */
  distDir?: string;
}

/** The bundle loads only its own scripts and styles and talks only to this origin. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Mindprint — dashboard not built</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem">
<h1>The dashboard has not been built</h1>
<p>This server found no <code>web/dist/index.html</code>. Build the dashboard in the Mindprint checkout and reload this page:</p>
<pre style="background:#f3f4f6;padding:.75rem 1rem;border-radius:6px">npm run build:web</pre>
<p><code>npm ci</code> builds it too, and so does <code>npm start</code> when the build is missing or older than <code>web/src</code>.
The API works without it.</p>
</body></html>`;

export async function webRoutes(app: FastifyInstance, opts: WebRoutesOptions): Promise<void> {
  const distDir = path.resolve(opts.distDir ?? DEFAULT_DIST_DIR);
  const indexFile = path.join(distDir, 'index.html');
  // sendFile only: which files exist is decided per request, so a rebuild needs no restart.
  await app.register(fastifyStatic, { root: distDir, serve: false });

  const html = (reply: FastifyReply, status: number, body: string) =>
    reply
      .status(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', DASHBOARD_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(body);

  const sendIndex = async (reply: FastifyReply) => {
    let page: string;
    try {
      page = await readFile(indexFile, 'utf8');
    } catch {
      return html(reply, 503, NOT_BUILT_PAGE);
    }
    // The build's index.html carries the default; this server's base path replaces it.
    page = page.replace(/(<meta name="mindprint-base-path" content=")[^"]*(")/, `$1${escapeHtml(opts.basePath)}$2`);
    return html(reply, 200, page);
  };

  const toApp = { schema: { hide: true } };
  app.get('/', toApp, async (_req, reply) => reply.redirect('/app/'));
  app.get('/app', toApp, async (_req, reply) => reply.redirect('/app/'));
  app.get('/app/*', toApp, async (req, reply) => {
    const rel = (req.params as { '*': string })['*'];
    if (rel === '' || rel === 'index.html') return sendIndex(reply);
    const file = path.resolve(distDir, rel);
    if (!file.startsWith(distDir + path.sep)) return notFound(reply, rel);
    if ((await stat(file).catch(() => null))?.isFile()) {
      const name = path.relative(distDir, file);
      if (name.startsWith(`assets${path.sep}`)) return reply.sendFile(name, { maxAge: '365d', immutable: true });
      return reply.header('cache-control', 'no-cache').sendFile(name, { cacheControl: false });
    }
    // A missing file (an old hashed asset, a typo) is a 404, not the app: a script tag that
    // receives HTML fails in confusing ways.
    if (rel.startsWith('assets/') || /\.[A-Za-z0-9]+$/.test(rel)) return notFound(reply, rel);
    return sendIndex(reply);
  });
}

const notFound = (reply: FastifyReply, rel: string) => reply.status(404).send({ error: 'Not Found', message: `No file /app/${rel}`, code: 'NOT_FOUND' });
