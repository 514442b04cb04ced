import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from './logger.ts';

const REQUEST_ID = /^[\w.:-]{1,100}$/;

/**
 * Gives each request an id (the caller's `X-Request-Id` when it is sane), a child logger
 * carrying it, and one log line when it ends: method, path (no query string: it may hold
 * tokens), status and duration. Headers and bodies are never logged.
 */
export function requestLogging(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    // The child logger is made when something logs through it (most requests only end).
    let child: Logger | undefined;
    Object.defineProperty(ctx.state, 'logger', {
      get: () => (child ??= logger.child({ requestId })),
      enumerable: true,
    });
    ctx.set('X-Request-Id', requestId);
    if (logger.isLevelEnabled('debug')) {
      ctx.state.logger.debug({ method: ctx.method, path: ctx.path }, 'request started');
    }
    try {
      await next();
    } finally {
      const line = {
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      };
      // The request's id as a field of the line itself: no child logger needed for it.
      if (ctx.status >= 500) logger.error({ requestId, ...line }, 'request');
      else logger.info({ requestId, ...line }, 'request');
    }
  };
}
