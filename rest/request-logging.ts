import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../domain/ports/logger.ts';

const REQUEST_ID = /^[\w.:-]{1,100}$/;

/**
 * Gives each request an id (the caller's `X-Request-Id` when it is sane), a child logger
 * carrying it (both in `ctx.state`, a `RequestState`), and one log line when it ends: method,
 * path (no query string: it may hold tokens), status and duration. Headers and bodies are
 * never logged.
 */
export function requestLogging(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state = new RequestState(logger, requestId);
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
      if (serviceFailed(ctx.status)) logger.error({ requestId, ...line }, 'request');
      else logger.info({ requestId, ...line }, 'request');
    }
  };
}

/**
 * Whether an answer says the service failed (error level). Every 5xx does but 501: it says the
 * request's method is one this service does not implement (TRACE, PROPFIND, … from scanners),
 * a fact about the request like a 405, not a failure anyone should be woken for.
 */
function serviceFailed(status: number): boolean {
  return status >= 500 && status !== 501;
}

/**
 * Koa's `ctx.state` for one request: its id and a child logger carrying it, made when something
 * logs through it (most requests only end). A class with the getter on its prototype, not a
 * per-request accessor: V8 allocates an accessor pair in old space, which would keep every
 * finished request referenced from there until the next full collection (see `CookieSession`
 * in rest/request-context.ts). Other middleware add their own fields to it.
 */
class RequestState {
  readonly requestId: string;
  readonly #base: Logger;
  #logger: Logger | undefined;

  constructor(base: Logger, requestId: string) {
    this.#base = base;
    this.requestId = requestId;
  }

  get logger(): Logger {
    this.#logger ??= this.#base.child({ requestId: this.requestId });
    return this.#logger;
  }
}
