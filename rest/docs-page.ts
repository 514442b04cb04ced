import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import Router from '@koa/router';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { servedDocument } from './openapi-document.ts';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Files served from the swagger-ui-dist package: the page needs no CDN. */
const ASSETS: Record<string, { file: string; type: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'favicon-32x32.png': { file: 'favicon-32x32.png', type: 'image/png' },
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Deck service API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" type="image/png" href="/api/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/assets/init.js"></script>
</body>
</html>
`;

// A separate file, not an inline script, so the page works under a strict CSP.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  withCredentials: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0
});
`;

const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'",
  'X-Content-Type-Options': 'nosniff',
};

/** GET /api/openapi.json, and the reference page at GET /api/docs rendered from it. */
export function createDocsRouter(document: OpenAPIObject, options: { publicUrl?: string } = {}): Router {
  const router = new Router();
  const documentJson = servedDocument(document, options.publicUrl);
  const assetCache = new Map<string, Buffer>();

  router.get('/api/openapi.json', (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    // Its servers entry is this request's origin unless PUBLIC_URL fixes it: a cache must key on it.
    if (!options.publicUrl) {
      for (const header of ctx.app.proxy ? ['Host', 'X-Forwarded-Host', 'X-Forwarded-Proto'] : ['Host']) {
        ctx.vary(header);
      }
    }
    ctx.body = documentJson(`${ctx.protocol}://${ctx.host}`);
  });
  router.get('/api/docs', (ctx) => {
    ctx.set(SECURITY_HEADERS);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });
  router.get('/api/docs/assets/init.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/api/docs/assets/:name', async (ctx, next) => {
    const asset = ASSETS[ctx.params.name!];
    if (!asset) return next();
    let content = assetCache.get(asset.file);
    if (!content) {
      content = await readFile(path.join(swaggerUiDir, asset.file));
      assetCache.set(asset.file, content);
    }
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = asset.type;
    ctx.body = content;
  });
  return router;
}
