import { TRPCError } from '@trpc/server';
import type { Context as KoaContext, Middleware } from 'koa';
import type { Logger } from '../domain/ports/logger.ts';
import { problem, problemFromError, sendProblem } from './problem.ts';

/**
 * Outermost guard, and the one place errors become answers: whatever goes wrong below — a
 * procedure's or a route's error, a thrown http error (koa, router, body reader), a crash, or
 * no route at all — leaves as problem details (`problemFromError`), never as a stack trace.
 */
export function problemDetails(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body == null && ctx.status >= 400) {
        sendProblem(ctx, problem(ctx.status, DEFAULT_DETAIL[ctx.status]?.(ctx) ?? 'The request failed'));
      }
    } catch (error) {
      const shaped = problemFromError(error);
      if (shaped.unexpected) {
        // A procedure's crash is logged with its cause (the tRPC error only wraps it).
        const [err, message] =
          error instanceof TRPCError ? [error.cause ?? error, 'procedure failed'] : [error, 'request failed'];
        (ctx.state.logger ?? logger).error({ err }, message);
      }
      sendProblem(ctx, shaped.problem, shaped.retryAfterSeconds);
    }
  };
}

/** Details for the statuses that reach here without a body: no route, or no such method there. */
const DEFAULT_DETAIL: Record<number, (ctx: KoaContext) => string> = {
  404: (ctx) => `No route for ${ctx.method} ${ctx.path}`,
  405: (ctx) => `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}`,
  501: (ctx) => `${ctx.method} is not implemented by this service`,
};
