import { Readable } from 'node:stream';
import { getTRPCErrorFromUnknown, type TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { getHTTPStatusCodeFromError, resolveResponse } from '@trpc/server/http';
import type { Context as KoaContext, Middleware } from 'koa';
import { badRequest, DomainError, unsupportedMediaType } from '../domain/errors.ts';
import type { appRouter } from '../routers/app-router.ts';
import { BatchOrder } from '../routers/batch-order.ts';
import { domainErrorOf, trpcBadRequest, trpcErrorFrom } from '../routers/errors.ts';
import { MAX_INPUT_DEPTH } from '../routers/shared.schema.ts';
import {
  admitCalls,
  bodyLimits,
  type ContextFactory,
  checkJsonCost,
  readQuery,
  readRawBody,
  requestContext,
} from './admission.ts';
import type { RequestContext as Context, Edge } from './edge.ts';
import { endsCleanly, STREAM_GOODBYE } from './event-stream.ts';
import { IDEMPOTENCY_HEADER } from './idempotency.ts';
import { domainErrorFrom } from './problem.ts';
import { procedureInfo } from './route-table.ts';

/** The most calls one batched request may carry (`@trpc/client`'s httpBatchLink `maxItems`). */
export const TRPC_MAX_BATCH_SIZE = 20;
/** Procedures that must be one call per request: each costs a password hash (and a throttle count). */
const UNBATCHABLE = new Set(['auth.logIn']);

/**
 * The same router for TypeScript clients (`@trpc/client`) at /trpc (app/app.ts mounts it
 * there), with the same session cookie. It speaks tRPC's own protocol and error shape (which its client needs); the
 * body is read here, under the same size cap as the REST routes.
 *
 * Mutations take `application/json` only (415 otherwise): tRPC would also accept
 * `multipart/form-data`, which any HTML form on another site can send. Batches are capped
 * at TRPC_MAX_BATCH_SIZE calls, and a batch that holds `auth.logIn` with anything else is a
 * 400: otherwise one request could try thousands of passwords.
 */
export function createTrpcEndpoint(options: {
  router: typeof appRouter;
  /** The body's caps, the upload budget and the rate limits (known even when no context could be made). */
  edge: Edge;
  createContext: ContextFactory;
}): Middleware {
  return async (ctx) => {
    // The edge's refusals are thrown: the problem-details middleware answers them on /trpc in
    // tRPC's shape (`trpcErrorAnswer`), as every other error here.
    if (ctx.method === 'POST' && ctx.get(IDEMPOTENCY_HEADER)) {
      // Only /api keeps answers: a tRPC client must not believe its retries are safe here.
      throw badRequest(`${IDEMPOTENCY_HEADER} is honoured on /api routes only, not on /trpc`, [
        { path: ['headers', IDEMPOTENCY_HEADER], message: 'not supported on /trpc' },
      ]);
    }
    if (!['GET', 'HEAD', 'OPTIONS'].includes(ctx.method) && ctx.request.type !== 'application/json') {
      const type = ctx.get('content-type');
      throw unsupportedMediaType(
        type
          ? `Content-Type ${type.slice(0, 100)} is not supported here; send application/json`
          : 'Send the body as application/json',
      );
    }
    // The caller, before the body: it decides how much of a body may be read. (A failure is
    // thrown from tRPC's createContext below, as a refusal of every call.)
    const contextMade = requestContext(ctx, options.createContext);
    contextMade.catch(() => {});
    let body: Buffer | undefined;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      const context = await contextMade.catch(() => null);
      // Read before any procedure can refuse an anonymous caller: without one, or to sign in,
      // a body is capped as sign-in's is on REST.
      const limits = bodyLimits(options.edge, context?.auth ?? null, callsPublicProcedure(ctx.path));
      body = await readRawBody(ctx, limits);
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(ctx.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    // Aborts when the client goes: a subscription (SSE) then ends.
    const left = new AbortController();
    ctx.res.once('close', () => left.abort());
    const request = new Request(`http://localhost${ctx.originalUrl}`, {
      method: ctx.method,
      headers,
      signal: left.signal,
      // A view of the bytes read, not a copy.
      body: body ? new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength) : undefined,
    });
    const response = await fetchRequestHandler({
      endpoint: '/trpc',
      req: request,
      router: options.router,
      maxBatchSize: TRPC_MAX_BATCH_SIZE,
      createContext: async ({ info }) => {
        // The same cost bound as a REST body, before tRPC parses the inputs (it parses them
        // lazily, after this); a batch's one level more, for the object around its inputs.
        try {
          const inputTexts = body ? [body.toString('utf8')] : [readQuery(ctx.querystring).input ?? []].flat();
          const maxDepth = info.isBatchCall ? MAX_INPUT_DEPTH + 1 : MAX_INPUT_DEPTH;
          for (const text of inputTexts) checkJsonCost(text, maxDepth);
        } catch (error) {
          throw error instanceof DomainError ? trpcErrorFrom(error) : error;
        }
        // tRPC's own parse of the path (decoded, split): the check cannot be dodged by encoding.
        if (info.isBatchCall && info.calls.length > 1) {
          const unbatchable = info.calls.find((call) => UNBATCHABLE.has(call.path));
          if (unbatchable) {
            throw trpcBadRequest(`${unbatchable.path} cannot be batched: send it as a request of its own`);
          }
        }
        // The session or key lookup failed (the database is down: a 503, not a 500).
        const context = await contextMade.catch((error: unknown) => {
          throw trpcErrorOf(error);
        });
        // A stream whose consumer is too slow (or whose caller was revoked) is cut off here.
        context.disconnect = () => ctx.req.socket.destroy();
        // A batch of mutations is applied in its order. Every call to a mutation reaches its
        // middleware, whose turn ends however it ends; a call to anything else (tRPC refuses a
        // query or a subscription in a POST batch before it runs) never waits or is waited for.
        if (info.isBatchCall && info.type === 'mutation' && info.calls.length > 1) {
          const mutations = info.calls.filter((call) => procedureInfo.get(call.path)?.type === 'mutation');
          context.batchOrder = new BatchOrder(mutations.map((call) => call.batchIndex));
        }
        // Each call of a batch counts as a request; a refused batch runs none of them. A call
        // the caller may not make (its 403, answered by its procedure) spends no heavy quota.
        // Each call's procedure takes its own decision, by its place in the batch.
        context.admitted = await admitCalls(
          ctx,
          context,
          info.calls.map((call) => procedureInfo.get(call.path)),
        ).catch((error: unknown) => {
          throw trpcErrorOf(error);
        });
        return context;
      },
      responseMeta: retryAfterOf,
      onError: ({ error }) => {
        // A failure of the service (a 500, or a 503 of the database), not a refusal.
        if (getHTTPStatusCodeFromError(error) >= 500)
          ctx.state.logger?.error({ err: error.cause ?? error }, 'procedure failed');
      },
    });
    await answerWith(ctx, response);
  };
}

/** The requests the endpoint serves (app/app.ts mounts it at /trpc): their errors take tRPC's shape. */
export function isTrpcPath(path: string): boolean {
  return path === '/trpc' || path.startsWith('/trpc/');
}

/**
 * Answers an error of a /trpc request that tRPC's handler never saw — a refusal of the edge (the
 * same-origin guard, the content type, Idempotency-Key, the body's size or pace, its memory
 * budget) or a crash — exactly as tRPC answers its own: `resolveResponse` is handed the error as
 * the request's "issue before reaching the handler", so every call of the request fails with it,
 * shaped by the procedures' error formatter (routers/trpc.ts), its status by tRPC's mapping, one
 * error per call of a batch. The problem-details middleware calls it for /trpc paths.
 */
export function trpcErrorAnswer(
  router: typeof appRouter,
): (ctx: KoaContext, error: unknown) => Promise<void> {
  return async (ctx, error) => {
    const url = new URL(`http://localhost${ctx.originalUrl}`);
    const response = await resolveResponse({
      router,
      // Only the path and `?batch=1` are read: each call fails before its input is.
      req: new Request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }),
      path: trimSlashes(url.pathname.slice('/trpc'.length)),
      error: trpcErrorOf(error),
      createContext: async () => ({}) as Context,
      maxBatchSize: TRPC_MAX_BATCH_SIZE,
      responseMeta: retryAfterOf,
    });
    await answerWith(ctx, response);
  };
}

/**
 * Any error as the tRPC error of its kind: the kind /api answers it with (`domainErrorFrom`, so
 * a database that is down is a 503 on both), or else tRPC's 500.
 */
function trpcErrorOf(error: unknown): TRPCError {
  const refusal = domainErrorFrom(error);
  return refusal ? trpcErrorFrom(refusal) : getTRPCErrorFromUnknown(error);
}

/** `Retry-After` from the first error that says when to retry (a 429, a 503). */
function retryAfterOf({ errors }: { errors: TRPCError[] }) {
  const retryAfter = errors.map((e) => domainErrorOf(e)?.retryAfterSeconds).find((s) => s !== undefined);
  return retryAfter !== undefined ? { headers: { 'Retry-After': String(retryAfter) } } : {};
}

/**
 * tRPC's answer as the Koa response (headers set earlier, such as RateLimit-*, stay). A
 * subscription's Server-Sent Events are piped as tRPC writes them, pulled only as fast as the
 * client reads (the stream's own buffer is bounded: adapters/events/event-stream.ts).
 */
async function answerWith(ctx: KoaContext, response: Response): Promise<void> {
  ctx.status = response.status;
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') ctx.set(name, value);
  });
  if (response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) {
    ctx.set('x-accel-buffering', 'no');
    const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
    ctx.body = body;
    // At a graceful stop: tRPC's messages stop (each is written whole), the answer ends with a
    // `retry:` and the terminator, and the client's EventSource reconnects (not tRPC's `return`,
    // which would complete the subscription). Koa then destroys the body: tRPC's stream ends.
    endsCleanly(ctx.res, () => {
      body.unpipe(ctx.res);
      if (!ctx.res.writableEnded && !ctx.res.destroyed) ctx.res.end(STREAM_GOODBYE);
    });
    return;
  }
  ctx.body = Buffer.from(await response.arrayBuffer());
}

/** As tRPC's fetch adapter reads the procedure part of a path: one slash off each end. */
function trimSlashes(path: string): string {
  const start = path.startsWith('/') ? 1 : 0;
  const end = path.endsWith('/') && path.length > start ? path.length - 1 : path.length;
  return path.slice(start, end);
}

/** Whether a request to `/trpc/<paths>` calls a procedure open to anonymous callers (sign-in). */
function callsPublicProcedure(path: string): boolean {
  let names: string;
  try {
    // As tRPC reads the path: decoded, then split at commas (a batch).
    names = decodeURIComponent(path.slice('/trpc/'.length));
  } catch {
    return true;
  }
  return names.split(',').some((name) => procedureInfo.get(name)?.access === 'public');
}
