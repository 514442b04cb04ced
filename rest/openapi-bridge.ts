import type { TRPCError } from '@trpc/server';
import type { Context as KoaContext, Middleware } from 'koa';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import type { appRouter } from '../routers/app-router.ts';
import type { Context } from '../routers/context.ts';
import { problemFromTrpcError, sendProblem } from './problem.ts';
import { successStatusOf } from './procedures.ts';
import { readJsonBody } from './request-body.ts';

type AppRouter = typeof appRouter;

/**
 * Runs the procedure a REST route maps to (trpc-to-openapi's handler) and hands its
 * answer back to Koa instead of letting it write the socket itself: koa-session must still
 * set its cookie afterwards, and errors are reshaped into problem details here.
 *
 * The handler gets a fetch `Request` whose `body` is the JSON this layer already read and
 * checked (size, media type, syntax), and a response object that only records what is
 * written to it.
 */
export function createRestHandler(options: {
  router: AppRouter;
  createContext: (ctx: KoaContext) => Promise<Context>;
  jsonBodyLimitBytes: number;
}): Middleware {
  const koaContexts = new WeakMap<object, KoaContext>();
  const errors = new WeakMap<object, TRPCError>();

  const handler = createOpenApiNodeHttpHandler({
    router: options.router,
    createContext: ({ req }) => options.createContext(koaContexts.get(req)!),
    responseMeta: ({ paths, errors: failed }) =>
      failed.length === 0 && paths?.[0] ? { status: successStatusOf(paths[0]) } : {},
    onError: ({ error, req }) => {
      errors.set(req, error);
    },
  } as Parameters<typeof createOpenApiNodeHttpHandler<AppRouter, any, any>>[0]);

  return async (ctx) => {
    const body = ['POST', 'PUT', 'PATCH'].includes(ctx.method)
      ? await readJsonBody(ctx, options.jsonBodyLimitBytes)
      : undefined;
    // The procedures' paths are relative to /api (the document's server URL).
    const url = `http://localhost${ctx.originalUrl.replace(/^\/api/, '')}`;
    const request = new Request(url, {
      method: ctx.method,
      headers: { 'content-type': 'application/json' },
    });
    const query = queryOf(url);
    const requestWithBody = new Proxy(request, {
      get(target, property) {
        if (property === 'body') return body;
        if (property === 'query') return query;
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    koaContexts.set(requestWithBody, ctx);

    const captured = { status: 200, headers: {} as Record<string, string>, body: '' };
    const response = {
      get statusCode() {
        return captured.status;
      },
      set statusCode(status: number) {
        captured.status = status;
      },
      setHeader(name: string, value: string) {
        captured.headers[name.toLowerCase()] = value;
      },
      end(chunk?: string) {
        captured.body = chunk ?? '';
      },
    };
    await handler(requestWithBody as never, response as never);

    const error = errors.get(requestWithBody);
    if (error) {
      const shaped = problemFromTrpcError(error);
      if (shaped.unexpected) ctx.state.logger?.error({ err: error.cause ?? error }, 'procedure failed');
      sendProblem(ctx, shaped.problem, shaped.retryAfterSeconds);
      return;
    }
    ctx.status = captured.status;
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = captured.body;
  };
}

/**
 * The query string as trpc-to-openapi expects it (`name → values`), built here because its
 * own parser collects into a plain object: a parameter named like an Object.prototype member
 * (`constructor`, `__proto__`) threw, a 500 on every route. Unknown names are ignored anyway.
 */
function queryOf(url: string): Record<string, string[]> {
  const query: Record<string, string[]> = Object.create(null);
  for (const [name, value] of new URL(url).searchParams) {
    if (name === '__proto__') continue;
    query[name] ??= [];
    query[name].push(value);
  }
  return query;
}
