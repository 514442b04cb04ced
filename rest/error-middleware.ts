import type { Context as KoaContext, Middleware } from 'koa';
import type { Logger } from '../server/logger.ts';
import { isDependencyDown, problem, sendProblem } from './problem.ts';

/**
 * Outermost guard: whatever goes wrong below — a thrown http error (koa, router, body
 * reader), a crash, or no route at all — leaves as problem details, never as a stack trace.
 */
export function problemDetails(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body == null && ctx.status >= 400) {
        sendProblem(ctx, problem(ctx.status, DEFAULT_DETAIL[ctx.status]?.(ctx) ?? 'The request failed'));
      }
    } catch (error) {
      const status = httpStatusOf(error);
      if (status !== undefined && status < 500) {
        // http-errors from koa, @koa/router (405 sets Allow) and the body reader.
        sendProblem(ctx, problem(status, (error as Error).message));
        return;
      }
      ctx.state.logger?.error({ err: error }, 'request failed') ??
        logger.error({ err: error }, 'request failed');
      if (isDependencyDown(error)) {
        sendProblem(
          ctx,
          problem(503, 'A service this request depends on is unavailable; try again shortly'),
          5,
        );
      } else {
        sendProblem(ctx, problem(500, 'An unexpected error occurred'));
      }
    }
  };
}

/** Details for the statuses that reach here without a body: no route, or no such method there. */
const DEFAULT_DETAIL: Record<number, (ctx: KoaContext) => string> = {
  404: (ctx) => `No route for ${ctx.method} ${ctx.path}`,
  405: (ctx) => `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}`,
  501: (ctx) => `${ctx.method} is not implemented by this service`,
};

function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, expose } = error as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && expose !== false ? status : undefined;
}
