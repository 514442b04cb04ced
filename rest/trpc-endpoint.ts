import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { Context as KoaContext, Middleware } from 'koa';
import type { appRouter } from '../routers/app-router.ts';
import type { Context } from '../routers/context.ts';
import { RetryLater } from '../routers/errors.ts';
import { readRawBody } from './request-body.ts';

/**
 * The same router for TypeScript clients (`@trpc/client`) at /trpc, with the same session
 * cookie. It speaks tRPC's own protocol and error shape (which its client needs); the
 * body is read here, under the same size cap as the REST routes.
 */
export function createTrpcEndpoint(options: {
  router: typeof appRouter;
  createContext: (ctx: KoaContext) => Promise<Context>;
  bodyLimitBytes: number;
}): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/trpc' && !ctx.path.startsWith('/trpc/')) return next();
    const body =
      ctx.method !== 'GET' && ctx.method !== 'HEAD'
        ? await readRawBody(ctx, options.bodyLimitBytes)
        : undefined;
    const headers = new Headers();
    for (const [name, value] of Object.entries(ctx.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    const request = new Request(`http://localhost${ctx.originalUrl}`, {
      method: ctx.method,
      headers,
      body: body ? new Uint8Array(body) : undefined,
    });
    const response = await fetchRequestHandler({
      endpoint: '/trpc',
      req: request,
      router: options.router,
      createContext: () => options.createContext(ctx),
      responseMeta: ({ errors }) => {
        const retry = errors.find((e) => e.cause instanceof RetryLater)?.cause as RetryLater | undefined;
        return retry ? { headers: { 'Retry-After': String(retry.retryAfterSeconds) } } : {};
      },
      onError: ({ error }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR')
          ctx.state.logger?.error({ err: error.cause ?? error }, 'procedure failed');
      },
    });
    ctx.status = response.status;
    response.headers.forEach((value, name) => {
      if (name !== 'content-length') ctx.set(name, value);
    });
    ctx.body = Buffer.from(await response.arrayBuffer());
  };
}
