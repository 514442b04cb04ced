import type { Context as KoaContext } from 'koa';
import { accessDenial, type ProcedureAccess } from '../domain/auth/access.ts';
import type { Auth } from '../domain/context.ts';
import type { DomainError } from '../domain/errors.ts';
import type { Edge, RequestContext } from './edge.ts';
import { countRequest } from './rate-limit.ts';
import type { BodyLimits } from './request-input.ts';

/**
 * The one door of /api (rest/dispatch.ts) and /trpc (rest/trpc-endpoint.ts): what a request to a
 * procedure passes before anything of it runs, the same on both transports. In this order:
 * 1. who asks: the request's context, made once (`requestContext`);
 * 2. may they, and how often: each call's access decided and the request counted against the
 *    rate limits (`admitCalls`); the decisions go with the context to the procedures;
 * 3. how much they may send: the body's cap and whose upload budget it is charged to
 *    (`bodyLimits`), then its cost before it is parsed (`checkJsonCost`, rest/request-input.ts).
 * Each transport calls these at its own point (REST decides before it reads the body; /trpc reads
 * its body before tRPC names the calls) and answers their refusals in its own shape.
 */

/** Builds a request's context (rest/request-context.ts). */
export type ContextFactory = (ctx: KoaContext) => Promise<RequestContext>;

/** What admission reads of a procedure's meta. */
export interface Admissible {
  access: ProcedureAccess;
  /** Counted against the organization's heavy limit too. */
  heavy?: boolean;
}

/**
 * The request's context: the caller (session cookie or API key) and a fresh EntityManager, made
 * once per request, whichever part of the request asks first.
 */
export function requestContext(ctx: KoaContext, create: ContextFactory): Promise<RequestContext> {
  ctx.state.context ??= create(ctx);
  return ctx.state.context;
}

/**
 * Admits the calls a request makes (one on /api; one or a batch on /trpc; none for an /api path no
 * route takes, which is counted all the same): each call's access decided once (`accessDenial`:
 * null, or the 401/403 to answer), then a signed-in caller's request counted, each call as a
 * request and each allowed heavy call against the organization's heavy limit (a call the caller
 * may not make spends no heavy quota). Past a limit the 429 is thrown: nothing has run. Who asks
 * is known before how often: an anonymous request is not counted, and its 401 comes first.
 *
 * The decisions travel with the context (`Context.admitted`, in the calls' order), where each
 * procedure's middleware takes its own (routers/trpc.ts); they are also answered, for a transport
 * that refuses before it reads more (REST). An unknown call (undefined) is tRPC's 404: allowed here.
 */
export async function admitCalls(
  ctx: KoaContext,
  context: RequestContext,
  calls: readonly (Admissible | undefined)[],
): Promise<readonly (DomainError | null)[]> {
  const decisions = calls.map((call) => (call ? accessDenial(call.access, context) : null));
  if (context.auth) {
    const heavyCalls = calls.filter((call, index) => call?.heavy && decisions[index] === null).length;
    const refused = await countRequest(
      ctx,
      context.edge.rateLimiter,
      context.auth,
      Math.max(1, calls.length),
      heavyCalls,
    );
    if (refused) throw refused;
  }
  context.admitted = decisions;
  return decisions;
}

/**
 * The most a body may be that the service reads for a caller who is not signed in, or for a call
 * open to anybody (sign-in: an e-mail and a password). Anyone can send these, so they are kept far
 * below JSON_BODY_LIMIT_BYTES. (REST refuses an anonymous caller of any other route before it reads
 * a byte; /trpc reads the body before a procedure can refuse, so it caps it here.)
 */
export const PUBLIC_BODY_LIMIT_BYTES = 16 * 1024;

/**
 * How a JSON body is read: capped (PUBLIC_BODY_LIMIT_BYTES for `caller` null or a public call,
 * else JSON_BODY_LIMIT_BYTES), cut off when it stops arriving, and a signed-in caller's charged to
 * its organization's and its own shares of the upload memory budget while it is read (the time the
 * caller controls). An anonymous body is not charged: it is small.
 */
export function bodyLimits(edge: Edge, caller: Auth | null, publicCall: boolean): BodyLimits {
  const { jsonBodyLimitBytes, uploads } = edge.settings;
  return {
    limitBytes:
      caller === null || publicCall
        ? Math.min(PUBLIC_BODY_LIMIT_BYTES, jsonBodyLimitBytes)
        : jsonBodyLimitBytes,
    idleTimeoutMs: uploads.idleTimeoutMs,
    charge: caller ? { budget: edge.uploadBudget, caller } : null,
  };
}
