import Router from '@koa/router';
import type { Middleware } from 'koa';
import { restProcedures } from './procedures.ts';

/**
 * The /api routes: one per procedure with an `openapi` meta, all served by the same
 * bridge to the procedures. Extra routes (multipart uploads, downloads) are added by
 * `extraRoutes`. A known path with another method answers 405 with `Allow`.
 */
export function createApiRouter(restHandler: Middleware, extraRoutes?: (router: Router) => void): Router {
  const router = new Router({ prefix: '/api' });
  for (const { route } of restProcedures) {
    const koaPath = route.path.replace(/\{(\w+)\}/g, ':$1');
    router.register(koaPath, [route.method], restHandler);
  }
  extraRoutes?.(router);
  return router;
}

/** Sets 405 (or 501) with `Allow`; the problem-details middleware writes the body. */
export function allowedMethods(router: Router): Middleware {
  return router.allowedMethods() as Middleware;
}
