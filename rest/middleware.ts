import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import type { Context as KoaContext, Middleware } from 'koa';
import { forbidden } from '../domain/errors.ts';
import type { Logger } from '../domain/ports/logger.ts';
import { problem, problemFromError, type ShapedError, sendProblem } from './problem.ts';
import { isTrpcPath } from './trpc-endpoint.ts';

/**
 * The middleware every request passes before its route, in the order app/app.ts mounts it: the
 * request log line, problem details for every error, the same-origin guard for state changes.
 */

const REQUEST_ID = /^[\w.:-]{1,100}$/;

/**
 * Gives each request an id (the caller's `X-Request-Id` when it is sane), a child logger
 * carrying it (both in `ctx.state`, a `RequestState`), and one log line when it ends: method,
 * path (no query string: it may hold tokens), status and duration. Headers and bodies are
 * never logged.
 */
export function requestLogging(logger: Logger, onEnd?: RequestObserver): Middleware {
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
      onEnd?.(ctx.method, routeOf(ctx), ctx.status, line.durationMs / 1000);
    }
  };
}

/** Told of every request as it ends (the metrics' duration histogram, app/metrics.ts). */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

const templates = new Map<string, string>();

/**
 * The route a request matched, as its documented template (`/api/decks/{deckId}`): the /api
 * route's own (set by its dispatch), else Koa's router's (`:param` written `{param}`), else ''
 * (no route: never the raw path, whose values would make every request a new series).
 */
function routeOf(ctx: KoaContext): string {
  if (ctx.state.route) return ctx.state.route;
  const matched = (ctx as KoaContext & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched !== 'string') return '';
  let template = templates.get(matched);
  if (template === undefined) {
    template = matched.replace(/:(\w+)\*?/g, '{$1}');
    templates.set(matched, template);
  }
  return template;
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
  /** The matched route's documented template, when a route says it (rest/dispatch.ts, /trpc). */
  route: string | undefined = undefined;
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

/**
 * Outermost guard, and the one place errors become answers: whatever goes wrong below — a
 * procedure's or a route's error, a thrown http error (koa, router, body reader), a refusal of
 * the edge, a crash, or no route at all — leaves as problem details (`problemFromError`), never
 * as a stack trace; on /trpc in tRPC's error shape instead (`trpcErrors`, rest/trpc-endpoint.ts),
 * which its client needs.
 */
export function problemDetails(
  logger: Logger,
  options: { trpcErrors?: (ctx: KoaContext, error: unknown) => Promise<void> } = {},
): Middleware {
  const answer = async (ctx: KoaContext, error: unknown, shaped: ShapedError) => {
    if (options.trpcErrors && isTrpcPath(ctx.path)) await options.trpcErrors(ctx, error);
    else sendProblem(ctx, shaped.problem, shaped.retryAfterSeconds);
  };
  return async (ctx, next) => {
    try {
      await next();
      // No route answered (the /trpc endpoint always answers with a body).
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
      await answer(ctx, error, shaped);
    }
  };
}

/** Details for the statuses that reach here without a body: no route, or no such method there. */
const DEFAULT_DETAIL: Record<number, (ctx: KoaContext) => string> = {
  404: (ctx) => `No route for ${ctx.method} ${ctx.path}`,
  405: (ctx) => `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}`,
  501: (ctx) => `${ctx.method} is not implemented by this service`,
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery guard. A browser attaches the `session` cookie to a form or
 * `fetch` another site sends here; a state-changing request (any method but GET, HEAD,
 * OPTIONS) is refused with 403 when the browser says it did not come from this service's
 * own pages:
 * - `Sec-Fetch-Site: cross-site`, and `same-site` too (a sibling subdomain is another
 *   party; this service answers no CORS, so its own pages are always `same-origin`);
 * - an `Origin` that is neither the request's own origin (scheme and Host, which honour
 *   TRUST_PROXY) nor PUBLIC_URL's (`Origin: null` counts as foreign).
 * Requests with neither header (curl, servers, scripts) pass: they carry no victim's cookie.
 * `exempt` paths (the signed `/storage` addresses) carry their permission in the signature.
 */
export function sameOrigin(options: { publicUrl?: string; exempt?: (path: string) => boolean }): Middleware {
  const publicOrigin = options.publicUrl ? originOf(options.publicUrl) : undefined;
  return async (ctx, next) => {
    if (SAFE_METHODS.has(ctx.method) || options.exempt?.(ctx.path)) return next();
    const refusal = crossSiteReason(ctx, publicOrigin);
    // Thrown, so that it is answered in the shape of the path (problem details, or tRPC's on /trpc).
    if (refusal) throw forbidden(refusal);
    return next();
  };
}

function crossSiteReason(ctx: KoaContext, publicOrigin: string | undefined): string | undefined {
  const fetchSite = ctx.get('sec-fetch-site').toLowerCase();
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') {
    return `Refused: a ${ctx.method} must come from this service's own pages (Sec-Fetch-Site: ${fetchSite})`;
  }
  const origin = ctx.get('origin');
  if (origin !== '') {
    const presented = originOf(origin);
    // Not `ctx.origin`: in Koa 3 that is the request's Origin header itself.
    const own = originOf(`${ctx.protocol}://${ctx.host}`);
    if (presented === undefined || (presented !== own && presented !== publicOrigin)) {
      return `Refused: a ${ctx.method} must come from this service's own origin, not ${origin.slice(0, 200)}`;
    }
  }
  return undefined;
}

/** `scheme://host[:port]`, normalised (lower case, default port dropped); undefined if not a URL origin. */
function originOf(value: string): string | undefined {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
