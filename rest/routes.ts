import Router from '@koa/router';
import type { Middleware } from 'koa';
import { type RestProcedure, restProcedures } from './procedures.ts';

/**
 * The /api routes: one per procedure with an `openapi` meta. JSON routes are served by
 * `restRoute` (rest-handler.ts); multipart upload routes by `multipartRoute`.
 * A known path with another method answers 405 with `Allow`.
 */
export function createApiRouter(
  restRoute: (procedure: RestProcedure) => Middleware,
  multipartRoute: (router: Router, procedure: RestProcedure) => void,
): Router {
  const router = new Router({ prefix: '/api' });
  for (const procedure of restProcedures) {
    if (procedure.multipartLimit) {
      multipartRoute(router, procedure);
      continue;
    }
    const koaPath = procedure.route.path.replace(/\{(\w+)\}/g, ':$1');
    router.register(koaPath, [procedure.route.method], restRoute(procedure));
  }
  return router;
}

/** Sets 405 (or 501) with `Allow`; the problem-details middleware writes the body. */
export function allowedMethods(router: Router): Middleware {
  return router.allowedMethods() as Middleware;
}
