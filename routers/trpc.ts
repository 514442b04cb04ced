import { SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { initTRPC, type TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ZodError } from 'zod';
import { accessDenial, type ProcedureAccess, refusalOf, SIGN_IN_FIRST } from '../domain/auth/access.ts';
import type { Auth } from '../domain/context.ts';
import {
  badRequest,
  type DomainError,
  INVALID_INPUT,
  type Issue,
  UNEXPECTED_ERROR,
  unauthorized,
} from '../domain/errors.ts';
import { KEEP_ALIVE_MS } from '../domain/events/live-events.ts';
import { unstorableTextProblem } from '../domain/text.ts';
import type { Context } from './context.ts';
import { toTrpcError, trpcErrorFrom } from './errors.ts';
import { cut, issuesOf } from './issues.ts';
import { MAX_ISSUES } from './shared.schema.ts';

/**
 * Procedure metadata: the REST route (trpc-to-openapi) plus the success status the REST
 * facade answers with and the OpenAPI document states (201 for creates, 202 for jobs).
 * `access` is who may call it, enforced by the one middleware below; a procedure without
 * it is refused at start (rest/route-table.ts) and at every call.
 * `multipartLimit` marks a multipart upload route (input `{file}`) and names the setting
 * of `config.uploads` that caps its file. `heavy` marks an expensive operation, counted against
 * the organization's HEAVY_LIMIT_PER_MINUTE as well as the caller's limit. `sessionBound` marks a
 * procedure that acts on the session presenting it (sign-out, password change): its Idempotency-Key
 * answers are kept per session, not per caller (rest/idempotency.ts). `location` is where a
 * create's resource (or an accepted job) lives (the `Location` header of its 201 or 202).
 */
export type Meta = OpenApiMeta<{
  access?: ProcedureAccess;
  successStatus?: 200 | 201 | 202;
  multipartLimit?: 'imageMaxBytes' | 'contractMaxBytes';
  heavy?: boolean;
  sessionBound?: boolean;
  /**
   * A create (201), or an accepted job (202) that is followed there: the resource's /api path,
   * answered as `Location`; each `{name}` is filled from the answer (`{id}`, or a nested `{apiKey.id}`).
   */
  location?: `/${string}`;
  /**
   * A subscription served on /api as Server-Sent Events too (`GET <path>`, its input from the query
   * string and `Last-Event-ID`): what the route table and the OpenAPI document say of it.
   */
  stream?: { path: `/${string}`; tags: string[]; summary: string; description: string };
}>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // Subscriptions over SSE (httpSubscriptionLink): a ping at least every 15 s (api.md), and the
    // client reconnects (resuming from its last event) when it hears nothing for twice that.
    sse: {
      ping: { enabled: true, intervalMs: KEEP_ALIVE_MS },
      client: { reconnectAfterInactivityMs: KEEP_ALIVE_MS * 2 },
    },
    // tRPC clients get tRPC's own error shape, with field issues added and no stack trace. A
    // validation error's message is short (zod's own lists every issue, pretty-printed) and
    // every message bounded, like a problem's detail: no answer grows with its input.
    errorFormatter({ shape, error }) {
      const { stack: _stack, ...data } = shape.data;
      // An unexpected error's own text (a driver's, naming tables) stays in the log, as on REST.
      const message =
        error.cause instanceof ZodError
          ? INVALID_INPUT
          : error.code === 'INTERNAL_SERVER_ERROR'
            ? UNEXPECTED_ERROR
            : cut(shape.message, 1000);
      const path = data.path === undefined ? undefined : cut(data.path);
      return { ...shape, message, data: { ...data, path, issues: issuesOf(error) } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

interface Container {
  value: unknown[] | Record<string, unknown>;
  parent: Container | null;
  key: string | number;
}

function pathOf(container: Container | null, key?: string | number): (string | number)[] {
  // The input itself (no container around it) has the empty path.
  const path: (string | number)[] = container === null || key === undefined ? [] : [key];
  for (let c = container; c?.parent; c = c.parent) path.unshift(c.key);
  return path;
}

/**
 * Walks a procedure's raw input, whatever the transport brought it (REST, /trpc, an in-process
 * call), and lists what no schema should have to think about: strings and field names the
 * database cannot store, numbers that are not finite (JSON's 1e400 parses as Infinity) and a
 * field named `__proto__` (it cannot survive a round trip through a JavaScript object); at most
 * MAX_ISSUES of them. Its size and shape were bounded before it was parsed (`checkJsonCost`); the
 * walk is iterative all the same (no input can exhaust the stack), and allocates only per
 * container, so a 1 MB body is walked in a few milliseconds.
 */
export function inputIssues(input: unknown): Issue[] {
  const issues: Issue[] = [];
  const pending: Container[] = [];
  const visit = (value: unknown, parent: Container | null, key: string | number) => {
    if (typeof value === 'string') {
      const problem = unstorableTextProblem(value);
      if (problem) issues.push({ path: pathOf(parent, key), message: problem });
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value))
        issues.push({ path: pathOf(parent, key), message: 'must be a finite number' });
    } else if (value instanceof File) {
      const problem = unstorableTextProblem(value.name);
      if (problem) issues.push({ path: pathOf(parent, key), message: `file name ${problem}` });
    } else if (Array.isArray(value) || isPlainObject(value)) {
      pending.push({ value, parent, key });
    }
  };
  visit(input, null, '');
  while (pending.length > 0 && issues.length < MAX_ISSUES) {
    const container = pending.pop()!;
    const { value } = container;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) visit(value[index], container, index);
      continue;
    }
    for (const key of Object.keys(value)) {
      const problem = key === '__proto__' ? 'this field name is not allowed' : unstorableTextProblem(key);
      if (problem) {
        const message = key === '__proto__' ? problem : `field name ${problem}`;
        issues.push({ path: pathOf(container, key), message });
      } else visit(value[key], container, key);
    }
  }
  return issues.slice(0, MAX_ISSUES);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Every procedure's raw input, from any transport, before its schema sees it: text the
 * database cannot store, non-finite numbers and runaway nesting are a 400 with an issue on
 * each offending field (`routers/shared.schema.ts`), so no field can forget the check.
 */
async function checkStorableInput(getRawInput: () => Promise<unknown>): Promise<void> {
  const issues = inputIssues(await getRawInput());
  if (issues.length > 0) throw trpcErrorFrom(badRequest(INVALID_INPUT, issues));
}

/**
 * After the procedure: a domain error (and a database error caused by a concurrent change,
 * 409/404) leaves as the tRPC error of its kind; anything else stays a 500.
 */
function domainErrors<R extends { ok: boolean }>(result: R): R {
  if (!result.ok) throw toTrpcError((result as unknown as { error: TRPCError }).error);
  return result;
}

/**
 * The access decision of one call: the one made where its request was admitted (rest/admission.ts,
 * `Context.admitted`, by the call's place in the request), else, for an in-process call, which no
 * transport admitted, made now. Never made twice.
 */
function decidedAccess(
  access: ProcedureAccess | undefined,
  context: Context,
  batchIndex: number,
): DomainError | null {
  const admitted = context.admitted?.[batchIndex];
  return admitted === undefined ? accessDenial(access, context) : admitted;
}

// One middleware per kind of procedure, each enforcing the access its meta declares: each
// level of tRPC's chain copies the call's options and context again, on every call.

/** Anyone, or in-process operators: `ctx.auth` may be null. */
export const publicProcedure = t.procedure.use(
  ({ ctx, meta, path, getRawInput, next, type, batchIndex, signal }) =>
    inBatchOrder(ctx, type, batchIndex, signal, async () => {
      const denied = decidedAccess(meta?.access, ctx, batchIndex);
      if (denied) throw trpcErrorFrom(await refusalOf(denied, ctx, getRawInput));
      await checkStorableInput(getRawInput);
      return domainErrors(await inProcedureSpan(path, () => next()));
    }),
);

/**
 * A signed-in caller whose access covers `meta.access`; narrows `ctx.auth` for everything
 * after it. Who is asking is checked before what is asked (401, then 403, then the input).
 * A builder fixed to one level is a one-liner, `authedProcedure.meta({ access: 'owner' })`
 * (tRPC merges a procedure's own meta over it).
 */
export const authedProcedure = t.procedure.use(
  ({ ctx, meta, path, getRawInput, next, type, batchIndex, signal }) =>
    inBatchOrder(ctx, type, batchIndex, signal, async () => {
      const denied =
        decidedAccess(meta?.access, ctx, batchIndex) ?? (ctx.auth ? null : unauthorized(SIGN_IN_FIRST));
      if (denied) throw trpcErrorFrom(await refusalOf(denied, ctx, getRawInput));
      await checkStorableInput(getRawInput);
      return domainErrors(await inProcedureSpan(path, () => next({ ctx: { auth: ctx.auth as Auth } })));
    }),
);

/** A mutation of a /trpc batch waits for the ones before it (`Context.batchOrder`); anything else runs at once. */
function inBatchOrder<R>(
  ctx: Context,
  type: string,
  batchIndex: number,
  signal: AbortSignal | undefined,
  run: () => Promise<R>,
): Promise<R> {
  return type === 'mutation' && ctx.batchOrder ? ctx.batchOrder.inTurn(batchIndex, run, signal) : run();
}

/** Set by app/tracing.ts when tracing is on; unset, a procedure call runs as it is (no cost). */
let tracer: Tracer | undefined;

export function traceProcedures(active: Tracer): void {
  tracer = active;
}

/**
 * Runs one procedure call (a tRPC middleware's `next`) inside a span of its own, `trpc <path>`,
 * the child of the HTTP request's span and the parent of the SQL and outgoing calls it makes.
 */
export function inProcedureSpan<R extends { ok: boolean }>(path: string, run: () => Promise<R>): Promise<R> {
  if (!tracer) return run();
  return tracer.startActiveSpan(
    `trpc ${path}`,
    { attributes: { 'rpc.system': 'trpc', 'rpc.method': path } },
    async (span) => {
      try {
        const result = await run();
        if (!result.ok) span.setStatus({ code: SpanStatusCode.ERROR });
        return result;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
